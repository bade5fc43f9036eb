/**
 * Site section groups (`/orgs/{organizationId}/sites/{siteId}/section-groups`): named groups of
 * sections. A section is in at most one group; deleting a group leaves its sections ungrouped.
 */
import type { RequestContext, UpstreamServices } from '../context.js';
import type { Db } from '../db/index.js';
import { badRequest, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import { loadSection, placeInSite, resolvePosition, sectionView, toSiteSection, type SectionView } from '../domain/siteSections.js';
import { nextPosition, type SectionRow } from '../domain/siteSpaces.js';
import { loadSite, setColumns, siteBody, type SiteAccess, type SiteRow } from '../domain/sites.js';

interface GroupRow {
  id: string;
  site_id: string;
  title: string;
  icon: string | null;
  position: number;
  created_at: string;
}

function toGroup(ctx: RequestContext, view: SectionView, row: GroupRow) {
  const sections = ctx.db
    .prepare('SELECT * FROM site_sections WHERE section_group_id = ? ORDER BY position, id')
    .all(row.id) as SectionRow[];
  return {
    object: 'site-section-group' as const,
    id: row.id,
    title: row.title,
    sections: sections.map((s) => toSiteSection(ctx, view, s)),
    ...(row.icon !== null ? { icon: row.icon } : {}),
  };
}

type Group = ReturnType<typeof toGroup>;

function loadGroup(db: Db, site: SiteRow, groupId: string): GroupRow {
  const row = db.prepare('SELECT * FROM site_section_groups WHERE id = ? AND site_id = ?').get(groupId, site.id) as
    | GroupRow
    | undefined;
  if (!row) throw notFound('Site section group');
  return row;
}

function groupResponse(ctx: RequestContext, access: SiteAccess, groupId: string) {
  return toGroup(ctx, sectionView(ctx.db, access), loadGroup(ctx.db, access.site, groupId));
}

/** Puts sections of the site into the group (leaving any other group); 400 naming `field(i)` for others. */
function addToGroup(db: Db, site: SiteRow, sectionIds: string[], groupId: string, field: (i: number) => string) {
  sectionIds.forEach((id, i) => {
    if (!db.prepare('SELECT 1 FROM site_sections WHERE id = ? AND site_id = ?').get(id, site.id))
      throw badRequest(`${field(i)}: is not a section of this site`);
  });
  const update = db.prepare('UPDATE site_sections SET section_group_id = ? WHERE id = ?');
  for (const id of sectionIds) update.run(groupId, id);
}

function createGroup(ctx: RequestContext) {
  const access = loadSite(ctx, 'admin');
  const body = siteBody(ctx, 'siteSectionGroup.create');
  const id = newId();
  ctx.db.transaction(() => {
    ctx.db
      .prepare('INSERT INTO site_section_groups (id, site_id, title, icon, position, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, access.site.id, body.title, body.icon ?? null, nextPosition(ctx.db, access.site.id), ctx.now());
    addToGroup(ctx.db, access.site, body.sections ?? [], id, (i) => `sections[${i}]`);
  })();
  return new Reply(201, groupResponse(ctx, access, id));
}

function addSection(ctx: RequestContext) {
  const access = loadSite(ctx, 'admin');
  const group = loadGroup(ctx.db, access.site, ctx.params.siteSectionGroupId);
  const body = siteBody(ctx, 'siteSectionGroup.addSection');
  addToGroup(ctx.db, access.site, [body.sectionId], group.id, () => 'sectionId');
  return groupResponse(ctx, access, group.id);
}

function removeSection(ctx: RequestContext) {
  const { site } = loadSite(ctx, 'admin');
  const group = loadGroup(ctx.db, site, ctx.params.siteSectionGroupId);
  const section = loadSection(ctx.db, site, ctx.params.siteSectionId);
  if (section.section_group_id !== group.id) throw notFound('Site section in this group');
  ctx.db.prepare('UPDATE site_sections SET section_group_id = NULL WHERE id = ?').run(section.id);
}

function moveGroup(ctx: RequestContext) {
  const access = loadSite(ctx, 'admin');
  const group = loadGroup(ctx.db, access.site, ctx.params.siteSectionGroupId);
  const body = siteBody(ctx, 'siteSectionGroup.move', { optional: true });
  const target = resolvePosition(ctx.db, access.site, body.position, 'id');
  placeInSite(ctx.db, access.site.id, { table: 'site_section_groups', id: group.id }, target);
  return groupResponse(ctx, access, group.id);
}

export function register(router: Router, _services: UpstreamServices) {
  const base = '/orgs/{organizationId}/sites/{siteId}/section-groups';
  router.get(base, (ctx) => {
    const access = loadSite(ctx, 'read');
    const view = sectionView(ctx.db, access);
    return paginate<GroupRow, Group>(ctx, {
      from: 'site_section_groups WHERE site_id = ?',
      params: [access.site.id],
      orderBy: ['position', 'id'],
      map: (row) => toGroup(ctx, view, row),
    });
  });
  router.post(base, createGroup);
  router.patch(`${base}/{siteSectionGroupId}`, (ctx) => {
    const access = loadSite(ctx, 'admin');
    const group = loadGroup(ctx.db, access.site, ctx.params.siteSectionGroupId);
    const body = siteBody(ctx, 'siteSectionGroup.update');
    setColumns(ctx.db, 'site_section_groups', ['id', group.id], { title: body.title, icon: body.icon });
    return groupResponse(ctx, access, group.id);
  });
  router.delete(`${base}/{siteSectionGroupId}`, (ctx) => {
    const { site } = loadSite(ctx, 'admin');
    ctx.db.prepare('DELETE FROM site_section_groups WHERE id = ?').run(loadGroup(ctx.db, site, ctx.params.siteSectionGroupId).id);
  });
  router.post(`${base}/{siteSectionGroupId}/sections`, addSection);
  router.delete(`${base}/{siteSectionGroupId}/sections/{siteSectionId}`, removeSection);
  router.post(`${base}/{siteSectionGroupId}/move`, moveGroup);
}
