/**
 * Bytes of request bodies the gateway holds at once, across requests: a request takes its
 * `Content-Length` (a chunked one, the body bound; none for a body of 4 KiB or less) from its
 * arrival until its response is done, and one the budget refuses (src/rest/bytesInFlight.ts: past
 * the budget, or past its caller's share once half is held) is refused before its body is read:
 * 503 `UPSTREAM_UNAVAILABLE` with `Retry-After: 1` (the connection closed as it is written, its body unread).
 *
 * Why: each body bound holds per request, not for all of them. A body is read whole, then parsed
 * (a 900 KB string variable is a 900 KB string on the heap) and held until the operation's REST
 * calls are back; 300 requests at once with a 900 KB variable each, over a REST API answering in
 * 200 ms, exhausted `npm start`'s heap (128 MiB old space), with a valid token or with a fresh junk
 * one (allowed `--max-body-bytes` until the REST API answered for it). By default the budget is a
 * sixteenth of V8's heap limit (about 9.5 MiB under `npm start`): some ten bodies of 1 MB at once,
 * and thousands of the usual few-KB ones. Each admitted body is on the heap several times over
 * (its bytes, its text, its parsed variables, the response cache's key): at an eighth, 21 bodies of
 * 900 KB at once took `npm start`'s RSS to 281–292 MiB; at a sixteenth, 10 took it to 230.
 *
 * A body's parse can hold far more than its bytes: JSON of small values is up to twenty times its
 * text on the heap (a list of `{}`, as for the REST answers of src/rest/jsonShape.ts), and twelve
 * bodies of 880 KB of `{}` (in the variables or beside them) at once ran `npm start`'s heap out,
 * within the budget's ten bodies. So a body large enough to be looked at before its parse
 * (useMaxVariablesDepth.ts) then holds what its parse builds (`holdParsedBody`), if that is more.
 *
 * A small body (SMALL_BODY_BYTES or less) and a GET's query string take nothing on arrival (no
 * bookkeeping for most requests), but theirs may build twenty to forty times their text too: 1,000
 * connections of one token, each sending 4 KiB of `{}` beside an operation waiting for its REST
 * call, ran `npm start`'s heap out in seconds. So one whose parse builds more than
 * SMALL_PARSE_BYTES holds it as a counted body does (`holdParse`); what stays uncounted is at most
 * SMALL_PARSE_BYTES a connection (16 MiB for `--max-connections`' 1,000).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getHeapStatistics } from 'node:v8';
import { GraphQLError } from 'graphql';
import { BytesInFlight, jsonShape, parsedBytes } from '../../rest/index.js';
import { errorBody } from './errorResponse.js';
import { limitError } from './limitError.js';
import { closeWhenAnswered, heldBodyBytes, whenResponseDone } from './httpBounds.js';

export function defaultRequestBytesInFlight(maxBodyBytes: number): number {
  return Math.max(maxBodyBytes, Math.floor(getHeapStatistics().heap_size_limit / 16));
}

const BUSY = 'The gateway is reading too many large requests at once; try again shortly.';

/** The budget's refusal as an HTTP answer (503, `Retry-After: 1`): its body and headers, for the server and for graphql-sse. */
export const BODIES_REFUSAL = {
  body: errorBody({ message: BUSY, extensions: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 } }),
  headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' },
} as const;

/** The most a small body's or a query string's parse builds before the budget counts it. */
export const SMALL_PARSE_BYTES = 16 * 1024;

/**
 * What one character of JSON text may build at most once parsed (jsonShape.ts: `"a":0,` is six
 * characters and a member of a large object, 256 bytes): a text of at most SMALL_PARSE_BYTES / 48
 * characters is not looked at.
 */
const MOST_PARSED_PER_CHAR = 48;

/**
 * The most one request's parse may build, even alone (the budget admits one request alone whatever
 * it holds): half of V8's heap limit (about 76 MiB under `npm start`). A body within the default
 * `--max-body-bytes` builds at most some 48 MB; under `--max-body-bytes 100000000` (the setting's
 * maximum), one token's single 8 MB body of `{}` in its variables, alone, built some 180 MB and
 * ran `npm start`'s heap out. Past it, the body is refused (`parseTooLarge`), never parsed.
 */
export const LARGEST_PARSE_BYTES = Math.floor(getHeapStatistics().heap_size_limit / 2);

/** What an admitted request holds of the budget, and for which caller (see `holdParsedBody`). */
const held = new WeakMap<IncomingMessage, { bodies: BytesInFlight; caller: string; bytes: number }>();

/** An admitted request that took nothing (a small body, a GET): how it takes what its parse builds, if it comes to that. */
const uncounted = new WeakMap<IncomingMessage, (bytes: number) => boolean>();

/** Whether the budget accounts for `req`'s body (every request the server admitted): the body whose parse it may hold. */
export function countedBody(req: IncomingMessage | undefined): boolean {
  return req !== undefined && (held.has(req) || uncounted.has(req));
}

/**
 * Takes, for the admitted request `req`, `bytes` of the budget in all (what its parse builds) if
 * that is more than it holds, until its response is done; false (nothing more taken) when the
 * budget refuses them, as it would refuse a body of that size, or when they pass
 * LARGEST_PARSE_BYTES, alone too. A request that took nothing holds no more (a small body, or one
 * outside any budget: tests).
 */
export function holdParsedBody(req: IncomingMessage | undefined, bytes: number): boolean {
  if (!req) return true;
  if (bytes > LARGEST_PARSE_BYTES) return false;
  const hold = held.get(req);
  if (!hold) {
    const take = uncounted.get(req);
    if (!take || bytes <= SMALL_PARSE_BYTES) return true;
    uncounted.delete(req);
    return take(bytes);
  }
  if (bytes <= hold.bytes) return true;
  const more = bytes - hold.bytes;
  if (!hold.bodies.take(hold.caller, more, hold.bytes)) return false;
  hold.bytes = bytes;
  return true;
}

/**
 * Takes `bytes` more of the budget for `req`, beyond what it holds (a document it parsed, beside its
 * body's parse), as `holdParsedBody` takes them; false when refused.
 */
export function holdMore(req: IncomingMessage | undefined, bytes: number): boolean {
  return holdParsedBody(req, ((req && held.get(req)?.bytes) ?? 0) + bytes);
}

/**
 * `holdParsedBody` for a text of `chars` characters whose parse builds `bytes()`: a short text (all
 * a usual operation sends) is not looked at.
 */
export function holdParse(req: IncomingMessage | undefined, chars: number, bytes: () => number): boolean {
  return chars * MOST_PARSED_PER_CHAR <= SMALL_PARSE_BYTES || holdParsedBody(req, bytes());
}

/** `holdParse` for a JSON text, counted whole (a small body; a graphql-sse POST, which graphql-sse parses itself). */
export function holdParsedText(req: IncomingMessage | undefined, text: string): boolean {
  return holdParse(req, text.length, () => parsedBytes(text, jsonShape(text, text.length)));
}

/** The refusal of a body the budget cannot hold now (503 `Retry-After: 1`), as an error a GraphQL server answers. */
export const PARSED_BODY_REFUSAL = {
  message: BUSY,
  extensions: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1, http: { status: 503, headers: { 'Retry-After': '1' } } },
} as const;

/** PARSED_BODY_REFUSAL as the GraphQL error a plugin throws or answers. */
export const parsedBodyRefused = () => new GraphQLError(PARSED_BODY_REFUSAL.message, { extensions: PARSED_BODY_REFUSAL.extensions });

/**
 * The refusal of a body whose parse would build more than LARGEST_PARSE_BYTES, which no wait makes
 * room for: 413 BAD_USER_INPUT (`maxBodyBytes`), as a body over the bound is refused.
 */
export const parseTooLarge = (bytes: number) => {
  const error = limitError(
    'maxBodyBytes',
    LARGEST_PARSE_BYTES,
    `Request body would take about ${bytes} bytes once parsed, more than the gateway holds for one request (${LARGEST_PARSE_BYTES}); send fewer or larger values.`,
    bytes,
  );
  error.extensions.http = { status: 413 };
  return error;
};

/**
 * `admit(req, res, caller)` takes the request's bytes of the budget, for the caller's budget key
 * (asked only for a counted body), until its response is done; false (the request answered 503 and
 * its connection closed) when the budget refuses them.
 */
export function requestBytesInFlight(budget: number, maxBodyBytes: number) {
  const bodies = new BytesInFlight(budget);
  /** Takes `bytes` for `key` until the response is done (then gives back what the request holds, its parse included); false when refused. */
  const take = (req: IncomingMessage, res: ServerResponse, key: string, bytes: number): boolean => {
    if (!bodies.take(key, bytes)) return false;
    const hold = { bodies, caller: key, bytes };
    held.set(req, hold);
    whenResponseDone(req, res, () => {
      held.delete(req);
      bodies.give(key, hold.bytes);
    });
    return true;
  };
  return {
    admit(req: IncomingMessage, res: ServerResponse, caller: () => string): boolean {
      const bytes = heldBodyBytes(req, maxBodyBytes);
      // A small body is not counted (0) unless its parse builds much more (`holdParse`).
      if (!bytes) {
        uncounted.set(req, (parsed) => take(req, res, caller(), parsed));
        return true;
      }
      if (take(req, res, caller(), bytes)) return true;
      res.writeHead(503, { ...BODIES_REFUSAL.headers, 'content-length': Buffer.byteLength(BODIES_REFUSAL.body), connection: 'close' });
      res.end(BODIES_REFUSAL.body);
      closeWhenAnswered(req, res);
      return false;
    },
  };
}
