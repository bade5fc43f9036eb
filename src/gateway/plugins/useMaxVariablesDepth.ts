/**
 * Refuses variables nested deeper than MAX_VARIABLES_DEPTH (arrays and objects), before anything
 * walks them: coercion, pricing and cache keys recurse through variables, and 200,000 levels (a
 * 1 MB body) overflowed the stack (an unexpected UPSTREAM_ERROR). Checked on the text of a JSON
 * request body before it is parsed (JSON.parse of a 200,000-deep body took the event loop 40–60 ms),
 * on the request's parameters (GET, and what the text check cannot see) and again where operations
 * start (graphql-sse), by an explicit stack. BAD_USER_INPUT `maxVariablesDepth: …`.
 *
 * The same walk refuses a string (or an object key) holding half of a UTF-16 surrogate pair alone,
 * which JSON may escape (`"\ud800"`) but no text can hold: graphql-js refuses it written in a
 * document, and the REST body rules where they know a string, but a JSON value's strings and keys
 * (an integration setting's `default`, a map's keys) reached the REST API as they were, and were
 * stored. BAD_USER_INPUT, before any REST call.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LONE_SURROGATE } from '../../api/validate.js';
import type { IncomingMessage } from 'node:http';
import { jsonShape, parsedBytes } from '../../rest/index.js';
import { limitError } from '../lib/limitError.js';
import {
  holdParse,
  holdParsedBody,
  holdParsedText,
  LARGEST_PARSE_BYTES,
  parsedBodyRefused,
  parseTooLarge,
} from '../lib/requestBytesInFlight.js';

/**
 * Deeper than any input of the schema needs; far from the stack's limit. The REST API refuses a
 * body nested more than 64 levels (the embedded one's bound, src/upstream/server.ts), and a
 * mutation's input is its body one level down the variables (the variables object 0, the input,
 * the body's root, 1): so a JSON value (an integration setting's `default`) nested 60 to 95 deep
 * passed 100 here and cost a REST call the REST API refused. The same bound refuses it before.
 */
export const MAX_VARIABLES_DEPTH = 64;

/**
 * What is wrong with `value`, walked without recursion: `depth` when it nests arrays/objects more
 * than `max` deep below itself, `text` when a string or key in it is not well-formed UTF-16.
 */
export function variablesProblem(value: unknown, max: number): 'depth' | 'text' | undefined {
  // Strings are looked at where they are met, objects and arrays pushed: no tuple per value.
  const problem = (child: unknown, depth: number) => {
    if (typeof child === 'string') return LONE_SURROGATE.test(child);
    if (child !== null && typeof child === 'object') stack.push([child, depth]);
    return false;
  };
  const stack: Array<[unknown, number]> = [];
  if (problem(value, 0)) return 'text';
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (depth > max) return 'depth';
    if (Array.isArray(item)) {
      for (const child of item) if (problem(child, depth + 1)) return 'text';
    } else
      for (const [key, child] of Object.entries(item as object)) if (LONE_SURROGATE.test(key) || problem(child, depth + 1)) return 'text';
  }
  return undefined;
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
 * Bodies up to this many bytes may be parsed without the depth check (the small-POST path,
 * lib/plainPost.ts): 4 KiB nests at most 2,000 levels, which JSON.parse reads in about 0.13 ms
 * (measured), the cost of a small request; too deep, they are refused at their parameters.
 */
export const TEXT_CHECK_MIN_BYTES = 4 * 1024;

const tooDeep = () =>
  limitError('maxVariablesDepth', MAX_VARIABLES_DEPTH, `Variables may nest at most ${MAX_VARIABLES_DEPTH} lists or objects deep.`);
const notText = () =>
  new GraphQLError('A variable is not valid Unicode text: a string or key holds half of a surrogate pair.', {
    extensions: { code: 'BAD_USER_INPUT' },
  });

/**
 * A request body's text, its bytes decoded as UTF-8 (JSON's encoding, RFC 8259 8.1), refused
 * (400 BAD_USER_INPUT) when they are not: `Request.text()` decodes each byte that is not UTF-8 as
 * U+FFFD, so a variable sent as `bad\xC3(x` was written by a mutation as `bad\uFFFD(x`, the
 * caller's text changed without a word. A BOM stays in the text (JSON.parse refuses it, as before).
 */
export async function bodyText(request: Request): Promise<string> {
  const bytes = await request.arrayBuffer();
  try {
    return UTF8.decode(bytes);
  } catch {
    throw notUtf8('request body');
  }
}

const notUtf8 = (what: string) =>
  new GraphQLError(`The ${what} is not valid UTF-8 text.`, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });

/**
 * Whether a query string's percent-escapes spell UTF-8: URLSearchParams reads each byte that does
 * not as U+FFFD, as `Request.text()` does a body's (a search argument sent as `%C3(` was searched
 * as `\uFFFD(`). decodeURIComponent refuses them, and a `%` without two hex digits, which
 * URLSearchParams keeps as it is: written `%25` first.
 */
function utf8Escapes(query: string): boolean {
  if (!HIGH_ESCAPE.test(query)) return true;
  try {
    decodeURIComponent(query.replace(LONE_PERCENT, '%25'));
    return true;
  } catch {
    return false;
  }
}
const HIGH_ESCAPE = /%[89a-fA-F]/;
const LONE_PERCENT = /%(?![0-9a-fA-F]{2})/g;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A JSON text with no `\uD800`–`\uDFFF` escape holds no half of a surrogate pair (its UTF-8 decoding never makes one). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** A form-encoded body (Yoga reads it with `text()`), and its parameters that Yoga parses as JSON. */
const FORM_TYPE = /^\s*application\/x-www-form-urlencoded\s*(;|$)/i;
const FORM_JSON_PARAMS = ['variables', 'extensions'];

export function useMaxVariablesDepth(): Plugin {
  const checked = new WeakSet<object>();
  const check = (variables: unknown): GraphQLError | undefined => {
    if (!variables || typeof variables !== 'object' || checked.has(variables)) return undefined;
    const problem = variablesProblem(variables, MAX_VARIABLES_DEPTH);
    if (problem) return problem === 'depth' ? tooDeep() : notText();
    checked.add(variables);
    return undefined;
  };
  return {
    // Yoga's JSON parser calls `request.json()`: it gets one that checks the text first (its
    // depth; what its parse builds, which the bodies budget holds: lib/requestBytesInFlight.ts).
    // A GET's query string holds what its parameters' parse builds too.
    onRequestParse({ request, requestParser, setRequestParser, serverContext }) {
      if (!requestParser) return;
      const incoming = (serverContext as { req?: IncomingMessage } | undefined)?.req;
      if (request.method === 'GET')
        setRequestParser((req) => {
          if (!holdParsedQuery(req.url, incoming)) throw parsedBodyRefused();
          return requestParser(req);
        });
      else if (request.method === 'POST') setRequestParser((req) => requestParser(withCheckedJson(req, checked, incoming)));
    },
    onParams({ params }) {
      const error = check(params.variables);
      if (error) throw error;
    },
    onExecute({ args, setResultAndStopExecution }) {
      const error = check(args.variableValues);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const error = check(args.variableValues);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}

/**
 * The text of a JSON body that something other than Yoga parses (graphql-sse reads and parses its
 * own POSTs), once the bodies budget holds what its parse builds (lib/requestBytesInFlight.ts);
 * undefined when the budget cannot hold it now. Without it, 40 graphql-sse subscriptions with 880
 * KB of `{}` in their variables each held some 17 MB parsed, counted as their bytes.
 */
export async function heldBodyText(request: Request, incoming: IncomingMessage | undefined): Promise<string | undefined> {
  const text = await bodyText(request);
  return holdParsedText(incoming, text) ? text : undefined;
}

/**
 * What parsing the JSON parameters (`variables`, `extensions`) of a query string or form builds,
 * counted whole (they are parsed before their depth is checked, at their parameters).
 */
function jsonParamsBytes(params: URLSearchParams): number {
  let bytes = 0;
  for (const name of FORM_JSON_PARAMS) {
    const value = params.get(name);
    if (value) bytes += parsedBytes(value, jsonShape(value, value.length));
  }
  return bytes;
}

/**
 * Holds what a GET's (or graphql-sse GET's) JSON parameters' parse builds, as a body's
 * (`holdParsedText`: a short query string is not looked at); false when the budget cannot now.
 * A query string whose escapes are not UTF-8 is refused (400 BAD_USER_INPUT: utf8Escapes).
 */
export function holdParsedQuery(url: string, incoming: IncomingMessage | undefined): boolean {
  const search = url.indexOf('?');
  if (search === -1) return true;
  const query = url.slice(search + 1);
  if (!utf8Escapes(query)) throw notUtf8('query string');
  return holdParse(incoming, query.length, () => jsonParamsBytes(new URLSearchParams(query)));
}

/**
 * The request, whose `json()` refuses a body nested too deep before parsing it, and one whose
 * parse the bodies budget cannot hold now (`incoming`'s share, lib/requestBytesInFlight.ts); the
 * variables and extensions of a body that passed are marked `checked` (not walked again: 60,000
 * keys took 4 ms), unless its text escapes a surrogate (then the walk looks for a half pair). Its
 * `text()`, which Yoga reads a form-encoded body with, refuses one whose JSON parameters' parse the
 * budget cannot hold: ten bodies of 960 KB with 109,000 `{}` in their variables were read at once.
 */
function withCheckedJson(request: Request, checked: WeakSet<object>, incoming: IncomingMessage | undefined): Request {
  const holdParsed = (bytes: number) => {
    if (!holdParsedBody(incoming, bytes)) throw bytes > LARGEST_PARSE_BYTES ? parseTooLarge(bytes) : parsedBodyRefused();
  };
  const text = async () => {
    const body = await bodyText(request);
    holdParsed(body.length + jsonParamsBytes(new URLSearchParams(body)));
    return body;
  };
  const json = async () => {
    const text = await bodyText(request);
    const shape = jsonShape(text, MAX_BODY_DEPTH);
    if (shape.tooDeep) throw tooDeep();
    holdParsed(parsedBytes(text, shape));
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === 'object' && !Array.isArray(body) && !SURROGATE_ESCAPE.test(text))
      for (const part of [(body as Record<string, unknown>).variables, (body as Record<string, unknown>).extensions])
        if (part && typeof part === 'object') checked.add(part);
    return body;
  };
  return new Proxy(request, {
    get(target, property) {
      if (property === 'json') return json;
      if (property === 'text' && FORM_TYPE.test(target.headers.get('content-type') ?? '')) return text;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
