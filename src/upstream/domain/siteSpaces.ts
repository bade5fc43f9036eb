/**
 * Site sections and site spaces as rows: inserting them (with unique paths), the order of a site,
 * and which site spaces are live.
 */
import type { Db } from '../db/index.js';
import { newId } from '../ids.js';
import { SITE_SECTION_TITLE_MIN } from '../../api/bodies/sites.js';
import type { SpaceRow } from './spaces.js';

export interface SectionRow {
  id: string;
  site_id: string;
  section_group_id: string | null;
  title: string;
  description: string | null;
  path: string;
  condition: string | null;
  icon: string | null;
  default_site_space_id: string | null;
  position: number;
  created_at: string;
}

export interface SiteSpaceRow {
  id: string;
  site_id: string;
  section_id: string;
  space_id: string;
  title: string;
  path: string;
  condition: string | null;
  position: number;
  created_at: string;
}

const FALLBACK_TITLE = 'Untitled';

// ---------------------------------------------------------------------------------------------
// Rows

/** A URL path segment from a title: lowercase ASCII words joined by `-`. */
function slugify(text: string, fallback: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90)
    .replace(/-+$/, '');
  return slug || fallback;
}

/** `base`, or `base-2`, `base-3`… : the first one `taken` does not report. */
function uniquePath(base: string, taken: (path: string) => boolean): string {
  let path = base;
  for (let n = 2; taken(path); n++) path = `${base}-${n}`;
  return path;
}

/** The next position at the end of the site (sections and groups share the sequence). */
export function nextPosition(db: Db, siteId: string): number {
  const { max } = db
    .prepare(
      `SELECT MAX(position) AS max FROM (
         SELECT position FROM site_sections WHERE site_id = ? UNION ALL
         SELECT position FROM site_section_groups WHERE site_id = ?)`,
    )
    .get(siteId, siteId) as { max: number | null };
  return (max ?? 0) + 1;
}

function spaceTitle(db: Db, spaceId: string): string {
  return (db.prepare('SELECT title FROM spaces WHERE id = ?').get(spaceId) as Pick<SpaceRow, 'title'>).title;
}

/** A section's title from its space's title (`Untitled` when shorter than a section title may be). */
function sectionTitle(db: Db, spaceId: string): string {
  const title = spaceTitle(db, spaceId);
  return [...title].length >= SITE_SECTION_TITLE_MIN ? title : FALLBACK_TITLE;
}

/** Adds a space to a section as a site space (variant), at the end of the section. */
export function insertSiteSpace(db: Db, now: string, input: { sectionId: string; spaceId: string }): string {
  const section = db.prepare('SELECT * FROM site_sections WHERE id = ?').get(input.sectionId) as SectionRow;
  const title = spaceTitle(db, input.spaceId);
  const taken = db.prepare('SELECT 1 FROM site_spaces WHERE section_id = ? AND path = ?');
  const path = uniquePath(slugify(title, 'variant'), (p) => Boolean(taken.get(section.id, p)));
  const { max } = db.prepare('SELECT MAX(position) AS max FROM site_spaces WHERE section_id = ?').get(section.id) as {
    max: number | null;
  };
  const id = newId();
  db.prepare(
    `INSERT INTO site_spaces (id, site_id, section_id, space_id, title, path, position, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, section.site_id, section.id, input.spaceId, title, path, (max ?? 0) + 1, now);
  return id;
}

/**
 * Creates a section at the end of the site with the space as its first site space; the first
 * section of a site becomes its default. The title defaults to the space's title.
 */
export function insertSection(db: Db, now: string, input: { siteId: string; spaceId: string; title?: string }): SectionRow {
  const id = newId();
  const title = input.title ?? sectionTitle(db, input.spaceId);
  const taken = db.prepare('SELECT 1 FROM site_sections WHERE site_id = ? AND path = ?');
  const path = uniquePath(slugify(title, 'section'), (p) => Boolean(taken.get(input.siteId, p)));
  db.transaction(() => {
    db.prepare(`INSERT INTO site_sections (id, site_id, title, path, position, created_at) VALUES (?, ?, ?, ?, ?, ?)`).run(
      id,
      input.siteId,
      title,
      path,
      nextPosition(db, input.siteId),
      now,
    );
    insertSiteSpace(db, now, { sectionId: id, spaceId: input.spaceId });
    db.prepare('UPDATE sites SET default_section_id = ? WHERE id = ? AND default_section_id IS NULL').run(id, input.siteId);
  })();
  return db.prepare('SELECT * FROM site_sections WHERE id = ?').get(id) as SectionRow;
}

/** After a transfer to `organizationId`: the sites of other organizations stop publishing the spaces. */
export function dropForeignSiteSpaces(db: Db, organizationId: string, spaceIds: string[]): void {
  const drop = db.prepare('DELETE FROM site_spaces WHERE space_id = ? AND site_id IN (SELECT id FROM sites WHERE organization_id != ?)');
  for (const id of spaceIds) drop.run(id, organizationId);
}

/** The section's site spaces whose space is not deleted (a deleted space is not published; restored, it is again). */
export const LIVE_SITE_SPACES = `site_spaces ss JOIN spaces s ON s.id = ss.space_id WHERE s.deleted_at IS NULL`;
