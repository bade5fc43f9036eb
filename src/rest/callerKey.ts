/**
 * The one key of a caller across the gateway (REST single-flight and concurrency bounds, the
 * response-cache session, the rate limit, graphql-sse reservations): a SHA-256 of its
 * Authorization header, never the token itself. Callers without a token share `anonymous`.
 */
import { createHash } from 'node:crypto';

export const ANONYMOUS = 'anonymous';

export function callerKey(authorization: string | null | undefined): string {
  return authorization ? createHash('sha256').update(authorization).digest('base64url') : ANONYMOUS;
}
