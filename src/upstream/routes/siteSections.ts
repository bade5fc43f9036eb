/**
 * Site sections (`/orgs/{organizationId}/sites/{siteId}/sections`): each section publishes one
 * or more site spaces (space variants). Sections and section groups share one order per site.
 */
import type { RequestContext, UpstreamServices } from '../context.js';
import { badRequest, lookupField } from '../errors.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import {
  deleteSection,
  loadSection,
  placeInSite,
  resolvePosition,
  sectionsOf,
  sectionView,
  toSiteSection,
  updateSection,
} from '../domain/siteSections.js';
import { insertSection } from '../domain/siteSpaces.js';
import { loadSite, reloadSite, siteBody, type SiteAccess } from '../domain/sites.js';
import { loadSpace } from '../domain/spaces.js';

function sectionResponse(ctx: RequestContext, access: SiteAccess, sectionId: string, status = 200) {
  const site = reloadSite(ctx.db, access.site.id);
  const view = sectionView(ctx.db, { ...access, site });
  const body = toSiteSection(ctx, view, loadSection(ctx.db, site, sectionId));
  return status === 200 ? body : new Reply(status, body);
}

function createSection(ctx: RequestContext) {
  const access = loadSite(ctx, 'admin');
  const body = siteBody(ctx, 'siteSection.create');
  const { row: space } = lookupField('spaceId', () => loadSpace(ctx, body.spaceId, 'read'));
  if (space.organization_id !== access.site.organization_id) throw badRequest('spaceId: must be a space of the site’s organization');
  const section = insertSection(ctx.db, ctx.now(), { siteId: access.site.id, spaceId: space.id, title: body.title });
  return sectionResponse(ctx, access, section.id, 201);
}

function update(ctx: RequestContext) {
  const access = loadSite(ctx, 'admin');
  const section = loadSection(ctx.db, access.site, ctx.params.siteSectionId);
  updateSection(ctx.db, section, siteBody(ctx, 'siteSection.update'));
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
      return paginate(ctx, sectionsOf(ctx, sectionView(ctx.db, access)));
    },
    { anonymous: true },
  );
  router.post(base, createSection);
  router.patch(`${base}/{siteSectionId}`, update);
  router.delete(`${base}/{siteSectionId}`, (ctx) => {
    const { site } = loadSite(ctx, 'admin');
    deleteSection(ctx.db, loadSection(ctx.db, site, ctx.params.siteSectionId).id);
  });
  router.post(`${base}/{siteSectionId}/move`, moveSection);
}
