/**
 * The per-request read cache: one promise per REST path (and query), so a request never makes the
 * same REST call twice (a failed read stays failed for the request, as DataLoader's cache keeps a
 * rejected load), objects that came in a list are never fetched again (lists prime it), and
 * independent calls run concurrently, each settling as soon as its answer is back. Created per
 * request, never shared between callers. Writes go through `write`; what a write makes stale is
 * forgotten by the caller (src/schema/lib/resource.ts `writeResource`, after the resource table).
 *
 * A map of promises rather than DataLoader: REST has no batch endpoint, so a DataLoader here would
 * batch nothing (`batch: false`) and only hold each GET for a tick after its resolver asked for it
 * (its dispatch waits for the promise jobs then a `process.nextTick`), with a batch object, a
 * `Promise.all` and a callback per key. Here the GET leaves as the resolver asks for it.
 */
import type { Query as QueryParams, RestCaller } from '../rest/index.js';

export type { QueryParams };
export type WriteMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `/spaces/a` + `{format: 'markdown', page: undefined}` → `/spaces/a?format=markdown` (keys sorted). */
export function cacheKey(path: string, query?: QueryParams): string {
  if (!query) return path;
  const entries = Object.entries(query)
    .filter(([, v]) => v !== undefined && v !== null && !Array.isArray(v))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (!entries.length) return path;
  return `${path}?${entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')}`;
}

export class RestLoader {
  /** Reads asked for in this request, by cache key. */
  private readonly loads = new Map<string, Promise<unknown>>();
  /** Objects that came in a list (or a write's answer), by cache key, until a load asks for one. */
  private readonly primed = new Map<string, unknown>();

  constructor(readonly rest: RestCaller) {}

  /** GET, at most once per path and query in this request. */
  load<T = unknown>(path: string, query?: QueryParams): Promise<T> {
    const key = cacheKey(path, query);
    let loaded = this.loads.get(key);
    if (loaded === undefined) {
      loaded = this.primed.has(key) ? Promise.resolve(this.primed.get(key)) : this.rest.get(path, query);
      this.loads.set(key, loaded);
    }
    return loaded as Promise<T>;
  }

  /** Records an object that came in a list, so a later `load` of its path costs no call. */
  prime(path: string, value: unknown, query?: QueryParams): void {
    const key = cacheKey(path, query);
    this.loads.delete(key);
    this.primed.set(key, value);
  }

  /** A write (never retried, never cached); afterwards its own path is forgotten (what else it makes
   * stale is the resource table's to say: src/schema/lib/resource.ts `writeResource`). */
  async write<T = unknown>(method: WriteMethod, path: string, body?: unknown): Promise<T> {
    try {
      const { rest } = this;
      switch (method) {
        case 'POST':
          return await rest.post<T>(path, body);
        case 'PUT':
          return await rest.put<T>(path, body);
        case 'PATCH':
          return await rest.patch<T>(path, body);
        default:
          return await rest.delete<T>(path, body);
      }
    } finally {
      this.forget([path]);
    }
  }

  /** Forgets cached reads whose path starts with one of the prefixes (all reads when none given);
   * an ANY_SEGMENT of a prefix stands for any one segment (a key the write did not name). */
  forget(prefixes?: string[]): void {
    if (!prefixes) {
      this.loads.clear();
      this.primed.clear();
      return;
    }
    const matches = prefixes.map((p) => new RegExp(`^${p.split(ANY_SEGMENT).map(escapeRegExp).join('[^/?]+')}(?:$|[/?])`));
    const stale = (key: string) => matches.some((m) => m.test(key));
    for (const key of this.loads.keys()) if (stale(key)) this.loads.delete(key);
    for (const key of this.primed.keys()) if (stale(key)) this.primed.delete(key);
  }
}

/** A path segment no filled path holds (values are URI-encoded: `{` never stays as is). */
export const ANY_SEGMENT = '{}';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
