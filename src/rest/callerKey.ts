/**
 * The one key of a caller across the gateway (REST single-flight and concurrency bounds, the
 * response-cache session, the rate limit, graphql-sse reservations): a SHA-256 of its
 * Authorization header, never the token itself. Callers without a token share `anonymous`.
 * The keys of the last few headers seen are kept (a request needs its caller's key two or three
 * times, and most traffic comes from few callers at a time), so a hash is not recomputed each time.
 */
import { createHash } from 'node:crypto';

export const ANONYMOUS = 'anonymous';

/** Headers whose keys are kept, most recent last; the oldest goes first. */
const KEPT = 64;
const keys = new Map<string, string>();

export function callerKey(authorization: string | null | undefined): string {
  if (!authorization) return ANONYMOUS;
  let key = keys.get(authorization);
  if (key === undefined) {
    key = createHash('sha256').update(authorization).digest('base64url');
    if (keys.size >= KEPT) keys.delete(keys.keys().next().value!);
    keys.set(authorization, key);
  }
  return key;
}
