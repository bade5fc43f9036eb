/**
 * Who a request's caller is, worked out once per request (plugins/useCallerIdentity.ts) however
 * many plugins ask (src/rest's callerKey.ts says how):
 *
 * - `callerHash`: the caller's key (a hash of its token, whatever the spelling of `Bearer` and
 *   the whitespace): the response-cache session, the owner of a graphql-sse reservation, the REST
 *   client's single-flight;
 * - `callerIdentity(request).budget`: whom its operations count against in the rate limits (its own
 *   key, or its client address's without a token or with a token the REST API rejected; a token
 *   not proven yet also counts against its address there: useCallerRateLimit.ts);
 * - `callerBudget`: whom the work the gateway holds for it counts against (REST concurrency slots
 *   and queues, circuits, bytes of REST answers, graphql-sse reservations and queues): its own key
 *   once the REST API has accepted its token (a 2xx), its client address's until then. A fresh
 *   made-up token per operation had slots and a queue of its own: four operations of 100 calls
 *   ran in 1.0 s where the address's share took 3.5 s, and another caller's read waited 110 ms.
 */
import { ANONYMOUS, addressKey, callerKey, provenBudget, type CallerIdentity } from '../../rest/index.js';

const identities = new WeakMap<Request, CallerIdentity>();

export function setCallerIdentity(request: Request, identity: CallerIdentity): void {
  identities.set(request, identity);
}

/**
 * `next`, a request made from `request` (its body wrapped), is the same caller's. Without it, a
 * chunked body bounded after the identity was set (useAnonymousBodyLimit) made a request without
 * one: every anonymous chunked request, from any address, counted against one unknown address.
 */
export function sameCaller(request: Request, next: Request): void {
  const identity = identities.get(request);
  if (identity !== undefined) identities.set(next, identity);
}

/** The request's identity; for a request the identity plugin did not see, one from its header alone. */
export function callerIdentity(request: Request): CallerIdentity {
  let identity = identities.get(request);
  if (identity === undefined) {
    const key = callerKey(request.headers.get('authorization'));
    const address = addressKey(undefined);
    identities.set(request, (identity = { key, budget: key === ANONYMOUS ? address : key, address, proven: false }));
  }
  return identity;
}

export function callerHash(request: Request): string {
  return callerIdentity(request).key;
}

export function callerBudget(request: Request): string {
  return provenBudget(callerIdentity(request));
}
