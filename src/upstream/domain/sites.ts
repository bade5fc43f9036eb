/**
 * Sites: who may read and write them, the official Site shape, creating one (no REST endpoint does),
 * visitor-authentication settings.
 */
import { setColumns } from '../db/columns.js';
import { containing, containsLike } from '../db/like.js';
import { atLeast, type Role } from '../../api/roles.js';
import type { BodyOf, RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import type { ListSpec } from '../pagination.js';
import { notFound, unauthorized } from '../errors.js';
import { newId, newToken } from '../ids.js';
import { orgMembership, requireOrg } from '../access.js';
import { siteBodies, type SiteBodyName } from '../../api/bodies/sites.js';
import { shareKeyOpensSite } from '../shareKeys.js';
import { insertSection, LIVE_SITE_SPACES } from './siteSpaces.js';

export interface SiteRow {
  id: string;
  organization_id: string;
  title: string;
  visibility: string;
  published: number;
  default_section_id: string | null;
  created_at: string;
  updated_at: string;
}

/** The site of the path and the caller's organization role (null: opened by a share key). */
export interface SiteAccess {
  site: SiteRow;
  role: Role | null;
}

/** The request body of a site operation, checked against src/api/bodies/sites.ts. */
export function siteBody<K extends SiteBodyName>(ctx: RequestContext, name: K, options?: { optional?: boolean }) {
  return ctx.body(siteBodies[name], options) as BodyOf<(typeof siteBodies)[K]>;
}

/**
 * The site `{organizationId}/{siteId}` of the path, for a member whose organization role is at
 * least `min`; a share key opens it for reading. No token and no opening key: 401.
 */
export function loadSite(ctx: RequestContext, min: Role, options: { shareKey?: string } = {}): SiteAccess {
  const { organizationId, siteId } = ctx.params;
  const site = ctx.db.prepare('SELECT * FROM sites WHERE id = ? AND organization_id = ?').get(siteId, organizationId) as
    SiteRow | undefined;
  const member = orgMembership(ctx.db, organizationId, ctx.caller?.id);
  if (member && atLeast(member.role, min)) {
    if (!site) throw notFound('Site');
    return { site, role: member.role };
  }
  if (min === 'read' && site && options.shareKey && shareKeyOpensSite(ctx.db, options.shareKey, site.id)) return { site, role: null };
  if (!ctx.caller) throw unauthorized('A valid access token or share key is required');
  requireOrg(ctx.db, organizationId, ctx.caller.id, min);
  throw notFound('Site');
}

/** Absolute URL where the site is (or would be) served. */
export function siteUrl(ctx: RequestContext, site: SiteRow): string {
  return `${ctx.services.origin()}/published/sites/${site.id}`;
}

function siteSpacesCount(db: Db, siteId: string): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM ${LIVE_SITE_SPACES} AND ss.site_id = ?`).get(siteId) as { n: number }).n;
}

/**
 * The official Site shape, with `permissions` from the caller's organization role. `create`
 * (officially: publish and manage the site's content structure) is what every site write here
 * needs, the role admin.
 */
export function toSite(ctx: RequestContext, row: SiteRow, role: Role | null) {
  const published = Boolean(row.published);
  return {
    object: 'site' as const,
    id: row.id,
    type: 'basic' as const,
    appliedType: 'basic' as const,
    title: row.title,
    visibility: row.visibility,
    defaultLevel: 'inherit' as const,
    published,
    siteSpaces: siteSpacesCount(ctx.db, row.id),
    createdAt: row.created_at,
    features: [],
    permissions: {
      view: atLeast(role, 'read'),
      access: atLeast(role, 'read'),
      edit: atLeast(role, 'edit'),
      create: atLeast(role, 'admin'),
      admin: atLeast(role, 'admin'),
      installIntegration: atLeast(role, 'admin'),
      viewAdaptiveSchema: atLeast(role, 'read'),
      editAdaptiveSchema: atLeast(role, 'admin'),
    },
    urls: {
      location: `${ctx.apiBase}/orgs/${row.organization_id}/sites/${row.id}`,
      app: `${ctx.appBase}/o/${row.organization_id}/sites/${row.id}`,
      preview: `${ctx.services.origin()}/preview/sites/${row.id}`,
      ...(published ? { published: siteUrl(ctx, row) } : {}),
    },
  };
}

export type Site = ReturnType<typeof toSite>;

/**
 * Creates a site (no REST endpoint creates one), with one section per space of `spaceIds`.
 * Used by the demo content and by tests.
 */
export function createSite(
  db: Db,
  now: string,
  input: { organizationId: string; title: string; visibility?: string; published?: boolean; spaceIds?: string[] },
): SiteRow {
  const id = newId();
  db.transaction(() => {
    db.prepare(
      `INSERT INTO sites (id, organization_id, title, visibility, published, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(id, input.organizationId, input.title, input.visibility ?? 'public', input.published ? 1 : 0, now, now);
    for (const spaceId of input.spaceIds ?? []) insertSection(db, now, { siteId: id, spaceId });
  })();
  return db.prepare('SELECT * FROM sites WHERE id = ?').get(id) as SiteRow;
}

export function reloadSite(db: Db, siteId: string): SiteRow {
  return db.prepare('SELECT * FROM sites WHERE id = ?').get(siteId) as SiteRow;
}

/** Sets the given settings (undefined keeps one, `published` too) and bumps `updated_at`. */
export function updateSite(
  db: Db,
  siteId: string,
  changes: { title?: string; visibility?: string; published?: boolean },
  now: string,
): SiteRow {
  setColumns(db, 'sites', ['id', siteId], { ...changes, updated_at: now });
  return reloadSite(db, siteId);
}

interface PublishingAuthRow {
  site_id: string;
  backend: string;
  private_key: string;
  fallback_url: string | null;
  logout_url: string | null;
}

/** The site's visitor-authentication settings, created with a fresh private key on first use. */
export function publishingAuth(db: Db, siteId: string): PublishingAuthRow {
  db.prepare('INSERT OR IGNORE INTO site_publishing_auth (site_id, private_key) VALUES (?, ?)').run(siteId, newToken(''));
  return db.prepare('SELECT * FROM site_publishing_auth WHERE site_id = ?').get(siteId) as PublishingAuthRow;
}

/** Sets the given visitor-authentication settings (undefined keeps one), creating them first when needed. */
export function updatePublishingAuth(
  db: Db,
  siteId: string,
  changes: { backend?: string; fallbackURL?: string | null; logoutURL?: string | null },
): PublishingAuthRow {
  publishingAuth(db, siteId);
  setColumns(db, 'site_publishing_auth', ['site_id', siteId], {
    backend: changes.backend,
    fallback_url: changes.fallbackURL,
    logout_url: changes.logoutURL,
  });
  return publishingAuth(db, siteId);
}

export function toPublishingAuth(row: PublishingAuthRow) {
  return {
    object: 'publishing-auth' as const,
    backend: row.backend,
    privateKey: row.private_key,
    ...(row.fallback_url ? { fallbackURL: row.fallback_url } : {}),
    ...(row.logout_url ? { logoutURL: row.logout_url } : {}),
  };
}

/** The organization's sites, filtered by `published`, a `title` substring and a `spaceId` they publish. */
export function sitesOf(
  ctx: RequestContext,
  organizationId: string,
  only: { published?: boolean; title?: string; spaceId?: string },
  role: Role | null,
): ListSpec<SiteRow, Site> {
  const filters: Array<[string, unknown]> = [['organization_id = ?', organizationId]];
  if (only.published !== undefined) filters.push(['published = ?', only.published ? 1 : 0]);
  if (only.title) filters.push([containsLike('title'), containing(only.title)]);
  if (only.spaceId) filters.push(['id IN (SELECT site_id FROM site_spaces WHERE space_id = ?)', only.spaceId]);
  return {
    from: `sites WHERE ${filters.map(([sql]) => sql).join(' AND ')}`,
    params: filters.map(([, value]) => value),
    orderBy: ['created_at', 'id'],
    map: (row) => toSite(ctx, row, role),
  };
}
