/**
 * The list, read and delete routes of a table of owned rows (domain/owned.ts), for resources that
 * differ only in who may do what and how a row is shown; their other routes are written by hand.
 */
import type { Role } from '../api/roles.js';
import { requireOrgSettings } from './access.js';
import type { RequestContext } from './context.js';
import { loadSite, type SiteAccess } from './domain/sites.js';
import { deleteOwned, loadOwned, ownedRows, type OwnedTable } from './domain/owned.js';
import { paginate } from './pagination.js';
import type { HandlerResult, Router } from './router.js';

type Method = 'POST' | 'PUT' | 'PATCH';
/** A write, called with what `access(ctx, true)` returned. */
type Write<Access> = [Method, (ctx: RequestContext, access: Access) => HandlerResult | Promise<HandlerResult>];
/** A write on a row's path, called with what `access(ctx, true)` returned and the row of the path (404 when there is none). */
type RowWrite<Access, Row> = (ctx: RequestContext, access: Access, row: Row) => HandlerResult | Promise<HandlerResult>;

export interface OwnedRoutes<Access, Row extends { id: string }, Item> {
  /** The list's path; a row is at `${base}/{${param}}`. */
  base: string;
  param: string;
  table: OwnedTable;
  /** Checks the caller may read (`write`: change) the parent's rows; what it returns is passed on. */
  access: (ctx: RequestContext, write: boolean) => Access;
  ownerId: (access: Access) => string;
  /** How rows are shown to this caller (made once per request). */
  show: (ctx: RequestContext, access: Access) => (row: Row) => Item;
  /** Serve `GET ${base}/{${param}}` too. */
  read?: boolean;
  /** The hand-written writes: on the list's path, and on a row's (registered in the order list, create, read, update or upsert, delete). */
  create?: Write<Access>;
  update?: [Method, RowWrite<Access, Row>];
  /** A write on a row's path that may create the row (so it is given no row); in place of `update`. */
  upsert?: Write<Access>;
}

export function registerOwnedRoutes<Access, Row extends { id: string }, Item>(router: Router, r: OwnedRoutes<Access, Row, Item>): void {
  const item = `${r.base}/{${r.param}}`;
  const load = (ctx: RequestContext, access: Access) => loadOwned<Row>(ctx.db, r.table, r.ownerId(access), ctx.params[r.param]);
  router.get(r.base, (ctx) => {
    const access = r.access(ctx, false);
    return paginate(ctx, ownedRows(r.table, r.ownerId(access), r.show(ctx, access)));
  });
  const write = ([method, handler]: Write<Access>, path: string) => router.add(method, path, (ctx) => handler(ctx, r.access(ctx, true)));
  if (r.create) write(r.create, r.base);
  if (r.read)
    router.get(item, (ctx) => {
      const access = r.access(ctx, false);
      return r.show(ctx, access)(load(ctx, access));
    });
  const writeRow = (method: Method | 'DELETE', handler: RowWrite<Access, Row>) =>
    router.add(method, item, (ctx) => {
      const access = r.access(ctx, true);
      return handler(ctx, access, load(ctx, access));
    });
  if (r.update) writeRow(...r.update);
  if (r.upsert) write(r.upsert, item);
  writeRow('DELETE', (ctx, _access, row) => {
    deleteOwned(ctx.db, r.table, row.id);
  });
}

/** The hand-written parts of an owned resource's routes: where it is, and its writes. */
type Declared<Access, Row extends { id: string }, Item, Show> = Pick<
  OwnedRoutes<Access, Row, Item>,
  'param' | 'table' | 'create' | 'update' | 'upsert'
> & {
  /** The path below the parent's, e.g. `fonts`. */
  path: string;
  show: Show;
};

/** Access to the organization settings of the path (see requireOrgSettings); `canEdit` is `permissions.edit`. */
const orgSettingsAccess = (ctx: RequestContext, write: boolean) =>
  requireOrgSettings(ctx.db, ctx.params.organizationId, ctx.caller?.id, write);

export type OrgSettingsAccess = ReturnType<typeof orgSettingsAccess>;

/** An organization setting at `/orgs/{organizationId}/${path}`: members with a role read it, ORG_SETTINGS_WRITE_ROLE writes it. */
export function registerOrgSetting<Row extends { id: string }, Item>(
  router: Router,
  r: Declared<OrgSettingsAccess, Row, Item, (ctx: RequestContext, row: Row, canEdit: boolean) => Item>,
): void {
  registerOwnedRoutes<OrgSettingsAccess, Row, Item>(router, {
    ...r,
    base: `/orgs/{organizationId}/${r.path}`,
    access: orgSettingsAccess,
    ownerId: (access) => access.org.id,
    show:
      (ctx, { canEdit }) =>
      (row) =>
        r.show(ctx, row, canEdit),
    read: true,
  });
}

/** The path of a site's `path`: `/orgs/{organizationId}/sites/{siteId}/${path}`. */
export const sitePath = (path: string) => `/orgs/{organizationId}/sites/{siteId}/${path}`;

/** A list of a site at `sitePath(path)`: `readRole` reads it, organization admins write it. Returns the list's path. */
export function registerSiteList<Row extends { id: string }, Item>(
  router: Router,
  r: Declared<SiteAccess, Row, Item, (ctx: RequestContext, access: SiteAccess) => (row: Row) => Item> & { readRole: Role },
): string {
  const base = sitePath(r.path);
  registerOwnedRoutes<SiteAccess, Row, Item>(router, {
    ...r,
    base,
    access: (ctx, write) => loadSite(ctx, write ? 'admin' : r.readRole),
    ownerId: (access) => access.site.id,
  });
  return base;
}
