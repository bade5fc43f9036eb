/**
 * Site sections (`/orgs/{organizationId}/sites/{siteId}/sections`): each section publishes one
 * or more site spaces (space variants). Sections and section groups share one order per site.
 */
import type { RequestContext, UpstreamServices } from '../context.js';
import { badRequest, conflict, lookupField } from '../errors.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import { loadSection, placeInSite, resolvePosition, sectionView, toSiteSection, type SiteSection } from '../domain/siteSections.js';
import { insertSection, type SectionRow } from '../domain/siteSpaces.js';
import { loadSite, setColumns, siteBody, type SiteAccess, type SiteRow } from '../domain/sites.js';
import { loadSpace } from '../domain/spaces.js';

// ---------------------------------------------------------------------------------------------
// Routes

function sectionResponse(ctx: RequestContext, access: SiteAccess, sectionId: string, status = 200) {
  const site = ctx.db.prepare('SELECT * FROM sites WHERE id = ?').get(access.site.id) as SiteRow;
  const view = sectionView(ctx.db, { ...access, site });
  const body = toSiteSection(ctx, view, loadSection(ctx.db, site, sectionId));
  return status === 200 ? body : new Reply(status, body);
}

function createSection(ctx: RequestContext) {
  const access = loadSite(ctx, 'admin');
  const body = siteBody(ctx, 'siteSection.create');
  const { row: space } = lookupField('spaceId', () => loadSpace(ctx, body.spaceId, 'read'));
  if (space.organization_id !== access.site.organization_id)
    throw badRequest('spaceId: must be a space of the site’s organization');
  const section = insertSection(ctx.db, ctx.now(), { siteId: access.site.id, spaceId: space.id, title: body.title });
  return sectionResponse(ctx, access, section.id, 201);
}

function updateSection(ctx: RequestContext) {
  const access = loadSite(ctx, 'admin');
  const section = loadSection(ctx.db, access.site, ctx.params.siteSectionId);
  const body = siteBody(ctx, 'siteSection.update');
  if (
    body.defaultSiteSpace !== undefined &&
    !ctx.db.prepare('SELECT 1 FROM site_spaces WHERE id = ? AND section_id = ?').get(body.defaultSiteSpace, section.id)
  )
    throw badRequest('defaultSiteSpace: is not a site space of this section');
  if (
    body.path !== undefined &&
    ctx.db.prepare('SELECT 1 FROM site_sections WHERE site_id = ? AND path = ? AND id != ?').get(access.site.id, body.path, section.id)
  )
    throw conflict('path: is already the path of another section of this site');
  setColumns(ctx.db, 'site_sections', ['id', section.id], {
    title: body.title,
    path: body.path,
    default_site_space_id: body.defaultSiteSpace,
    condition: body.condition,
    icon: body.icon,
    description: body.description,
  });
  return sectionResponse(ctx, access, section.id);
}

function moveSection(ctx: RequestContext) {
  const access = loadSite(ctx, 'admin');
  const section = loadSection(ctx.db, access.site, ctx.params.siteSectionId);
  const body = siteBody(ctx, 'siteSection.move', { optional: true });
  const target = resolvePosition(ctx.db, access.site, body.position, 'siteSection');
  if (target?.sectionId === section.id) throw badRequest('position: cannot be relative to the moved section');
  placeInSite(ctx.db, access.site.id, { table: 'site_sections', id: section.id }, target);
  return sectionResponse(ctx, access, section.id);
}

export function register(router: Router, _services: UpstreamServices) {
  const base = '/orgs/{organizationId}/sites/{siteId}/sections';
  router.get(
    base,
    (ctx) => {
      const access = loadSite(ctx, 'read', { shareKey: ctx.query.string('shareKey') });
      const view = sectionView(ctx.db, access);
      return paginate<SectionRow, SiteSection>(ctx, {
        from: 'site_sections WHERE site_id = ?',
        params: [access.site.id],
        orderBy: ['position', 'id'],
        map: (row) => toSiteSection(ctx, view, row),
      });
    },
    { anonymous: true },
  );
  router.post(base, createSection);
  router.patch(`${base}/{siteSectionId}`, updateSection);
  router.delete(`${base}/{siteSectionId}`, (ctx) => {
    const { site } = loadSite(ctx, 'admin');
    ctx.db.prepare('DELETE FROM site_sections WHERE id = ?').run(loadSection(ctx.db, site, ctx.params.siteSectionId).id);
  });
  router.post(`${base}/{siteSectionId}/move`, moveSection);
}
