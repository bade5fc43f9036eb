/** Site section groups: named groups of sections. A section is in at most one group; deleting a group leaves its sections ungrouped. */
import { setColumns } from '../db/columns.js';
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { badRequest } from '../errors.js';
import { newId } from '../ids.js';
import { loadOwned, type OwnedTable } from './owned.js';
import { isSectionOf, toSiteSection, type SectionView } from './siteSections.js';
import { nextPosition, type SectionRow } from './siteSpaces.js';

export interface GroupRow {
  id: string;
  site_id: string;
  title: string;
  icon: string | null;
  position: number;
  created_at: string;
}

/** Groups share the site's order with sections. */
export const SITE_SECTION_GROUPS: OwnedTable = {
  table: 'site_section_groups',
  owner: 'site_id',
  what: 'Site section group',
  orderBy: ['position', 'id'],
};

export function toGroup(ctx: RequestContext, view: SectionView, row: GroupRow) {
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

export const loadGroup = (db: Db, siteId: string, groupId: string) => loadOwned<GroupRow>(db, SITE_SECTION_GROUPS, siteId, groupId);

/** Puts sections of the site into the group (leaving any other group); 400 naming `field(i)` for others. */
export function addToGroup(db: Db, group: GroupRow, sectionIds: string[], field: (i: number) => string) {
  sectionIds.forEach((id, i) => {
    if (!isSectionOf(db, group.site_id, id)) throw badRequest(`${field(i)}: is not a section of this site`);
  });
  const update = db.prepare('UPDATE site_sections SET section_group_id = ? WHERE id = ?');
  for (const id of sectionIds) update.run(group.id, id);
}

/** A group at the end of the site's order, with `sections` of the site (400 naming `sections[i]` for others). */
export function insertGroup(
  db: Db,
  siteId: string,
  input: { title: string; icon?: string | null; sections?: string[] },
  now: string,
): GroupRow {
  const id = newId();
  return db.transaction(() => {
    db.prepare('INSERT INTO site_section_groups (id, site_id, title, icon, position, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      id,
      siteId,
      input.title,
      input.icon ?? null,
      nextPosition(db, siteId),
      now,
    );
    const group = loadGroup(db, siteId, id);
    addToGroup(db, group, input.sections ?? [], (i) => `sections[${i}]`);
    return group;
  })();
}

export function updateGroup(db: Db, group: GroupRow, changes: { title?: string; icon?: string | null }): GroupRow {
  setColumns(db, 'site_section_groups', ['id', group.id], changes);
  return loadGroup(db, group.site_id, group.id);
}

export function ungroupSection(db: Db, sectionId: string): void {
  db.prepare('UPDATE site_sections SET section_group_id = NULL WHERE id = ?').run(sectionId);
}
