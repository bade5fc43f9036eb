/**
 * Site section groups (`/orgs/{organizationId}/sites/{siteId}/section-groups`): named groups of
 * sections, placed in the site's order with the sections.
 */
import type { RequestContext, UpstreamServices } from '../context.js';
import { registerSiteList } from '../crud.js';
import {
  addToGroup,
  insertGroup,
  loadGroup,
  SITE_SECTION_GROUPS,
  toGroup,
  ungroupSection,
  updateGroup,
  type GroupRow,
} from '../domain/siteSectionGroups.js';
import { loadSection, placeInSite, resolvePosition, sectionView } from '../domain/siteSections.js';
import { loadSite, siteBody, type SiteAccess } from '../domain/sites.js';
import { notFound } from '../errors.js';
import { Reply, type Router } from '../router.js';

const groupOfPath = (ctx: RequestContext, access: SiteAccess) => loadGroup(ctx.db, access.site.id, ctx.params.siteSectionGroupId);

const groupResponse = (ctx: RequestContext, access: SiteAccess, group: GroupRow) => toGroup(ctx, sectionView(ctx.db, access), group);

function create(ctx: RequestContext, access: SiteAccess) {
  const body = siteBody(ctx, 'siteSectionGroup.create');
  const group = insertGroup(ctx.db, access.site.id, { title: body.title, icon: body.icon, sections: body.sections }, ctx.now());
  return new Reply(201, groupResponse(ctx, access, group));
}

function update(ctx: RequestContext, access: SiteAccess, group: GroupRow) {
  const body = siteBody(ctx, 'siteSectionGroup.update');
  return groupResponse(ctx, access, updateGroup(ctx.db, group, { title: body.title, icon: body.icon }));
}

function addSection(ctx: RequestContext) {
  const access = loadSite(ctx, 'admin');
  const group = groupOfPath(ctx, access);
  const body = siteBody(ctx, 'siteSectionGroup.addSection');
  addToGroup(ctx.db, group, [body.sectionId], () => 'sectionId');
  return groupResponse(ctx, access, group);
}

function removeSection(ctx: RequestContext) {
  const access = loadSite(ctx, 'admin');
  const group = groupOfPath(ctx, access);
  const section = loadSection(ctx.db, access.site, ctx.params.siteSectionId);
  if (section.section_group_id !== group.id) throw notFound('Site section in this group');
  ungroupSection(ctx.db, section.id);
}

function moveGroup(ctx: RequestContext) {
  const access = loadSite(ctx, 'admin');
  const group = groupOfPath(ctx, access);
  const body = siteBody(ctx, 'siteSectionGroup.move', { optional: true });
  const target = resolvePosition(ctx.db, access.site, body.position, 'id');
  placeInSite(ctx.db, access.site.id, { table: 'site_section_groups', id: group.id }, target);
  return groupResponse(ctx, access, group);
}

export function register(router: Router, _services: UpstreamServices) {
  const base = registerSiteList(router, {
    path: 'section-groups',
    param: 'siteSectionGroupId',
    table: SITE_SECTION_GROUPS,
    readRole: 'read',
    show: (ctx, access) => {
      const view = sectionView(ctx.db, access);
      return (row: GroupRow) => toGroup(ctx, view, row);
    },
    create: ['POST', create],
    update: ['PATCH', update],
  });
  router.post(`${base}/{siteSectionGroupId}/sections`, addSection);
  router.delete(`${base}/{siteSectionGroupId}/sections/{siteSectionId}`, removeSection);
  router.post(`${base}/{siteSectionGroupId}/move`, moveGroup);
}
