import { DEFAULT_PAGE_SIZE, LIST_LIMIT_MAX } from '../api/rules.js';
import type { RequestContext } from './context.js';
import { badRequest } from './errors.js';

export interface ListEnvelope<T> {
  next?: { page: string };
  count: number;
  items: T[];
}

export interface ListSpec<Row, Item> {
  /** SQL after `SELECT * FROM`, e.g. `spaces WHERE organization_id = ?` (must contain a WHERE). */
  from: string;
  params: unknown[];
  /** Sort columns, the last one unique (e.g. `['position', 'id']`); all in one direction. */
  orderBy: string[];
  direction?: 'asc' | 'desc';
  /** Drops rows the caller may not see (applied before counting a page). */
  filter?: (row: Row) => boolean;
  map: (row: Row) => Item;
  /**
   * Items may be far larger than their rows (bodies served as documents): the page counts the
   * JSON of each item instead of its row's bytes.
   */
  itemsOutgrowRows?: boolean;
  /** Extra fields of the envelope (e.g. `stats` of the links list). */
  extra?: Record<string, unknown>;
}

/**
 * Bytes of rows (their text and blob columns) a page holds past its first row: a page of rows that
 * large ends there, shorter than its `limit`, with a `next` token for the rest. 1,000 comments of
 * up to 1 MB each (the body limit) would otherwise make one answer of a gigabyte, built whole in
 * the process that serves it (the gateway's too, under `npm start`).
 */
export const PAGE_MAX_BYTES = 1024 * 1024;

/** Rows read by the first query of a page at most (`limit` and one more to see what follows; later ones: as many as the bytes left allow, at the sizes seen). */
const FIRST_BATCH = 8;

/**
 * Keyset pagination: a page token is the sort key of the last item served, so pages stay stable
 * when rows are inserted. `limit` is 1..1000 (default 50); a page ends early once its rows pass
 * PAGE_MAX_BYTES.
 */
export function paginate<Row extends object, Item>(ctx: RequestContext, spec: ListSpec<Row, Item>): ListEnvelope<Item> {
  const limit = ctx.query.int('limit', 1, LIST_LIMIT_MAX) ?? DEFAULT_PAGE_SIZE;
  const page = ctx.query.string('page');
  const after = page === undefined ? undefined : decodePage(page, spec.orderBy.length);
  const { items, last, hasMore } = fetchItems(ctx, spec, after, limit);
  const envelope: ListEnvelope<Item> = { ...spec.extra, items, count: items.length };
  if (hasMore) envelope.next = { page: encodePage(spec.orderBy.map((c) => (last as Record<string, unknown>)[bare(c)])) };
  return { ...envelope, items, count: items.length };
}

/**
 * Reads rows after the key, in batches, and maps them to items until `limit` rows pass the filter,
 * their bytes (or their items', see ListSpec.itemsOutgrowRows) pass PAGE_MAX_BYTES, or rows run
 * out; `hasMore` when a row that passes the filter is left, `last` the page's last row. A batch
 * reads no more rows than the bytes left allow at the average size read so far (one at least).
 */
function fetchItems<Row extends object, Item>(
  ctx: RequestContext,
  spec: ListSpec<Row, Item>,
  after: unknown[] | undefined,
  limit: number,
): { items: Item[]; last: Row | undefined; hasMore: boolean } {
  const dir = spec.direction ?? 'asc';
  const cmp = dir === 'asc' ? '>' : '<';
  const cols = spec.orderBy.join(', ');
  const order = spec.orderBy.map((c) => `${c} ${dir.toUpperCase()}`).join(', ');
  const out: Item[] = [];
  let lastOut: Row | undefined;
  let key = after;
  /** Bytes of the page's rows, and of every row read (filtered out or not). */
  let pageBytes = 0;
  let readBytes = 0;
  let read = 0;
  /** A full batch reads at least this many rows: what the page still needs (and one to see what follows), or 100. */
  const most = () => Math.max(limit + 1 - out.length, 100);
  let batch = Math.min(FIRST_BATCH, limit + 1);
  for (;;) {
    const keyClause = key ? ` AND (${cols}) ${cmp} (${key.map(() => '?').join(', ')})` : '';
    const sql = `SELECT * FROM ${spec.from}${keyClause} ORDER BY ${order} LIMIT ${batch}`;
    // Row by row (`iterate`, not `all`): a batch sized from small rows may meet large ones, and
    // only the page's rows are kept (110 rows of 1 MB after 8 small ones were read at once, past
    // the process's heap). Leaving the loop early resets the statement.
    let inBatch = 0;
    let last: Row | undefined;
    for (const row of ctx.db.prepare(sql).iterate(...spec.params, ...(key ?? [])) as IterableIterator<Row>) {
      inBatch++;
      last = row;
      const bytes = rowBytes(row);
      read++;
      readBytes += bytes;
      if (spec.filter && !spec.filter(row)) continue;
      if (out.length === limit || (out.length > 0 && pageBytes >= PAGE_MAX_BYTES)) return { items: out, last: lastOut, hasMore: true };
      const item = spec.map(row);
      out.push(item);
      lastOut = row;
      // A page of two 900 KB comments served as documents (`*a* ` repeated) was an answer of 18 MB,
      // built in 0.8 s on `npm start`'s one event loop with some 80 MB of heap: a few such reads
      // at once ran the process out of heap.
      pageBytes += spec.itemsOutgrowRows ? JSON.stringify(item).length : bytes;
    }
    if (inBatch < batch || !last) return { items: out, last: lastOut, hasMore: false };
    const lastRow = last;
    key = spec.orderBy.map((c) => (lastRow as Record<string, unknown>)[bare(c)]);
    const average = Math.max(1, readBytes / read);
    batch = Math.min(most(), Math.max(1, Math.floor((PAGE_MAX_BYTES - pageBytes) / average) + 1));
  }
}

/** The bytes of a row's text and blob columns (numbers and nulls count nothing). */
function rowBytes(row: object): number {
  let bytes = 0;
  for (const value of Object.values(row)) {
    if (typeof value === 'string') bytes += value.length;
    else if (value instanceof Uint8Array) bytes += value.byteLength;
  }
  return bytes;
}

/** `s.position` → `position`: the row key of a (possibly qualified) column. */
const bare = (col: string) => col.slice(col.lastIndexOf('.') + 1);

function encodePage(key: unknown[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodePage(page: string, length: number, lengthWithVersion = length): unknown[] {
  try {
    const key = JSON.parse(Buffer.from(page, 'base64url').toString('utf8'));
    const fits = Array.isArray(key) && (key.length === length || key.length === lengthWithVersion);
    if (fits && key.every((v) => ['string', 'number'].includes(typeof v))) return key;
  } catch {
    /* fall through */
  }
  throw badRequest('page: is not a valid page token');
}

/**
 * The `page` token of an in-memory list: an offset, and the version of the data the list was
 * computed from when the list has one (undefined: the first page).
 */
export function arrayPage(ctx: RequestContext): { offset: number; version?: string } | undefined {
  const page = ctx.query.string('page');
  if (page === undefined) return undefined;
  const [offset, version] = decodePage(page, 1, 2);
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0 || (version !== undefined && typeof version !== 'string'))
    throw badRequest('page: is not a valid page token');
  return { offset, version: version as string | undefined };
}

/**
 * Pagination of an in-memory list (for computed lists such as links): the token is an offset.
 * When the list is computed from immutable data (a revision), `version` names it: the tokens carry
 * it, so the caller can compute later pages from the same data (see arrayPage) and stay stable.
 */
export function paginateArray<T>(ctx: RequestContext, all: T[], extra?: Record<string, unknown>, version?: string): ListEnvelope<T> {
  const limit = ctx.query.int('limit', 1, LIST_LIMIT_MAX) ?? DEFAULT_PAGE_SIZE;
  const start = arrayPage(ctx)?.offset ?? 0;
  const items = all.slice(start, start + limit);
  const envelope: ListEnvelope<T> = { ...extra, items, count: items.length };
  const next = start + limit;
  if (next < all.length) envelope.next = { page: encodePage(version === undefined ? [next] : [next, version]) };
  return envelope;
}
