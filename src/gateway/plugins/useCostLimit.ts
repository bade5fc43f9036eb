/**
 * Rejects operations whose cost exceeds `maxCost`, before execution (so before any REST call).
 * The cost estimates the REST calls an operation can make when nothing is cached, computed with
 * graphql-query-complexity from the cost each field declares (src/schema/lib/cost.ts: the same
 * `@cost` and `@listSize` the subgraph SDL gives routers), field by field:
 *
 *   cost(field) = weight(field) + size(field) × Σ cost(each field of its selection)
 *
 *   weight = its `@cost` weight: 1 when the field may make a REST call (a root field, a
 *            connection, a field returning a Node, a field with arguments), 0 for what the
 *            parent's REST JSON carries (a Node it embeds too: cost.ts's EMBEDDED) and the
 *            connection plumbing; introspection is
 *            priced by the objects it returns (src/gateway/lib/introspectionCost.ts).
 *   size   = for a field with `@listSize(slicingArguments: ["first"], …)` (a connection), its
 *            `first` (absent: `defaultPageSize`; clamped to 0..`maxPageSize` as the field itself
 *            enforces): each item may cost what is below `edges`/`nodes`; for a list the
 *            parent's JSON carries whose items have fields that may call, its `assumedSize`
 *            (the default page size: `ssoLogins { samlProvider { … } }`); otherwise 1.
 *
 * This is the IBM spec's static cost (as Apollo Router and Hive Gateway compute it, with type costs
 * 0: the weights are the whole price) where the two can agree: a router has no `defaultPageSize`
 * setting (it reads `assumedSize`, the setting's default) and prices a plain list by its own
 * default list size, where the gateway counts a list the parent's JSON carries once (unless its
 * items have fields that may call: its `assumedSize`, cost.ts).
 *
 * A list of objects to load, `nodes(ids:)` or `_entities(representations:)`, costs one REST call
 * per item on top: 1 + n × (1 + its selection) (routers: `assumedSize` = `maxIds`'s default items);
 * more than `maxIds` items in all the operation's such lists (aliases counted each time; a field execution merges, once)
 * are refused outright. Per operation, not per list: an item that fails costs its error without a
 * REST call (an unreadable id, a representation of no entity, a lookup after the token's 401), and
 * 30 aliases of `_entities` with 100 made-up representations each, a 5 KB body without a token,
 * built 3,000 errors and held the event loop some 400 ms.
 *
 * An incremental result's parts cost one each on top: each `@defer` fragment, and each item of a
 * `@stream`ed list, times the items of the lists above it (a fragment under `spaces(first: 100)`
 * is 100 parts). The executor makes a record of each (its path, its own execution, its payload)
 * when it meets the fragment or the list, before any part is sent or measured by the
 * response-bytes bound: 20 `... @defer { title }` under 10,000 spaces (cost 20,101 without them)
 * ran `npm start` out of heap with one request. Routers price no parts (they split a deferred
 * query into their own fetches).
 *
 * The formula runs on the operation as execution merges it (lib/mergedOperation.ts): fields of one
 * selection set that share a response key count once, whatever fragments brought them.
 *
 * Abstract selections take their costliest branch (parts: every branch). Example: `organization { spaces(first: 100)
 * { nodes { changeRequests(first: 100) { nodes { comments(first: 100) { nodes { id } } } } } } }`
 * costs 1 + (1 + 100 × (1 + 100 × (1 + 100 × 0))) = 10 102.
 */
import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  specifiedScalarTypes,
  typeFromAST,
  type DirectiveNode,
  type DocumentNode,
  type GraphQLDirective,
  type GraphQLError,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import type { Plugin } from 'graphql-yoga';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { GatewayLimits } from '../context.js';
import { introspectionCost } from '../lib/introspectionCost.js';
import { incrementalArguments } from './useDirectiveArguments.js';
import { limitError } from '../lib/limitError.js';
import { mergedOperation, TooManySelections } from '../lib/mergedOperation.js';
import { costOf, LOADED_LISTS, type ListSizeDeclaration } from '../../schema/lib/cost.js';
import { fragmentsOf } from '../../schema/lib/rootFields.js';

// The CommonJS build: it shares the `graphql` instance the rest of the gateway loads (the ESM
// build imports graphql's .mjs files, a second instance that rejects our schema's types).
const { getComplexity } = createRequire(import.meta.url)('graphql-query-complexity') as typeof import('graphql-query-complexity');

export type CostLimits = Pick<GatewayLimits, 'maxCost' | 'defaultPageSize' | 'maxPageSize'> & { maxIds: number };
type Pages = Omit<CostLimits, 'maxCost'>;

/** Thrown by the estimator once the operation's lists of objects to load hold more than `maxIds` items. */
class TooManyIds extends Error {
  constructor(
    /** The list that went past the bound, or undefined when no list alone does (several together). */
    readonly field: string | undefined,
    readonly count: number,
  ) {
    super(field);
  }
}

/** Fields evaluated (fragments expanded at each spread) beyond which an operation is refused unpriced. */
const MAX_EVALUATED_FIELDS = 20_000;

/** Verdicts kept per parsed document (Yoga caches those per query text); more shapes of variables start over. */
const VERDICTS_PER_DOCUMENT = 64;

export function useCostLimit(limits: CostLimits): Plugin {
  // Pricing walks the whole operation (getComplexity): done once per document, operation and
  // variables shape, not on every request.
  const verdicts = new WeakMap<DocumentNode, Map<string, Verdict>>();
  const check = ({ args, setResultAndStopExecution }: CheckPayload) => {
    let byShape = verdicts.get(args.document);
    if (!byShape) verdicts.set(args.document, (byShape = new Map()));
    const key = verdictKey(args);
    let verdict = byShape.get(key);
    if (verdict === undefined) {
      verdict = price(args, limits);
      // Not priced (execution refuses it): no verdict is kept. The key leaves strings out, so a
      // kept "no error" for variables that did not validate (an enum value that does not exist)
      // let valid ones of the same shape run unpriced: 40,000 ids in `nodes(ids:)` ran the
      // gateway out of memory.
      if (verdict === undefined) return;
      if (byShape.size >= VERDICTS_PER_DOCUMENT) byShape.clear();
      byShape.set(key, verdict);
    }
    if (verdict !== null) setResultAndStopExecution({ errors: [refusal(verdict, limits)] });
  };
  return { onExecute: check, onSubscribe: check };
}

/**
 * What pricing found, kept per document and variables shape: null (within the limits), the cost
 * (Infinity: too large to price), or the list longer than `maxIds` (its field and length). Kept
 * as values, each refusal made when it is sent: a kept GraphQLError holds its stack, some 1.4 KB,
 * and 64 shapes of 1,024 cached documents grew the heap by 90 MB.
 */
type Verdict = null | number | readonly [field: string | undefined, count: number];

/** Longest verdict key kept as it is; a longer one is kept as its SHA-256 (which has no newline, unlike a key). */
const MAX_KEY_CHARS = 128;

/**
 * The key of the verdict on this operation and variables shape. The shape of an object a variable
 * carries as it is (`_entities(representations:)`'s `_Any`, a `JSON` input) holds each of its
 * keys: 64 shapes of 770 KB (60,000 keys) kept per document ran the heap out.
 */
function verdictKey(args: CheckPayload['args']): string {
  const key = `${args.operationName ?? ''}\n${variablesShape(args)}`;
  return key.length > MAX_KEY_CHARS ? createHash('sha256').update(key).digest('base64') : key;
}

/**
 * What of the variables can change the cost: numbers and booleans (`first`, `@include(if:)`) and
 * list lengths (`ids`), never the text of a string (an id, a token), which is left out of the key;
 * and only the variables the operation declares (the others are never read: 60,000 unused keys
 * cost 20 ms a request to key).
 */
export function variablesShape({ schema, document, operationName, variableValues }: CheckPayload['args']): string {
  if (!variableValues || typeof variableValues !== 'object') return '';
  const values = variableValues as Record<string, unknown>;
  let out = '';
  for (const definition of getOperationAST(document, operationName)?.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (!Object.hasOwn(values, name)) continue;
    // A type the schema lacks: the variables do not validate, so no verdict is kept (see useCostLimit).
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    out += `${name}:${type ? typedShape(values[name], type) : shapeOf(values[name])},`;
  }
  return out;
}

/**
 * `value`'s shape as its declared type reads it: a list's length and its items', an input
 * object's fields of its type, and a custom scalar (`_Any`, `JSON`) as `""`, whatever it holds:
 * the price reads list lengths, numbers and booleans of arguments, never what a custom scalar
 * carries (`_entities(representations:)` is priced by how many). Walked whole, one
 * representation of 90,000 keys (1 MB, a token's body) cost 70 ms of the event loop a request.
 */
function typedShape(value: unknown, type: GraphQLInputType): string {
  if (isNonNullType(type)) return typedShape(value, type.ofType);
  if (value === null || typeof value !== 'object') return isCustomScalar(type) ? '""' : shapeOf(value);
  if (isListType(type))
    return Array.isArray(value) ? `[${value.map((item) => typedShape(item, type.ofType)).join(',')}]` : typedShape(value, type.ofType);
  if (isCustomScalar(type)) return '""';
  if (!isInputObjectType(type) || Array.isArray(value)) return shapeOf(value);
  // Its fields in the type's order; a key the type lacks fails validation (no verdict kept).
  let out = '{';
  for (const field of Object.values(type.getFields()))
    if (Object.hasOwn(value, field.name)) out += `${field.name}:${typedShape((value as Record<string, unknown>)[field.name], field.type)},`;
  return `${out}}`;
}

const isCustomScalar = (type: GraphQLInputType) => isScalarType(type) && !specifiedScalarTypes.some((s) => s.name === type.name);

/** JSON of `value` with every string emptied (as JSON.stringify with a replacer, without its cost per value). */
function shapeOf(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return '""';
    case 'number':
    case 'boolean':
      return String(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return `[${value.map(shapeOf).join(',')}]`;
      let out = '{';
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || typeof item === 'function') continue;
        out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${shapeOf(item)}`;
      }
      return `${out}}`;
    }
    default:
      return 'null';
  }
}

/** What an `onExecute` / `onSubscribe` check reads of its payload (the list bound's too: useMaxListItems.ts). */
export interface CheckPayload {
  args: { schema: GraphQLSchema; document: DocumentNode; variableValues?: unknown; operationName?: string | null };
  setResultAndStopExecution(result: { errors: Error[] }): void;
}

/**
 * The operation's verdict (see Verdict), undefined when it is not priced because execution will
 * refuse it anyway (an unknown operation, variables that do not validate).
 */
function price(args: CheckPayload['args'], limits: CostLimits): Verdict | undefined {
  const operation = getOperationAST(args.document, args.operationName ?? undefined);
  if (!operation) return undefined; // unknown or ambiguous operation: execution reports it
  const variables = (args.variableValues ?? {}) as Record<string, unknown>;
  if (getVariableValues(args.schema, operation.variableDefinitions ?? [], variables).errors) return undefined; // likewise
  let cost: number;
  try {
    cost = operationCost(args.schema, args.document, variables, operation.name?.value, limits);
  } catch (error) {
    return error instanceof TooManyIds ? [error.field, error.count] : Infinity;
  }
  return cost <= limits.maxCost ? null : cost;
}

/** The error of a verdict over a limit. */
function refusal(verdict: Exclude<Verdict, null>, limits: CostLimits): GraphQLError {
  if (typeof verdict !== 'number') {
    const [field, count] = verdict;
    const message = field
      ? `\`${field}\` takes at most ${limits.maxIds} items, found ${count}.`
      : `An operation takes at most ${limits.maxIds} ids and representations in all its \`nodes(ids:)\` and \`_entities(representations:)\`, found ${count}.`;
    return limitError('maxIds', limits.maxIds, message, count);
  }
  if (verdict === Infinity)
    return limitError(
      'maxCost',
      limits.maxCost,
      `Query too large to price (more than ${MAX_EVALUATED_FIELDS} fields with fragments expanded).`,
    );
  return limitError(
    'maxCost',
    limits.maxCost,
    `Query cost limit of ${limits.maxCost} exceeded, found ${verdict} (connections multiply the cost of their selection by \`first\`).`,
    verdict,
  );
}

export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  operationName: string | undefined,
  limits: Pages,
): number {
  const items = { loaded: 0 };
  const operation = getOperationAST(document, operationName);
  // Priced as execution merges it (mergedOperation.ts), not per occurrence of a field.
  const coerced = operation && getVariableValues(schema, operation.variableDefinitions ?? [], variables).coerced;
  const merged = operation && coerced ? mergedOperation(schema, document, operation, coerced, MAX_EVALUATED_FIELDS) : document;
  const cost = getComplexity({
    schema,
    query: merged,
    variables,
    operationName,
    estimators: [restCostEstimator(schema, limits, items)],
    maxQueryNodes: MAX_EVALUATED_FIELDS,
  });
  if (items.loaded > limits.maxIds) throw new TooManyIds(undefined, items.loaded);
  return cost + incrementalParts(schema, document, variables, operationName, limits);
}

/**
 * The parts of an incremental result the operation may make (see above): one per `@defer`
 * fragment and per item of a `@stream`ed list (its initial items included), times the items of
 * the lists above it, priced as the formula sizes them. Fragments are expanded at each spread
 * (an executor makes a fragment's parts at each: defer.test.ts), at most MAX_EVALUATED_FIELDS
 * selections in all (TooManySelections).
 */
function incrementalParts(
  schema: GraphQLSchema,
  document: DocumentNode,
  given: Record<string, unknown>,
  operationName: string | undefined,
  pages: Pages,
): number {
  const defer = schema.getDirective('defer') ?? undefined;
  const stream = schema.getDirective('stream') ?? undefined;
  const operation = getOperationAST(document, operationName);
  if (!operation || (!defer && !stream) || incrementalArguments(document, operation).conditions.length === 0) return 0;
  // With their defaults, as execution reads them (pricing ran on variables that validate).
  const variables = getVariableValues(schema, operation.variableDefinitions ?? [], given).coerced ?? {};
  const fragments = fragmentsOf(document);
  /** The `if` of `directive` on the node (undefined: absent); true when it cannot be read (execution refuses it). */
  const condition = (directive: GraphQLDirective, node: { directives?: readonly DirectiveNode[] }): unknown => {
    if (!node.directives?.some((d) => d.name.value === directive.name)) return undefined;
    try {
      return getDirectiveValues(directive, node, variables)?.if;
    } catch {
      return true;
    }
  };
  /** Whether `directive` applies to the node (present, its `if` not false). */
  const applies = (directive: GraphQLDirective | undefined, node: { directives?: readonly DirectiveNode[] }) => {
    const value = directive && condition(directive, node);
    return value !== undefined && value !== false;
  };
  const included = (node: { directives?: readonly DirectiveNode[] }) =>
    condition(GraphQLSkipDirective, node) !== true && condition(GraphQLIncludeDirective, node) !== false;
  let visited = 0;
  const walk = (selectionSet: SelectionSetNode, type: GraphQLNamedType | undefined, items: number): number => {
    let parts = 0;
    for (const node of selectionSet.selections) {
      if (++visited > MAX_EVALUATED_FIELDS) throw new TooManySelections();
      if (!included(node)) continue;
      if (node.kind === Kind.FIELD) {
        const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[node.name.value] : undefined;
        if (!field) continue;
        const args = getArgumentValues(field, node, variables);
        const inner = items * (loadedItems(field, args, pages.maxIds) ?? pageSize(costOf(field).listSize, args, pages));
        if (applies(stream, node)) parts += inner;
        if (node.selectionSet) parts += walk(node.selectionSet, getNamedType(field.type), inner);
        continue;
      }
      const fragment = node.kind === Kind.INLINE_FRAGMENT ? node : fragments.get(node.name.value);
      if (!fragment) continue;
      if (applies(defer, node)) parts += items;
      parts += walk(fragment.selectionSet, fragment.typeCondition ? schema.getType(fragment.typeCondition.name.value) : type, items);
    }
    return parts;
  };
  const root = schema.getRootType(operation.operation);
  return walk(operation.selectionSet, root ?? undefined, 1);
}

/**
 * The estimator of the formula above, from the fields' declared `@cost` and `@listSize` (cost.ts);
 * it adds the items of the lists of objects to load it prices to `items.loaded` (see above).
 */
export function restCostEstimator(schema: GraphQLSchema, pages: Pages, items = { loaded: 0 }): ComplexityEstimator {
  return ({ type, field, args, childComplexity }) => {
    if (field.name.startsWith('__') || type.name.startsWith('__')) return introspectionCost(schema, type.name, field.name, childComplexity);
    const { cost, listSize } = costOf(field);
    const weight = cost?.weight ?? 0;
    const loaded = loadedItems(field, args, pages.maxIds);
    if (loaded !== undefined) {
      items.loaded += loaded;
      return weight + loaded * (weight + childComplexity);
    }
    return weight + pageSize(listSize, args, pages) * childComplexity;
  };
}

function loadedItems(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>, maxIds: number): number | undefined {
  const list = LOADED_LISTS[field.name] === undefined ? undefined : args[LOADED_LISTS[field.name]];
  if (!Array.isArray(list)) return undefined;
  if (list.length > maxIds) throw new TooManyIds(`${field.name}(${LOADED_LISTS[field.name]}:)`, list.length);
  return list.length;
}

/**
 * The items a sized field multiplies its selection by: its slicing argument (`first`), absent the
 * gateway's default page size (the SDL's `assumedSize` is the setting's default), clamped to
 * 0..`maxPageSize` as the field itself enforces; a list the parent's JSON carries, its
 * `assumedSize`; 1 for a field with no `@listSize`.
 */
function pageSize(listSize: ListSizeDeclaration | undefined, args: Record<string, unknown>, pages: Pages): number {
  if (!listSize?.slicingArguments) return listSize?.assumedSize ?? 1;
  const given = listSize.slicingArguments.map((name) => args[name]).find((v) => typeof v === 'number');
  return Math.min(Math.max(given ?? pages.defaultPageSize, 0), pages.maxPageSize);
}
