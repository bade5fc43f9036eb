/**
 * Who a request's caller is, worked out once per request (plugins/useCallerIdentity.ts) however
 * many plugins ask (src/rest's callerKey.ts says how):
 *
 * - `callerHash`: the caller's key (a hash of its token, whatever the spelling of `Bearer` and
 *   the whitespace): the response-cache session, the owner of a graphql-sse reservation, the REST
 *   client's single-flight;
 * - `callerIdentity(request).budget`: whom its work counts against (rate limits, REST concurrency
 *   slots and queues, graphql-sse reservation caps): its own key, or its client address's without
 *   a token or with a token the REST API rejected.
 */
import { ANONYMOUS, addressKey, callerKey, type CallerIdentity } from '../../rest/index.js';

const identities = new WeakMap<Request, CallerIdentity>();

export function setCallerIdentity(request: Request, identity: CallerIdentity): void {
  identities.set(request, identity);
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
  return callerIdentity(request).budget;
}
