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
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getHeapStatistics } from 'node:v8';
import { BytesInFlight } from '../../rest/index.js';
import { errorBody } from './errorResponse.js';
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

/** What an admitted request holds of the budget, and for which caller (see `holdParsedBody`). */
const held = new WeakMap<IncomingMessage, { bodies: BytesInFlight; caller: string; bytes: number }>();

/** Whether the budget counts `req`'s body (one over SMALL_BODY_BYTES, or chunked): the body whose parse it may hold. */
export function countedBody(req: IncomingMessage | undefined): boolean {
  return req !== undefined && held.has(req);
}

/**
 * Takes, for the admitted request `req`, `bytes` of the budget in all (what its parse builds) if
 * that is more than it holds, until its response is done; false (nothing more taken) when the
 * budget refuses them, as it would refuse a body of that size. A request that took nothing holds
 * no more (a small body, or one outside any budget: tests).
 */
export function holdParsedBody(req: IncomingMessage | undefined, bytes: number): boolean {
  const hold = req && held.get(req);
  if (!hold || bytes <= hold.bytes) return true;
  const more = bytes - hold.bytes;
  if (!hold.bodies.take(hold.caller, more, hold.bytes)) return false;
  hold.bytes = bytes;
  return true;
}

/** The refusal of a body the budget cannot hold now (503 `Retry-After: 1`), as an error a GraphQL server answers. */
export const PARSED_BODY_REFUSAL = {
  message: BUSY,
  extensions: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1, http: { status: 503, headers: { 'Retry-After': '1' } } },
} as const;

/**
 * `admit(req, res, caller)` takes the request's bytes of the budget, for the caller's budget key
 * (asked only for a counted body), until its response is done; false (the request answered 503 and
 * its connection closed) when the budget refuses them.
 */
export function requestBytesInFlight(budget: number, maxBodyBytes: number) {
  const bodies = new BytesInFlight(budget);
  return {
    admit(req: IncomingMessage, res: ServerResponse, caller: () => string): boolean {
      const bytes = heldBodyBytes(req, maxBodyBytes);
      // A small body is not counted (0): no bookkeeping for most requests.
      if (!bytes) return true;
      const key = caller();
      if (!bodies.take(key, bytes)) {
        res.writeHead(503, { ...BODIES_REFUSAL.headers, 'content-length': Buffer.byteLength(BODIES_REFUSAL.body), connection: 'close' });
        res.end(BODIES_REFUSAL.body);
        closeWhenAnswered(req, res);
        return false;
      }
      const hold = { bodies, caller: key, bytes };
      held.set(req, hold);
      // Gives back what the request holds when its response is done, its parse included.
      whenResponseDone(req, res, () => {
        held.delete(req);
        bodies.give(key, hold.bytes);
      });
      return true;
    },
  };
}
