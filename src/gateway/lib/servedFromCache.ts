/**
 * The mark of a result served without executing it (envelop's response cache sets it on a hit;
 * the kept introspection answers carry it too, useIntrospectionCache.ts): persisted operations
 * register a document waiting for it, the caller's byte budget counts a large one.
 */
export const SERVED_FROM_CACHE = Symbol.for('servedFromResponseCache');

export function servedFromCache(result: unknown): boolean {
  return typeof result === 'object' && result !== null && Boolean((result as Record<symbol, unknown>)[SERVED_FROM_CACHE]);
}
