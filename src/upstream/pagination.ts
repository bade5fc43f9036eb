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
  /** Extra fields of the envelope (e.g. `stats` of the links list). */
  extra?: Record<string, unknown>;
}

/**
 * Keyset pagination: a page token is the sort key of the last item served, so pages stay stable
 * when rows are inserted. `limit` is 1..1000 (default 50).
 */
export function paginate<Row extends object, Item>(ctx: RequestContext, spec: ListSpec<Row, Item>): ListEnvelope<Item> {
  const limit = ctx.query.int('limit', 1, LIST_LIMIT_MAX) ?? DEFAULT_PAGE_SIZE;
  const page = ctx.query.string('page');
  const after = page === undefined ? undefined : decodePage(page, spec.orderBy.length);
  const rows = fetchRows(ctx, spec, after, limit + 1);
  const hasMore = rows.length > limit;
  const pageRows = rows.slice(0, limit);
  const items = pageRows.map(spec.map);
  const envelope: ListEnvelope<Item> = { ...spec.extra, items, count: items.length };
  if (hasMore) {
    const last = pageRows[pageRows.length - 1];
    envelope.next = { page: encodePage(spec.orderBy.map((c) => (last as Record<string, unknown>)[bare(c)])) };
  }
  return { ...envelope, items, count: items.length };
}

/** Reads rows after the key, in batches, until `wanted` rows pass the filter or rows run out. */
function fetchRows<Row extends object>(
  ctx: RequestContext,
  spec: ListSpec<Row, unknown>,
  after: unknown[] | undefined,
  wanted: number,
): Row[] {
  const dir = spec.direction ?? 'asc';
  const cmp = dir === 'asc' ? '>' : '<';
  const cols = spec.orderBy.join(', ');
  const order = spec.orderBy.map((c) => `${c} ${dir.toUpperCase()}`).join(', ');
  const out: Row[] = [];
  let key = after;
  const batch = Math.max(wanted, 100);
  for (;;) {
    const keyClause = key ? ` AND (${cols}) ${cmp} (${key.map(() => '?').join(', ')})` : '';
    const sql = `SELECT * FROM ${spec.from}${keyClause} ORDER BY ${order} LIMIT ${batch}`;
    const rows = ctx.db.prepare(sql).all(...spec.params, ...(key ?? [])) as Row[];
    for (const row of rows) {
      if (!spec.filter || spec.filter(row)) out.push(row);
      if (out.length === wanted) return out;
    }
    if (rows.length < batch) return out;
    const last = rows[rows.length - 1];
    key = spec.orderBy.map((c) => (last as Record<string, unknown>)[bare(c)]);
  }
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
