/**
 * REST list envelopes (`{items, count, next?: {page}}`) as forward Relay connections. A cursor
 * encodes the upstream page token and the offset within that page (with the id of the item there,
 * to find it again after deletions), so resuming costs one REST call; list items prime the
 * request's loader so the objects are never fetched again.
 */
import { createHash } from 'node:crypto';
import type { GraphQLResolveInfo } from 'graphql';
import type { GatewayContext } from '../context.js';
import { encodeQuery, MAX_URL_CHARS, restError } from '../../rest/index.js';
import { cacheKey, type QueryParams } from '../restLoader.js';
import { builder } from '../builder.js';
import { userInputError } from './errors.js';
import { primePath } from './node.js';
import { valuesPerItem } from './resultValues.js';

export interface ListEnvelope<T> {
  items: T[];
  count: number;
  next?: { page: string };
}

/** Where to resume: the page token to fetch (none: the first page), the items to skip in it, the
 * page size it was fetched with (offsets are only meaningful with the same size), which list it
 * belongs to (a short hash of the REST path and filters), and, with a skip, the ids of the last
 * item skipped and of the one before it on the page (the anchors: see `realign`). */
interface Cursor {
  p?: string;
  s: number;
  l: number;
  k: string;
  a?: string;
  b?: string;
}

/** The longest anchor a cursor carries (REST ids are 20 characters; a longer id goes without one). */
const MAX_ANCHOR_CHARS = 100;

/** Identifies a list: the same path and filters give the same key. */
function listKey(path: string, query?: QueryParams): string {
  return createHash('sha256').update(cacheKey(path, query)).digest('base64url').slice(0, 10);
}

/** The query of a list without what only shapes its items (see ListOptions.primeQuery). */
function listFilters(options: Pick<ListOptions<unknown, unknown>, 'query' | 'primeQuery'>): QueryParams | undefined {
  if (!options.primeQuery || !options.query) return options.query;
  const filters = { ...options.query };
  for (const name of Object.keys(options.primeQuery)) delete filters[name];
  return filters;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

/** A cursor of list `key`, its page size within the connection's bounds (a cursor is client data:
 * an edited size must not make the gateway read more than `maxPageSize` items). */
export function decodeCursor(cursor: string, key: string, maxPageSize: number): Cursor {
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      c &&
      typeof c === 'object' &&
      c.k === key &&
      (c.p === undefined || typeof c.p === 'string') &&
      [c.a, c.b].every((id) => id === undefined || (typeof id === 'string' && id.length <= MAX_ANCHOR_CHARS)) &&
      Number.isInteger(c.s) &&
      c.s >= 0 &&
      Number.isInteger(c.l) &&
      c.l >= 1 &&
      c.l <= Math.max(maxPageSize, 1) &&
      c.s <= c.l
    )
      return c;
  } catch {
    /* fall through */
  }
  throw userInputError('after: is not a cursor of this connection', 'after');
}

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
}

export interface Edge<Item, Node> {
  cursor: string;
  node: Node;
  /** The REST list item (for edge fields such as `permission`). */
  item: Item;
}

export interface ConnectionResult<Item, Node> {
  edges: Array<Edge<Item, Node>>;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  /** The first REST page read, for envelope fields beside the items (e.g. the `stats` of links). */
  envelope: ListEnvelope<Item> & Record<string, unknown>;
}

export interface ListOptions<Item, Node> {
  path: string;
  query?: QueryParams;
  /** Turns a list item into the edge's node (e.g. `{permission, user}` → user). */
  node?: (item: Item) => Node;
  /** REST path of a list item's object, to prime the loader with it (with the edge's node when
   * `node` is given: `{permission, user}` primes the user's path with the user). */
  itemPath?: (item: Item, node: Node) => string | undefined;
  /** The part of `query` that shapes the items but not the list (the `format` their bodies were
   * listed in): the items are primed under it, and it is no part of the list's key, so a cursor
   * stays good whatever body format the next page's selection needs (the pages are the same). */
  primeQuery?: QueryParams;
  /**
   * Names how `node` and `itemPath` make and prime the items (the same key: the same nodes of the
   * same answer), so the connections of one REST answer under a repeated parent share them
   * (RestLoader.madeOf). Absent: each page is made anew.
   */
  nodesKey?: string;
}

/** `first` checked against the configured bounds (default when absent). */
export function pageSize(ctx: GatewayContext, first: number | null | undefined): number {
  const { defaultPageSize, maxPageSize } = ctx.config;
  if (first === undefined || first === null) return defaultPageSize;
  if (!Number.isInteger(first) || first < 0 || first > maxPageSize)
    throw userInputError(`first: must be between 0 and ${maxPageSize}`, 'first');
  return first;
}

/** Resolves a connection from a REST list, reading as few pages as `first` needs. */
export async function resolveList<Item, Node = Item>(
  ctx: GatewayContext,
  args: ConnectionArgs,
  options: ListOptions<Item, Node>,
  info: GraphQLResolveInfo,
): Promise<ConnectionResult<Item, Node> | null> {
  const first = pageSize(ctx, args.first);
  // A page of the operation was refused: the others are not read (lib/resultValues.ts).
  if (ctx.values.stopped) return null;
  const perItem = valuesPerItem(info);
  // The list's key and the cursors are computed only when asked for (most selections take no cursor).
  let key: string | undefined;
  const k = () => (key ??= listKey(options.path, listFilters(options)));
  const start: Cursor | { p: undefined; s: number; l: number; a?: undefined; b?: undefined } = args.after
    ? decodeCursor(args.after, k(), ctx.config.maxPageSize)
    : { p: undefined, s: 0, l: Math.max(first, 1) };
  const edges: Array<Edge<Item, Node>> = [];
  let page = start.p;
  let skip = start.s;
  // Pages are keyset pages: a shorter page from the same token is a prefix of the longer one, so
  // reading only the items skipped plus the ones asked for keeps the offsets right.
  let limit = skip > 0 ? Math.min(start.l, skip + Math.max(first, 1)) : Math.max(first, 1);
  let hasNextPage = false;
  let envelope: ConnectionResult<Item, Node>['envelope'] | undefined;
  const seen = new Set([page]);
  for (;;) {
    const res = await ctx.rest.load<ListEnvelope<Item> & Record<string, unknown>>(options.path, { ...options.query, page, limit });
    envelope ??= res;
    if (res.next && !usableToken(res.next.page)) throw listError(options.path, 'next page token is unusable');
    // Only the items asked for: an upstream that sends more is wrong (mapping and priming the
    // 300,000 items of a 13 MB page ran the heap out).
    const items = res.items.length > limit ? res.items.slice(0, limit) : res.items;
    // What the page builds, counted before it is built, and built in its turn (lib/resultValues.ts).
    if (ctx.values.stopped) return null;
    const turn = ctx.values.take(items.length * perItem);
    if (turn) await turn;
    if (ctx.values.stopped) return null;
    const build = () => {
      const made = items.map((item) => (options.node ? options.node(item) : (item as unknown as Node)));
      if (options.itemPath) {
        items.forEach((item, i) => {
          const p = primePath(() => options.itemPath!(item, made[i]));
          if (p) ctx.rest.prime(p, made[i], options.primeQuery);
        });
      }
      return made;
    };
    // The same answer mapped the same way (a connection under a repeated parent): its nodes once.
    const nodes = options.nodesKey === undefined ? build() : ctx.rest.madeOf(res, `${options.nodesKey}\0${items.length}`, build);
    // The page ends before the skip and its anchor is not on it: the skip goes on on the next page
    // (the pages after one token are one keyset sequence however REST cuts them, and it cuts pages
    // of bodies listed as documents sooner than as markdown: a cursor made under one format and
    // resumed under the other served the items before it again).
    if (skip > items.length && res.next && !nodes.some((n) => start.a !== undefined && anchorOf(n) === start.a)) {
      skip -= items.length;
      page = nextPage(options.path, res, seen, items.length);
      limit = skip + Math.max(first, 1);
      continue;
    }
    if (skip > 0 && start.a !== undefined) skip = realign(nodes, skip, start.a, start.b);
    const last = items.length - 1;
    let taken = 0;
    for (let i = skip; i <= last && edges.length < first; i++, taken++) {
      const [p, s, l] = i === last && res.next ? [res.next.page, 0, limit] : [page, i + 1, limit];
      const [node, before] = [nodes[i], nodes[i - 1]];
      const anchors = () => (s > 0 ? { a: anchorOf(node), b: i > 0 ? anchorOf(before) : undefined } : undefined);
      edges.push(lazyEdge(() => ({ p, s, l, k: k(), ...anchors() }), items[i], node));
    }
    if (edges.length >= first) {
      hasNextPage = skip + taken < items.length || Boolean(res.next);
      break;
    }
    // Every page read adds an edge, ends the walk or shortens the skip (skip > 0 only on the pages
    // it spans), so a walk reads at most skip + `first` + 1 pages whatever the upstream sends.
    page = nextPage(options.path, res, seen, items.length);
    if (page === undefined) break;
    skip = 0;
    limit = first - edges.length;
  }
  return {
    edges,
    pageInfo: {
      hasNextPage,
      hasPreviousPage: false,
      get startCursor() {
        return edges[0]?.cursor ?? null;
      },
      get endCursor() {
        return edges[edges.length - 1]?.cursor ?? null;
      },
    },
    envelope: envelope!,
  };
}

/** The id a cursor names its item by (integrations: `name`), if it has a short one. */
function anchorOf(node: unknown): string | undefined {
  const o = node as { id?: unknown; name?: unknown } | null;
  const id = typeof o?.id === 'string' ? o.id : typeof o?.name === 'string' ? o.name : undefined;
  return id !== undefined && id.length <= MAX_ANCHOR_CHARS ? id : undefined;
}

/**
 * The items to skip on a cursor's page, `skip` counted when the cursor was made, found again by
 * the ids of the last item served (`anchor`) and of the one before it (`before`, none when the
 * anchor opened the page): an item deleted (or inserted) before them since would otherwise shift
 * the offset, and an item was skipped (or served twice), where REST's keyset tokens lose nothing.
 * - Both still side by side (or one of them gone): skip up to the one still there.
 * - Apart: one of them moved, as an update moves an item of a list sorted by a date to its front
 *   or its end (change requests, members by `lastSeenAt`): the one nearer where it was is in
 *   place (a tie: the later one), and the mover is served again where it now is, as REST does.
 * - Both gone: they were deleted, and the offset counts them.
 */
function realign(nodes: unknown[], skip: number, anchor: string, before: string | undefined): number {
  const indexOf = (id: string | undefined) => (id === undefined ? -1 : nodes.findIndex((n) => anchorOf(n) === id));
  if (anchorOf(nodes[skip - 1]) === anchor && (before === undefined || anchorOf(nodes[skip - 2]) === before)) return skip;
  const [at, beforeAt] = [indexOf(anchor), indexOf(before)];
  if (at >= 0 && beforeAt >= 0 && beforeAt !== at - 1) {
    const [anchorMoved, beforeMoved] = [Math.abs(at - (skip - 1)), Math.abs(beforeAt - (skip - 2))];
    return (anchorMoved === beforeMoved ? Math.max(at, beforeAt) : anchorMoved < beforeMoved ? at : beforeAt) + 1;
  }
  if (at >= 0) return at + 1;
  if (beforeAt >= 0) return beforeAt + 1;
  return Math.max(0, skip - (before === undefined ? 1 : 2));
}

/**
 * The longest page token sent back: the upstream's, so one that would make the URL too long
 * (MAX_URL_CHARS, half of it left for the path and filters) is its error, not the caller's.
 */
const MAX_PAGE_TOKEN_CHARS = MAX_URL_CHARS / 2;

/** A page token the upstream may name: a string short enough to send back (an object was sent as "[object Object]"). */
function usableToken(token: unknown): token is string {
  return typeof token === 'string' && token.length <= MAX_PAGE_TOKEN_CHARS && encodeQuery({ page: token }).length <= MAX_PAGE_TOKEN_CHARS;
}

/**
 * The token of the page after `res` in a walk of the list at `path` (undefined at its end), added
 * to the walk's tokens `seen`. A token seen before would be answered by the request's loader
 * without a REST call, and a walk would spin on settled promises (the event loop never turned
 * again: the whole process hung); a page that brought no items yet names another goes nowhere
 * either. Both are UPSTREAM_ERROR, as is a token that cannot be sent back.
 */
export function nextPage(path: string, res: ListEnvelope<unknown>, seen: Set<string | undefined>, brought: number): string | undefined {
  if (!res.next) return undefined;
  const token: unknown = res.next.page;
  if (!usableToken(token)) throw listError(path, 'next page token is unusable');
  if (!brought || seen.has(token)) throw listError(path, 'pages loop');
  seen.add(token);
  return token;
}

/** A list the upstream answered wrongly (its pages go round, a token it names cannot be sent back): UPSTREAM_ERROR. */
function listError(path: string, what: string) {
  return restError('UPSTREAM_ERROR', `Upstream error: the REST API's ${what}`, { status: 200, method: 'GET', path });
}

/** An edge whose cursor is encoded when first read. */
function lazyEdge<Item, Node>(after: () => Cursor, item: Item, node: Node): Edge<Item, Node> {
  let cursor: string | undefined;
  return {
    item,
    node,
    get cursor() {
      return (cursor ??= encodeCursor(after()));
    },
  };
}

/** The forward connection arguments, `first` and `after` (spread them into a field's args). */
export const forwardArgs = builder.args((t) => ({
  first: t.int({ description: 'How many items to return (default 20, at most 100; both configurable).' }),
  after: t.string({ description: 'Returns the items after this cursor.' }),
}));

/** A connection over a REST list whose edges carry a field of the list item beside the node
 * (`{permission, user}`: the user, with `permission`; `{team, member}`: the team, with `role`). */
// `any`: `type` and `fieldType` are any node and enum refs of the builder; Pothos's connection generics do not narrow through a helper.
export const itemEdgeConnection = <Item>(
  name: string,
  type: any,
  field: string,
  fieldType: any,
  description: string,
  read: (item: Item) => unknown,
) =>
  builder.connectionObject(
    { type, name: `${name}Connection` },
    {
      name: `${name}Edge`,
      fields: (t) => ({
        [field]: t.field({ type: fieldType, description, resolve: (e) => read((e as unknown as Edge<Item, unknown>).item) as never }),
      }),
    },
  );
