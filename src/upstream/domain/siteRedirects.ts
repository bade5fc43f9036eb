/** Site redirects: a source path of the site that redirects to a section. */
import { setColumns } from '../db/columns.js';
import type { Db } from '../db/index.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { loadOwned, type OwnedTable } from './owned.js';
import { isSectionOf } from './siteSections.js';

export interface RedirectRow {
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

export const SITE_REDIRECTS: OwnedTable = {
  table: 'site_redirects',
  owner: 'site_id',
  what: 'Site redirect',
  orderBy: ['created_at', 'id'],
};

export function toRedirect(row: RedirectRow) {
  return {
    object: 'site-redirect' as const,
    id: row.id,
    source: row.source,
    destination: { kind: 'site-section' as const, siteSectionId: row.destination_section_id },
    createdAt: row.created_at,
    ...(row.updated_at ? { updatedAt: row.updated_at } : {}),
  };
}

const loadRedirect = (db: Db, siteId: string, redirectId: string) => loadOwned<RedirectRow>(db, SITE_REDIRECTS, siteId, redirectId);

/** The site's redirect from `source` (404 otherwise). */
export function redirectFrom(db: Db, siteId: string, source: string): RedirectRow {
  const row = db.prepare('SELECT * FROM site_redirects WHERE site_id = ? AND source = ?').get(siteId, source) as RedirectRow | undefined;
  if (!row) throw notFound('Site redirect');
  return row;
}

/** 400 unless the destination is a section of the site; 409 when another redirect has the source. */
function checkRedirect(db: Db, siteId: string, input: { source?: string; destination?: Destination }, selfId = '') {
  const sectionId = input.destination?.siteSectionId;
  if (sectionId !== undefined && !isSectionOf(db, siteId, sectionId))
    throw badRequest('destination.siteSectionId: is not a section of this site');
  if (
    input.source !== undefined &&
    db.prepare('SELECT 1 FROM site_redirects WHERE site_id = ? AND source = ? AND id != ?').get(siteId, input.source, selfId)
  )
    throw conflict(`source: a redirect from ${input.source} already exists on this site`);
}

export function insertRedirect(db: Db, siteId: string, input: { source: string; destination: Destination }, now: string): RedirectRow {
  checkRedirect(db, siteId, input);
  const id = newId();
  db.prepare('INSERT INTO site_redirects (id, site_id, source, destination_section_id, created_at) VALUES (?, ?, ?, ?, ?)').run(
    id,
    siteId,
    input.source,
    input.destination.siteSectionId,
    now,
  );
  return loadRedirect(db, siteId, id);
}

export function updateRedirect(
  db: Db,
  row: RedirectRow,
  changes: { source?: string; destination?: Destination },
  now: string,
): RedirectRow {
  checkRedirect(db, row.site_id, changes, row.id);
  setColumns(db, 'site_redirects', ['id', row.id], {
    source: changes.source,
    destination_section_id: changes.destination?.siteSectionId,
    updated_at: now,
  });
  return loadRedirect(db, row.site_id, row.id);
}
