/**
 * Site share links (`/orgs/{organizationId}/sites/{siteId}/share-links`). Each link has a secret
 * key, carried by its `urls.published` as the `shareKey` query parameter; while the link is
 * active the key opens the published share-link site (see src/upstream/shareKeys.ts).
 * Listing links reveals their keys, so every operation here needs the organization role admin.
 */
import type { RequestContext, UpstreamServices } from '../context.js';
import type { Db } from '../db/index.js';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import { loadSite, setColumns, siteBody, siteUrl, type SiteRow } from '../domain/sites.js';

interface ShareLinkRow {
  id: string;
  site_id: string;
  name: string;
  key: string;
  active: number;
  created_at: string;
}

function toShareLink(ctx: RequestContext, site: SiteRow, row: ShareLinkRow) {
  const published = new URL(siteUrl(ctx, site));
  published.searchParams.set('shareKey', row.key);
  return {
    object: 'share-link' as const,
    id: row.id,
    createdAt: row.created_at,
    name: row.name,
    active: Boolean(row.active),
    urls: { published: published.toString() },
  };
}

type ShareLink = ReturnType<typeof toShareLink>;

function loadShareLink(db: Db, site: SiteRow, shareLinkId: string): ShareLinkRow {
  const row = db.prepare('SELECT * FROM share_links WHERE id = ? AND site_id = ?').get(shareLinkId, site.id) as
    | ShareLinkRow
    | undefined;
  if (!row) throw notFound('Share link');
  return row;
}

function createShareLink(ctx: RequestContext) {
  const { site } = loadSite(ctx, 'admin');
  const body = siteBody(ctx, 'shareLink.create');
  const id = newId();
  ctx.db
    .prepare('INSERT INTO share_links (id, site_id, name, key, active, created_at) VALUES (?, ?, ?, ?, 1, ?)')
    .run(id, site.id, body.name, newId(32), ctx.now());
  return new Reply(201, toShareLink(ctx, site, loadShareLink(ctx.db, site, id)));
}

function updateShareLink(ctx: RequestContext) {
  const { site } = loadSite(ctx, 'admin');
  const link = loadShareLink(ctx.db, site, ctx.params.shareLinkId);
  const body = siteBody(ctx, 'shareLink.update');
  setColumns(ctx.db, 'share_links', ['id', link.id], { active: body.active, name: body.name });
  return toShareLink(ctx, site, loadShareLink(ctx.db, site, link.id));
}

export function register(router: Router, _services: UpstreamServices) {
  const base = '/orgs/{organizationId}/sites/{siteId}/share-links';
  router.get(base, (ctx) => {
    const { site } = loadSite(ctx, 'admin');
    return paginate<ShareLinkRow, ShareLink>(ctx, {
      from: 'share_links WHERE site_id = ?',
      params: [site.id],
      orderBy: ['created_at', 'id'],
      map: (row) => toShareLink(ctx, site, row),
    });
  });
  router.post(base, createShareLink);
  router.patch(`${base}/{shareLinkId}`, updateShareLink);
  router.delete(`${base}/{shareLinkId}`, (ctx) => {
    const { site } = loadSite(ctx, 'admin');
    ctx.db.prepare('DELETE FROM share_links WHERE id = ?').run(loadShareLink(ctx.db, site, ctx.params.shareLinkId).id);
  });
}
