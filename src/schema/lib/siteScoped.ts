/**
 * Objects that live under one site (`/orgs/{organizationId}/sites/{siteId}/<segment>`: sections,
 * section groups, redirects, share links). Their REST JSON lacks the organization and site ids,
 * so the shape is the REST JSON plus those keys, attached wherever such an object is built.
 *
 * REST has no GET for one of them: a node is refetched by walking its site's list (the largest
 * pages, cached per request), and every object a field returns is cached in the type's loader
 * (`cacheResolved`), so `node(id)` of an object already listed in the request costs no call.
 * Only `node`, `nodes` and `_entities` read that cache: every field of the graph that returns
 * such an object returns the object itself, read after any write of the operation, so a
 * mutation never sees a stale copy.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import type { GatewayContext } from '../context.js';
import type { WriteMethod } from '../restLoader.js';
import { builder } from '../builder.js';
import type { ListEnvelope, ListOptions } from './connection.js';
import { notFoundError } from './errors.js';
import { badNodeIdError } from './globalIds.js';
import { decodeKeys, encodeKeys, registerNode, restPath } from './node.js';

/** The site an object belongs to, and the share key it was read with (not part of ids). */
export interface SiteKeys {
  organizationId: string;
  siteId: string;
  shareKey?: string;
}

export type SiteScoped<T> = T & SiteKeys;

/** The largest REST page, so a refetch by list walk costs as few calls as possible. */
const WALK_LIMIT = 1000;

export const sitesPath = (organizationId: string) => restPath`/orgs/${organizationId}/sites`;
export const sitePath = (k: SiteKeys) => restPath`/orgs/${k.organizationId}/sites/${k.siteId}`;
export const siteListPath = (k: SiteKeys, segment: string) => `${sitePath(k)}/${segment}`;
/** The REST read query of a site's content: its share key, when opened by one. */
export const shareQuery = (k: SiteKeys) => (k.shareKey ? { shareKey: k.shareKey } : undefined);

/** Walks a REST list for the item with `id`; NOT_FOUND when the list has none. */
export async function findListed<T extends { id: string }>(
  ctx: GatewayContext,
  path: string,
  id: string,
  what: string,
  query?: Record<string, string>,
): Promise<T> {
  let page: string | undefined;
  do {
    const res = await ctx.rest.load<ListEnvelope<T>>(path, { ...query, page, limit: WALK_LIMIT });
    const hit = res.items.find((item) => item.id === id);
    if (hit) return hit;
    page = res.next?.page;
  } while (page);
  throw notFoundError(`${what} not found`);
}

export interface ListedNodeOptions<Shape> {
  /** REST keys of an object, outermost first; the global id holds them all. */
  keys: (obj: Shape) => string[];
  arity: number;
  /** Refetches an object from its keys. */
  find: (keys: string[], ctx: GatewayContext) => Promise<Shape>;
}

/** A Relay node refetched by `find` (no GET of its own); resolved objects prime its loader. */
export function listedNodeRef<Shape extends object>(name: string, options: ListedNodeOptions<Shape>) {
  const localId = (obj: Shape) => encodeKeys(options.keys(obj));
  const ref = builder.loadableNodeRef(name, {
    id: { resolve: localId },
    cacheResolved: localId,
    load: (ids: string[], ctx: GatewayContext) =>
      Promise.all(
        ids.map(async (id): Promise<Shape | Error> => {
          const keys = decodeKeys(id, options.arity);
          if (!keys) return badNodeIdError(encodeGlobalID(name, id), name);
          return options.find(keys, ctx).catch((error: Error) => error);
        }),
      ),
  });
  return registerNode(ref, options.arity);
}

/**
 * A site-scoped resource listed at `segment` under its site, with items of REST type T;
 * `shareable`: its list accepts the share key the site was opened with.
 */
export function siteScoped<T extends { id: string }>(name: string, segment: string, what: string, shareable = false) {
  const listPath = (k: SiteKeys) => siteListPath(k, segment);
  const query = (k: SiteKeys) => (shareable ? shareQuery(k) : undefined);
  const attach = (json: T, k: SiteKeys): SiteScoped<T> => ({
    ...json,
    organizationId: k.organizationId,
    siteId: k.siteId,
    ...(k.shareKey ? { shareKey: k.shareKey } : {}),
  });
  /** The current object, read through the list (fresh after a write in the same operation). */
  const find = async (ctx: GatewayContext, k: SiteKeys, id: string) =>
    attach(await findListed<T>(ctx, listPath(k), id, what, query(k)), k);
  const ref = listedNodeRef<SiteScoped<T>>(name, {
    arity: 3,
    keys: (o) => [o.organizationId, o.siteId, o.id],
    find: ([organizationId, siteId, id], ctx) => find(ctx, { organizationId, siteId }, id),
  });
  /** The site's REST list as connection options. */
  const list = (k: SiteKeys): ListOptions<T, SiteScoped<T>> => ({
    path: listPath(k),
    query: query(k),
    node: (item) => attach(item, k),
  });
  return { ref, listPath, attach, find, list };
}

/**
 * A write under an organization's sites. Site objects embed counts and their lists, so every
 * cached read of the organization's sites (lists, sites, their sections, groups, links) is
 * forgotten: a later read in the same operation is fresh.
 */
export function siteWrite<T = unknown>(ctx: GatewayContext, method: WriteMethod, k: SiteKeys, path: string, body?: unknown) {
  return ctx.rest.write<T>(method, path, body, { invalidate: [sitesPath(k.organizationId)] });
}
