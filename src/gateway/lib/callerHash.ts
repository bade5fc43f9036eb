/**
 * The caller of a request as the response cache (session), the per-caller rate limit and
 * graphql-sse's reservations key it: src/rest's `callerKey` of its Authorization header, worked out
 * once per request however many plugins ask.
 */
import { callerKey } from '../../rest/index.js';

const keys = new WeakMap<Request, string>();

export function callerHash(request: Request): string {
  let key = keys.get(request);
  if (key === undefined) keys.set(request, (key = callerKey(request.headers.get('authorization'))));
  return key;
}
