/**
 * Who is calling, as the response cache (session) and the per-caller rate limit key it: a SHA-256
 * of the request's Authorization header, never the token itself. Callers without a token share
 * one `anonymous` key (they all see what the upstream shows to anonymous callers).
 */
import { createHash } from 'node:crypto';

export const ANONYMOUS = 'anonymous';

export function callerHash(request: Request): string {
  const authorization = request.headers.get('authorization');
  if (!authorization) return ANONYMOUS;
  return createHash('sha256').update(`docs-graph caller\0${authorization}`).digest('base64url');
}
