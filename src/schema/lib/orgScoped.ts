/**
 * Nodes that live under one organization (`/orgs/{organizationId}/<segment>/{key}`: OpenAPI specs,
 * translation settings, custom fonts) and whose REST JSON lacks the organization id: the shape is
 * the REST JSON plus `organizationId`, attached wherever such an object is built, so the global id
 * holds both keys.
 */
import type { GatewayContext } from '../context.js';
import type { WriteMethod } from '../restLoader.js';
import type { ListOptions } from './connection.js';
import { restNodeRef, restPath } from './node.js';

export type OrgScoped<T> = T & { organizationId: string };

export interface OrgScopedOptions<T> {
  /** Path segment of the collection under the organization, e.g. `openapi`. */
  segment: string;
  /** The REST key of an object within the organization, e.g. a spec's slug. */
  key: (json: T) => string;
}

export function orgScoped<T extends object>(name: string, { segment, key }: OrgScopedOptions<T>) {
  const listPath = (organizationId: string) => `${restPath`/orgs/${organizationId}`}/${segment}`;
  const path = (organizationId: string, k: string) => `${listPath(organizationId)}${restPath`/${k}`}`;
  const attach = (json: T, organizationId: string): OrgScoped<T> => ({ ...json, organizationId });
  const ref = restNodeRef<OrgScoped<T>>(name, {
    arity: 2,
    keys: (o) => [o.organizationId, key(o)],
    path: ([organizationId, k]) => path(organizationId, k),
    wrap: (json: T, [organizationId]) => attach(json, organizationId),
  });
  /** The organization's REST list as connection options; listed items prime the loader. */
  const list = (organizationId: string): ListOptions<T, OrgScoped<T>> => ({
    path: listPath(organizationId),
    itemPath: (item) => path(organizationId, key(item)),
    node: (item) => attach(item, organizationId),
  });
  /**
   * Writes to the list (`k` absent: a create) or to one object; the organization's list and its
   * objects are forgotten, and the written object primes the loader so later reads are fresh.
   */
  const save = async (ctx: GatewayContext, method: WriteMethod, organizationId: string, body: unknown, k?: string) => {
    const target = k === undefined ? listPath(organizationId) : path(organizationId, k);
    const json = await ctx.rest.write<T>(method, target, body, { invalidate: [listPath(organizationId)] });
    ctx.rest.prime(path(organizationId, key(json)), json);
    return attach(json, organizationId);
  };
  const remove = (ctx: GatewayContext, organizationId: string, k: string) =>
    ctx.rest.write('DELETE', path(organizationId, k), undefined, { invalidate: [listPath(organizationId)] });
  return { ref, path, listPath, attach, list, save, remove };
}
