/**
 * Finds which REST endpoints a test file calls, statically: every call of the REST client
 * (`.get/.post/.put/.patch/.delete/.all/.url(path)`, `.request(method, path)`, `fetch(url, {method})`)
 * whose path argument can be traced to string literals. Identifiers are resolved through their
 * declarations and assignments (scope-aware, with the TypeScript checker), parameters through the
 * arguments of the calls of their function, small path helpers through their returned expression.
 * A part that cannot be traced (an id, a computed value) becomes a wildcard inside one path segment.
 */
import ts from 'typescript';
import type { Method } from './endpoints.js';

export interface ClientCall {
  method: Method;
  /** The path with WILDCARD where a part could not be traced; no query string. */
  path: string;
}

/** Stands for a part of a path that could not be traced (never crosses a `/`). */
export const WILDCARD = '\u0001';
const MAX_VARIANTS = 256;
const CLIENT_METHODS: Record<string, Method> = {
  get: 'GET',
  post: 'POST',
  put: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  all: 'GET',
  url: 'GET',
};

/** Every traced REST client call of each file (absolute paths). */
export function scanFiles(files: string[]): Map<string, ClientCall[]> {
  const program = ts.createProgram(files, { noResolve: true, noLib: true, types: [], allowJs: false });
  const checker = program.getTypeChecker();
  const result = new Map<string, ClientCall[]>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`Cannot read ${file}`);
    result.set(file, new FileScan(source, checker).calls());
  }
  return result;
}

class FileScan {
  /** Expressions assigned to a symbol after its declaration (`base = …`). */
  private readonly assigned = new Map<ts.Symbol, ts.Expression[]>();
  /** Calls of a function symbol, to trace its parameters. */
  private readonly callsOf = new Map<ts.Symbol, ts.CallExpression[]>();
  private readonly clientCalls: ts.CallExpression[] = [];

  constructor(
    source: ts.SourceFile,
    private readonly checker: ts.TypeChecker,
  ) {
    this.index(source);
  }

  calls(): ClientCall[] {
    return this.clientCalls.flatMap((call) => this.callPaths(call));
  }

  private index(node: ts.Node): void {
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      this.push(this.assigned, this.symbol(node.left), node.right);
    }
    if (ts.isCallExpression(node)) {
      this.push(this.callsOf, this.symbol(node.expression), node);
      if (clientCallKind(node)) this.clientCalls.push(node);
    }
    ts.forEachChild(node, (child) => this.index(child));
  }

  private push<T>(map: Map<ts.Symbol, T[]>, key: ts.Symbol | undefined, value: T): void {
    if (!key) return;
    map.set(key, [...(map.get(key) ?? []), value]);
  }

  private symbol(node: ts.Node): ts.Symbol | undefined {
    return this.checker.getSymbolAtLocation(node);
  }

  private callPaths(call: ts.CallExpression): ClientCall[] {
    const kind = clientCallKind(call)!;
    const methods = kind.method ? [kind.method] : this.methodsOf(call, kind);
    const urls = this.values(call.arguments[kind.pathArg], new Set());
    const paths = urls.map((url) => (kind.isUrl ? url.replace(new RegExp(`^${WILDCARD}+(?=/)`), '') : url));
    return paths.filter((p) => p.startsWith('/')).flatMap((p) => methods.map((method) => ({ method, path: p.split('?')[0] })));
  }

  /** `request('PATCH', path)` or `fetch(url, {method: 'PATCH'})` (GET when absent). */
  private methodsOf(call: ts.CallExpression, kind: CallKind): Method[] {
    const arg = kind.isUrl ? methodProperty(call.arguments[1]) : call.arguments[0];
    if (!arg) return ['GET'];
    return this.values(arg, new Set())
      .map((m) => m.toUpperCase())
      .filter((m): m is Method => Object.values(CLIENT_METHODS).includes(m as Method));
  }

  /** Every string the expression may hold, WILDCARD for parts that cannot be traced. */
  private values(expr: ts.Expression | undefined, seen: Set<ts.Node>): string[] {
    const resolved = expr ? this.resolve(expr, seen) : [];
    if (!resolved.length) return [WILDCARD];
    return limit(resolved.flatMap((e) => this.valuesOf(e, new Set(seen).add(e))));
  }

  private valuesOf(expr: ts.Expression, seen: Set<ts.Node>): string[] {
    if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return [expr.text];
    if (ts.isTemplateExpression(expr)) {
      let acc = [expr.head.text];
      for (const span of expr.templateSpans) acc = concat(concat(acc, this.values(span.expression, seen)), [span.literal.text]);
      return acc;
    }
    if (ts.isBinaryExpression(expr) && expr.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      return concat(this.values(expr.left, seen), this.values(expr.right, seen));
    }
    return [WILDCARD];
  }

  /**
   * The expressions an expression may evaluate to, following identifiers (declarations,
   * assignments, parameters, destructuring), properties of object literals, calls of local
   * helpers (their returned expressions), awaits, casts and both branches of a conditional.
   */
  private resolve(expr: ts.Expression, seen: Set<ts.Node>): ts.Expression[] {
    if (seen.has(expr)) return [];
    const inner = new Set(seen).add(expr);
    const next = (e: ts.Expression) => this.resolve(e, inner);
    if (isWrapper(expr)) return next(expr.expression);
    if (ts.isConditionalExpression(expr)) return [...next(expr.whenTrue), ...next(expr.whenFalse)];
    if (ts.isIdentifier(expr)) return this.symbolSources(this.identifierSymbol(expr), inner).flatMap(next);
    if (ts.isPropertyAccessExpression(expr)) return this.propertySources(expr, inner).flatMap(next);
    if (ts.isCallExpression(expr)) return this.functionsOf(expr.expression, inner).flatMap(returnedExpressions).flatMap(next);
    return [expr];
  }

  private identifierSymbol(id: ts.Identifier): ts.Symbol | undefined {
    if (ts.isShorthandPropertyAssignment(id.parent)) return this.checker.getShorthandAssignmentValueSymbol(id.parent);
    return this.symbol(id);
  }

  private symbolSources(symbol: ts.Symbol | undefined, seen: Set<ts.Node>): ts.Expression[] {
    if (!symbol) return [];
    const sources = [...(this.assigned.get(symbol) ?? [])];
    for (const decl of symbol.declarations ?? []) sources.push(...this.declarationSources(decl, seen));
    return sources;
  }

  private declarationSources(decl: ts.Declaration, seen: Set<ts.Node>): ts.Expression[] {
    if (ts.isVariableDeclaration(decl)) return decl.initializer ? [decl.initializer] : forOfElements(decl);
    if (ts.isPropertyAssignment(decl)) return [decl.initializer];
    if (ts.isParameter(decl)) return this.parameterSources(decl, seen);
    if (ts.isBindingElement(decl)) return this.bindingSources(decl, seen);
    return [];
  }

  /** `const { base } = siteWith()`: the `base` property of what the initializer evaluates to. */
  private bindingSources(element: ts.BindingElement, seen: Set<ts.Node>): ts.Expression[] {
    const pattern = element.parent;
    const holder = pattern.parent;
    if (!ts.isObjectBindingPattern(pattern) || !ts.isVariableDeclaration(holder) || !holder.initializer) return [];
    const name = (element.propertyName ?? element.name).getText();
    return this.resolve(holder.initializer, seen).flatMap((obj) => propertyOf(obj, name));
  }

  /** `x.name`: the property of the object literals `x` evaluates to, else the checker's declarations. */
  private propertySources(expr: ts.PropertyAccessExpression, seen: Set<ts.Node>): ts.Expression[] {
    const fromObjects = this.resolve(expr.expression, seen).flatMap((obj) => propertyOf(obj, expr.name.text));
    if (fromObjects.length) return fromObjects;
    return this.symbolSources(this.symbol(expr), seen);
  }

  /** The local functions a callee may be (a declared function, an arrow in a variable or property). */
  private functionsOf(callee: ts.Expression, seen: Set<ts.Node>): ts.FunctionLikeDeclaration[] {
    const declared = this.symbol(callee)?.declarations?.find(ts.isFunctionDeclaration);
    if (declared) return [declared];
    return this.resolve(callee, seen).filter(
      (e): e is ts.ArrowFunction | ts.FunctionExpression => ts.isArrowFunction(e) || ts.isFunctionExpression(e),
    );
  }

  /** A parameter's default and the matching argument of every call of its function. */
  private parameterSources(param: ts.ParameterDeclaration, seen: Set<ts.Node>): ts.Expression[] {
    const fn = param.parent;
    const index = fn.parameters.indexOf(param);
    if (index === 0) {
      const table = eachTable(fn);
      if (table) return this.resolve(table, seen).flatMap((arr) => (ts.isArrayLiteralExpression(arr) ? [...arr.elements] : []));
    }
    const name = functionName(fn);
    const symbol = name && this.symbol(name);
    const calls = symbol ? (this.callsOf.get(symbol) ?? []) : [];
    const args = calls.map((c) => c.arguments[index]).filter((a): a is ts.Expression => !!a);
    return param.initializer ? [param.initializer, ...args] : args;
  }
}

type Wrapper = ts.ParenthesizedExpression | ts.AsExpression | ts.NonNullExpression | ts.SatisfiesExpression | ts.AwaitExpression;

function isWrapper(expr: ts.Expression): expr is Wrapper {
  return (
    ts.isParenthesizedExpression(expr) ||
    ts.isAsExpression(expr) ||
    ts.isNonNullExpression(expr) ||
    ts.isSatisfiesExpression(expr) ||
    ts.isAwaitExpression(expr)
  );
}

/** The initializer of property `name` of an object literal (a shorthand gives its identifier). */
function propertyOf(obj: ts.Expression, name: string): ts.Expression[] {
  if (!ts.isObjectLiteralExpression(obj)) return [];
  const found: ts.Expression[] = [];
  for (const prop of obj.properties) {
    if (prop.name?.getText() !== name) continue;
    if (ts.isPropertyAssignment(prop)) found.push(prop.initializer);
    if (ts.isShorthandPropertyAssignment(prop)) found.push(prop.name);
  }
  return found;
}

interface CallKind {
  pathArg: number;
  method?: Method;
  /** The argument is a URL (fetch): a leading untraced origin is dropped. */
  isUrl?: boolean;
}

function clientCallKind(call: ts.CallExpression): CallKind | null {
  const callee = call.expression;
  if (ts.isIdentifier(callee) && callee.text === 'fetch') return { pathArg: 0, isUrl: true };
  if (!ts.isPropertyAccessExpression(callee)) return null;
  const name = callee.name.text;
  if (name === 'request' && call.arguments.length >= 2) return { pathArg: 1 };
  const method = CLIENT_METHODS[name];
  return method && call.arguments.length >= 1 ? { pathArg: 0, method } : null;
}

function methodProperty(options: ts.Expression | undefined): ts.Expression | undefined {
  if (!options || !ts.isObjectLiteralExpression(options)) return undefined;
  for (const prop of options.properties) {
    if (ts.isPropertyAssignment(prop) && prop.name.getText() === 'method') return prop.initializer;
  }
  return undefined;
}

/** `for (const x of ['a', 'b'])`: the elements of the array literal. */
function forOfElements(decl: ts.VariableDeclaration): ts.Expression[] {
  const statement = decl.parent?.parent;
  if (!statement || !ts.isForOfStatement(statement)) return [];
  const iterated = statement.expression;
  return ts.isArrayLiteralExpression(iterated) ? [...iterated.elements] : [];
}

/** `describe.each(table)(title, (row) => …)` / `it.each(table)(…)`: the table of the callback. */
function eachTable(fn: ts.SignatureDeclaration): ts.Expression | undefined {
  const call = fn.parent;
  if (!call || !ts.isCallExpression(call) || !call.arguments.includes(fn as ts.Expression)) return undefined;
  const each = call.expression;
  if (!ts.isCallExpression(each) || !ts.isPropertyAccessExpression(each.expression)) return undefined;
  return each.expression.name.text === 'each' ? each.arguments[0] : undefined;
}

function functionName(fn: ts.SignatureDeclaration): ts.Node | undefined {
  if (ts.isFunctionDeclaration(fn)) return fn.name;
  if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isVariableDeclaration(fn.parent)) return fn.parent.name;
  return undefined;
}

/** What a function returns: its expression body, or the expressions of its return statements. */
function returnedExpressions(fn: ts.FunctionLikeDeclaration): ts.Expression[] {
  if (!fn.body) return [];
  if (!ts.isBlock(fn.body)) return [fn.body];
  const found: ts.Expression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node)) return;
    if (ts.isReturnStatement(node) && node.expression) found.push(node.expression);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(fn.body, visit);
  return found;
}

function concat(left: string[], right: string[]): string[] {
  return limit(left.flatMap((l) => right.map((r) => l + r)));
}

function limit(values: string[]): string[] {
  return [...new Set(values)].slice(0, MAX_VARIANTS);
}

/** Whether a traced call path is an instance of the template (parameter names ignored). */
export function matchesTemplate(callPath: string, template: string): boolean {
  const parts = callPath.split('/');
  const segments = template.split('/');
  if (parts.length !== segments.length) return false;
  return segments.every((seg, i) => (/^\{[^}]*\}$/.test(seg) ? parts[i].length > 0 : parts[i] === seg));
}
