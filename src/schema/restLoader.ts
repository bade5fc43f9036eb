/**
 * The per-request read cache: one DataLoader keyed by REST path (and query), so a request never
 * makes the same REST call twice (a failed read stays failed for the request: DataLoader keeps the
 * rejected load), objects that came in a list are never fetched again (lists prime it), and
 * independent calls run concurrently, each settling as soon as its answer is back. Created per
 * request, never shared between callers. Writes go through `write`; what a write makes stale is
 * forgotten by the caller (src/schema/lib/resource.ts `writeResource`, after the resource table).
 *
 * REST has no batch endpoint, so each key is its own batch (`batch: false`: a batch would hold a
 * fast call's answer until the slowest call of the same tick is back), dispatched one microtask
 * after its resolver asked for it (DataLoader's default waits for the promise jobs and then a
 * `process.nextTick`, a delay on every level of a nested query).
 */
import DataLoader from 'dataloader';
import { uriComponent, type Query as QueryParams, type RestCaller } from '../rest/index.js';

export type { QueryParams };
export type WriteMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `/spaces/a` + `{format: 'markdown', page: undefined}` → `/spaces/a?format=markdown` (keys sorted). */
export function cacheKey(path: string, query?: QueryParams): string {
  if (!query) return path;
  const entries = Object.entries(query)
    .filter(([, v]) => v !== undefined && v !== null && !Array.isArray(v))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (!entries.length) return path;
  return `${path}?${entries.map(([k, v]) => `${uriComponent(k)}=${uriComponent(String(v))}`).join('&')}`;
}

export class RestLoader {
  private readonly loader: DataLoader<string, unknown>;
  /** The path and query of each key asked for or primed in this request. */
  private readonly queries = new Map<string, { path: string; query?: QueryParams }>();
  /** What this request made of an answer, by what it made (`madeOf`). */
  private readonly made = new WeakMap<object, Map<string, unknown>>();

  constructor(readonly rest: RestCaller) {
    this.loader = new DataLoader(
      ([key]) => {
        const { path, query } = this.queries.get(key) ?? { path: key };
        return this.rest.get(path, query).then(
          (value) => [value],
          (error: unknown) => [error instanceof Error ? error : new Error(String(error))],
        );
      },
      { batch: false, batchScheduleFn: queueMicrotask },
    );
  }

  /** GET, at most once per path and query in this request. */
  load<T = unknown>(path: string, query?: QueryParams): Promise<T> {
    const key = cacheKey(path, query);
    if (!this.queries.has(key)) this.queries.set(key, { path, query });
    return this.loader.load(key) as Promise<T>;
  }

  /** Records an object that came in a list, so a later `load` of its path costs no call. */
  prime(path: string, value: unknown, query?: QueryParams): void {
    const key = cacheKey(path, query);
    this.queries.set(key, { path, query });
    this.loader.clear(key).prime(key, value);
  }

  /**
   * What `make` makes of `answer` under `key`, made once in this request: a connection under a
   * repeated parent reads one REST answer for every occurrence (`organization { spaces(first: 100)
   * { nodes { organization { spaces(first: 100) … } } } } }`: one answer, 100 pages), and each
   * occurrence mapped and primed the same items again (10,000 objects, primes and cache keys where
   * 100 do). An answer read again (after a write forgot it) is another object, made anew.
   */
  madeOf<T>(answer: object, key: string, make: () => T): T {
    let byKey = this.made.get(answer);
    if (!byKey) this.made.set(answer, (byKey = new Map()));
    if (byKey.has(key)) return byKey.get(key) as T;
    const value = make();
    byKey.set(key, value);
    return value;
  }

  /** A write (never retried, never cached); afterwards its own path is forgotten (what else it makes
   * stale is the resource table's to say: src/schema/lib/resource.ts `writeResource`). */
  async write<T = unknown>(method: WriteMethod, path: string, body?: unknown, query?: QueryParams): Promise<T> {
    try {
      const { rest } = this;
      switch (method) {
        case 'POST':
          return await rest.post<T>(path, body, query);
        case 'PUT':
          return await rest.put<T>(path, body, query);
        case 'PATCH':
          return await rest.patch<T>(path, body, query);
        default:
          return await rest.delete<T>(path, body, query);
      }
    } finally {
      this.forget([path]);
    }
  }

  /** Forgets cached reads whose path starts with one of the prefixes (all reads when none given);
   * an ANY_SEGMENT of a prefix stands for any one segment (a key the write did not name). */
  forget(prefixes?: string[]): void {
    if (!prefixes) return void this.loader.clearAll();
    // Compared segment by segment, not by a regular expression made of them: a prefix holds the
    // caller's ids, and past about 40,000 characters V8 refuses to compile one (a SyntaxError that
    // replaced the write's own error, UPSTREAM_ERROR for an id too long for a URL).
    const split = prefixes.map((p) => p.split('/'));
    for (const [key, { path }] of this.queries) {
      const segments = path.split('/');
      if (split.some((prefix) => startsWith(segments, prefix))) this.loader.clear(key);
    }
  }
}

/** A path segment no filled path holds (values are URI-encoded: `{` never stays as is). */
export const ANY_SEGMENT = '{}';

/** Whether a path's segments begin with a prefix's, ANY_SEGMENT matching any non-empty one. */
const startsWith = (segments: string[], prefix: string[]) =>
  prefix.length <= segments.length && prefix.every((s, i) => (s === ANY_SEGMENT ? segments[i] !== '' : s === segments[i]));
