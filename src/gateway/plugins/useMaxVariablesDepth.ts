/**
 * Refuses variables nested deeper than MAX_VARIABLES_DEPTH (arrays and objects), before anything
 * walks them: coercion, pricing and cache keys recurse through variables, and 200,000 levels (a
 * 1 MB body) overflowed the stack (an unexpected UPSTREAM_ERROR). Checked on the text of a JSON
 * request body before it is parsed (JSON.parse of a 200,000-deep body took the event loop 40–60 ms),
 * on the request's parameters (GET, and what the text check cannot see) and again where operations
 * start (graphql-sse), by an explicit stack. BAD_USER_INPUT `maxVariablesDepth: …`.
 */
import type { Plugin } from 'graphql-yoga';
import { jsonShape } from '../../rest/index.js';
import { limitError } from '../lib/limitError.js';

/**
 * Deeper than any input of the schema needs; far from the stack's limit. The REST API refuses a
 * body nested more than 64 levels (the embedded one's bound, src/upstream/server.ts), and a
 * mutation's input is its body one level down the variables (the variables object 0, the input,
 * the body's root, 1): so a JSON value (an integration setting's `default`) nested 60 to 95 deep
 * passed 100 here and cost a REST call the REST API refused. The same bound refuses it before.
 */
export const MAX_VARIABLES_DEPTH = 64;

/** Whether `value` nests arrays/objects more than `max` deep below itself (without recursion). */
export function deeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Whether JSON `text` nests arrays and objects more than `max` deep, read as text (strings
 * skipped: the REST client's scan of large answers, src/rest/jsonShape.ts), so a too-deep body is
 * refused before JSON.parse spends its time on it. Invalid JSON is left to the parser.
 */
export function jsonDeeperThan(text: string, max: number): boolean {
  return jsonShape(text, max).tooDeep;
}

/**
 * A JSON body's variables sit two levels down (`{"variables": {…}}`), so a body deeper than
 * MAX_VARIABLES_DEPTH + 2 has variables (or extensions) deeper than the limit.
 */
const MAX_BODY_DEPTH = MAX_VARIABLES_DEPTH + 2;

/**
 * Bodies up to this many bytes are parsed without the text check: 4 KiB nests at most 2,000
 * levels, which JSON.parse reads in about 0.13 ms (measured), the cost of a small request.
 */
export const TEXT_CHECK_MIN_BYTES = 4 * 1024;

const tooDeep = () =>
  limitError('maxVariablesDepth', MAX_VARIABLES_DEPTH, `Variables may nest at most ${MAX_VARIABLES_DEPTH} lists or objects deep.`);

export function useMaxVariablesDepth(): Plugin {
  const checked = new WeakSet<object>();
  const check = (variables: unknown): boolean => {
    if (!variables || typeof variables !== 'object' || checked.has(variables)) return true;
    if (deeperThan(variables, MAX_VARIABLES_DEPTH)) return false;
    checked.add(variables);
    return true;
  };
  return {
    // Yoga's JSON parser calls `request.json()`: for a body large enough that parsing it costs
    // something (or of unknown length), it gets one that checks the text first. A smaller one
    // parses cheaply however deep it nests, and is refused at its parameters.
    onRequestParse({ request, requestParser, setRequestParser }) {
      if (request.method !== 'POST' || !requestParser) return;
      const length = request.headers.get('content-length');
      if (length !== null && Number(length) <= TEXT_CHECK_MIN_BYTES) return;
      setRequestParser((req) => requestParser(withCheckedJson(req, checked)));
    },
    onParams({ params }) {
      if (!check(params.variables)) throw tooDeep();
    },
    onExecute({ args, setResultAndStopExecution }) {
      if (!check(args.variableValues)) setResultAndStopExecution({ errors: [tooDeep()] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      if (!check(args.variableValues)) setResultAndStopExecution({ errors: [tooDeep()] });
    },
  };
}

/**
 * The request, whose `json()` refuses a body nested too deep before parsing it; the variables and
 * extensions of a body that passed are marked `checked` (not walked again: 60,000 keys took 4 ms).
 */
function withCheckedJson(request: Request, checked: WeakSet<object>): Request {
  const json = async () => {
    const text = await request.text();
    if (jsonDeeperThan(text, MAX_BODY_DEPTH)) throw tooDeep();
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === 'object' && !Array.isArray(body))
      for (const part of [(body as Record<string, unknown>).variables, (body as Record<string, unknown>).extensions])
        if (part && typeof part === 'object') checked.add(part);
    return body;
  };
  return new Proxy(request, {
    get(target, property) {
      if (property === 'json') return json;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
