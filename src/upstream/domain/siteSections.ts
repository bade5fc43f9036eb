/** Site sections: lookup, order moves, and the SiteSection / SiteSpace shapes. */
import { setColumns } from '../db/columns.js';
import type { Role } from '../../api/roles.js';
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { badRequest, conflict } from '../errors.js';
import type { ListSpec } from '../pagination.js';
import { loadOwned, ownedRows, type OwnedTable } from './owned.js';
import { siteUrl, type SiteAccess, type SiteRow } from './sites.js';
import { toSpace, type SpaceRow } from './spaces.js';
import { LIVE_SITE_SPACES, type SectionRow, type SiteSpaceRow } from './siteSpaces.js';

/** Whether the section is one of the site's. */
export const isSectionOf = (db: Db, siteId: string, sectionId: string) =>
  Boolean(db.prepare('SELECT 1 FROM site_sections WHERE id = ? AND site_id = ?').get(sectionId, siteId));

const SITE_SECTIONS: OwnedTable = { table: 'site_sections', owner: 'site_id', what: 'Site section', orderBy: ['position', 'id'] };

/** A section of the site, or 404. */
export const loadSection = (db: Db, site: SiteRow, sectionId: string) => loadOwned<SectionRow>(db, SITE_SECTIONS, site.id, sectionId);

// ---------------------------------------------------------------------------------------------
// Order of sections and groups

export type PointerField = 'siteSection' | 'id';
export interface Position {
  before?: Record<string, string>;
  after?: Record<string, string>;
}

/** The section a move position points at (undefined: the end of the site); 400 when invalid. */
export function resolvePosition(db: Db, site: SiteRow, position: Position | undefined, field: PointerField) {
  if (!position || (!position.before && !position.after)) return undefined;
  const side = position.before ? 'before' : 'after';
  const sectionId = position[side]![field];
  if (!isSectionOf(db, site.id, sectionId)) throw badRequest(`position.${side}.${field}: is not a section of this site`);
  return { sectionId, after: side === 'after' };
}

/**
 * Moves a section or group before / after a section (or to the end of the site) and renumbers
 * the site's order.
 */
export function placeInSite(
  db: Db,
  siteId: string,
  moved: { table: 'site_sections' | 'site_section_groups'; id: string },
  target: { sectionId: string; after: boolean } | undefined,
): void {
  const items = db
    .prepare(
      `SELECT 'site_sections' AS tbl, id, position FROM site_sections WHERE site_id = ? UNION ALL
       SELECT 'site_section_groups', id, position FROM site_section_groups WHERE site_id = ?
       ORDER BY position, id`,
    )
    .all(siteId, siteId) as Array<{ tbl: string; id: string }>;
  const order = items.filter((i) => !(i.tbl === moved.table && i.id === moved.id));
  const at = target ? order.findIndex((i) => i.tbl === 'site_sections' && i.id === target.sectionId) : -1;
  const entry = { tbl: moved.table, id: moved.id };
  if (at < 0) order.push(entry);
  else order.splice(target!.after ? at + 1 : at, 0, entry);
  db.transaction(() => {
    order.forEach((item, i) => db.prepare(`UPDATE ${item.tbl} SET position = ? WHERE id = ?`).run(i + 1, item.id));
  })();
}

// ---------------------------------------------------------------------------------------------
// Shapes

/** What serializing sections of one site needs, computed once per request. */
export interface SectionView {
  access: SiteAccess;
  defaultSectionId: string | null;
}

export function sectionView(db: Db, access: SiteAccess): SectionView {
  const first = db.prepare('SELECT id FROM site_sections WHERE site_id = ? ORDER BY position, id LIMIT 1').get(access.site.id) as
    { id: string } | undefined;
  return { access, defaultSectionId: access.site.default_section_id ?? first?.id ?? null };
}

/** Absolute URL of a section: the site's root for the default section, else `<site>/<path>` (path segments encoded). */
export function sectionUrl(ctx: RequestContext, view: SectionView, row: SectionRow): string {
  const root = siteUrl(ctx, view.access.site);
  return row.id === view.defaultSectionId ? root : `${root}/${row.path.split('/').map(encodeURIComponent).join('/')}`;
}

function spaceOf(ctx: RequestContext, spaceId: string): SpaceRow {
  return ctx.db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceId) as SpaceRow;
}

function toSiteSpace(ctx: RequestContext, view: SectionView, section: SectionRow, row: SiteSpaceRow, isDefault: boolean) {
  const base = sectionUrl(ctx, view, section);
  // A share-key reader sees the spaces of the site with the read role it opens.
  const role: Role | undefined = view.access.role ? undefined : 'read';
  return {
    object: 'site-space' as const,
    id: row.id,
    path: row.path,
    section: section.id,
    space: toSpace(ctx, spaceOf(ctx, row.space_id), role),
    title: row.title,
    default: isDefault,
    ...(row.condition ? { condition: row.condition } : {}),
    hasAdvancedCustomizationFeature: false,
    urls: view.access.site.published ? { published: isDefault ? base : `${base}/${row.path}` } : {},
  };
}

export function toSiteSection(ctx: RequestContext, view: SectionView, row: SectionRow) {
  const spaces = ctx.db
    .prepare(`SELECT ss.* FROM ${LIVE_SITE_SPACES} AND ss.section_id = ? ORDER BY ss.position, ss.id`)
    .all(row.id) as SiteSpaceRow[];
  const defaultSpaceId = row.default_site_space_id ?? spaces[0]?.id;
  return {
    object: 'site-section' as const,
    id: row.id,
    title: row.title,
    ...(row.description !== null ? { description: row.description } : {}),
    default: row.id === view.defaultSectionId,
    path: row.path,
    ...(row.condition !== null ? { condition: row.condition } : {}),
    ...(row.section_group_id ? { sectionGroup: row.section_group_id } : {}),
    siteSpaces: spaces.map((s) => toSiteSpace(ctx, view, row, s, s.id === defaultSpaceId)),
    urls: view.access.site.published ? { published: sectionUrl(ctx, view, row) } : {},
    ...(row.icon !== null ? { icon: row.icon } : {}),
  };
}

export type SiteSection = ReturnType<typeof toSiteSection>;
/** The sections of the site of `view`, in the site's order. */
export const sectionsOf = (ctx: RequestContext, view: SectionView): ListSpec<SectionRow, SiteSection> =>
  ownedRows(SITE_SECTIONS, view.access.site.id, (row: SectionRow) => toSiteSection(ctx, view, row));

/**
 * Sets the given fields of a section (undefined keeps one, null clears it): 400 when
 * `defaultSiteSpace` is not one of its site spaces, 409 when `path` is another section's.
 */
export function updateSection(
  db: Db,
  section: SectionRow,
  changes: {
    title?: string;
    path?: string;
    defaultSiteSpace?: string;
    condition?: string | null;
    icon?: string | null;
    description?: string | null;
  },
): void {
  if (
    changes.defaultSiteSpace !== undefined &&
    !db.prepare('SELECT 1 FROM site_spaces WHERE id = ? AND section_id = ?').get(changes.defaultSiteSpace, section.id)
  )
    throw badRequest('defaultSiteSpace: is not a site space of this section');
  if (
    changes.path !== undefined &&
    db.prepare('SELECT 1 FROM site_sections WHERE site_id = ? AND path = ? AND id != ?').get(section.site_id, changes.path, section.id)
  )
    throw conflict('path: is already the path of another section of this site');
  setColumns(db, 'site_sections', ['id', section.id], {
    title: changes.title,
    path: changes.path,
    default_site_space_id: changes.defaultSiteSpace,
    condition: changes.condition,
    icon: changes.icon,
    description: changes.description,
  });
}

export function deleteSection(db: Db, sectionId: string): void {
  db.prepare('DELETE FROM site_sections WHERE id = ?').run(sectionId);
}
