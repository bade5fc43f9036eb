/**
 * Site redirects (`/orgs/{organizationId}/sites/{siteId}/redirects`): a source path of the site
 * that redirects to a section; `GET …/redirect?source=` resolves one to its absolute target URL.
 */
import { redirectSource } from '../../api/bodies/sites.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import type { Db } from '../db/index.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import { loadSection, sectionUrl, sectionView } from '../domain/siteSections.js';
import { loadSite, setColumns, siteBody, type SiteRow } from '../domain/sites.js';

interface RedirectRow {
  id: string;
  site_id: string;
  source: string;
  destination_section_id: string;
  created_at: string;
  updated_at: string | null;
}

interface Destination {
  kind: 'site-section';
  siteSectionId: string;
}

function toRedirect(row: RedirectRow) {
  return {
    object: 'site-redirect' as const,
    id: row.id,
    source: row.source,
    destination: { kind: 'site-section' as const, siteSectionId: row.destination_section_id },
    createdAt: row.created_at,
    ...(row.updated_at ? { updatedAt: row.updated_at } : {}),
  };
}

type Redirect = ReturnType<typeof toRedirect>;

function loadRedirect(db: Db, site: SiteRow, redirectId: string): RedirectRow {
  const row = db.prepare('SELECT * FROM site_redirects WHERE id = ? AND site_id = ?').get(redirectId, site.id) as
    | RedirectRow
    | undefined;
  if (!row) throw notFound('Site redirect');
  return row;
}

/** 400 unless the destination is a section of the site; 409 when another redirect has the source. */
function checkRedirect(db: Db, site: SiteRow, input: { source?: string; destination?: Destination }, selfId = '') {
  const sectionId = input.destination?.siteSectionId;
  if (sectionId !== undefined && !db.prepare('SELECT 1 FROM site_sections WHERE id = ? AND site_id = ?').get(sectionId, site.id))
    throw badRequest('destination.siteSectionId: is not a section of this site');
  if (
    input.source !== undefined &&
    db.prepare('SELECT 1 FROM site_redirects WHERE site_id = ? AND source = ? AND id != ?').get(site.id, input.source, selfId)
  )
    throw conflict(`source: a redirect from ${input.source} already exists on this site`);
}

function createRedirect(ctx: RequestContext) {
  const { site } = loadSite(ctx, 'admin');
  const body = siteBody(ctx, 'siteRedirect.create');
  checkRedirect(ctx.db, site, body);
  const id = newId();
  ctx.db
    .prepare('INSERT INTO site_redirects (id, site_id, source, destination_section_id, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(id, site.id, body.source, body.destination.siteSectionId, ctx.now());
  return new Reply(201, toRedirect(loadRedirect(ctx.db, site, id)));
}

function updateRedirect(ctx: RequestContext) {
  const { site } = loadSite(ctx, 'admin');
  const redirect = loadRedirect(ctx.db, site, ctx.params.siteRedirectId);
  const body = siteBody(ctx, 'siteRedirect.update');
  checkRedirect(ctx.db, site, body, redirect.id);
  setColumns(ctx.db, 'site_redirects', ['id', redirect.id], {
    source: body.source,
    destination_section_id: body.destination?.siteSectionId,
    updated_at: ctx.now(),
  });
  return toRedirect(loadRedirect(ctx.db, site, redirect.id));
}

/** `{redirect, target}`: the redirect from `source` and the absolute URL of its destination. */
function lookupRedirect(ctx: RequestContext) {
  const access = loadSite(ctx, 'read', { shareKey: ctx.query.string('shareKey') });
  const source = ctx.query.requiredString('source', redirectSource);
  const row = ctx.db
    .prepare('SELECT * FROM site_redirects WHERE site_id = ? AND source = ?')
    .get(access.site.id, source) as RedirectRow | undefined;
  if (!row) throw notFound('Site redirect');
  const section = loadSection(ctx.db, access.site, row.destination_section_id);
  return { redirect: toRedirect(row), target: sectionUrl(ctx, sectionView(ctx.db, access), section) };
}

export function register(router: Router, _services: UpstreamServices) {
  const base = '/orgs/{organizationId}/sites/{siteId}';
  router.get(`${base}/redirects`, (ctx) => {
    const { site } = loadSite(ctx, 'read');
    return paginate<RedirectRow, Redirect>(ctx, {
      from: 'site_redirects WHERE site_id = ?',
      params: [site.id],
      orderBy: ['created_at', 'id'],
      map: toRedirect,
    });
  });
  router.post(`${base}/redirects`, createRedirect);
  router.patch(`${base}/redirects/{siteRedirectId}`, updateRedirect);
  router.delete(`${base}/redirects/{siteRedirectId}`, (ctx) => {
    const { site } = loadSite(ctx, 'admin');
    ctx.db.prepare('DELETE FROM site_redirects WHERE id = ?').run(loadRedirect(ctx.db, site, ctx.params.siteRedirectId).id);
  });
  router.get(`${base}/redirect`, lookupRedirect, { anonymous: true });
}
