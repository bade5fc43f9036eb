/**
 * Site sections (`/orgs/{organizationId}/sites/{siteId}/sections`): each section publishes one
 * or more site spaces (space variants). Sections and section groups share one order per site.
 */
import { SITE_SECTION_TITLE_MIN } from '../../api/bodies/sites.js';
import type { Role } from '../../api/roles.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import type { Db } from '../db/index.js';
import { badRequest, conflict, lookupField, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import { loadSite, setColumns, siteBody, siteUrl, type SiteAccess, type SiteRow } from './sites.js';
import { loadSpace, toSpace, type SpaceRow } from './spaces.js';

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

interface SiteSpaceRow {
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
    db.prepare(
      `INSERT INTO site_sections (id, site_id, title, path, position, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(id, input.siteId, title, path, nextPosition(db, input.siteId), now);
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

/** A section of the site, or 404. */
export function loadSection(db: Db, site: SiteRow, sectionId: string): SectionRow {
  const row = db.prepare('SELECT * FROM site_sections WHERE id = ? AND site_id = ?').get(sectionId, site.id) as
    | SectionRow
    | undefined;
  if (!row) throw notFound('Site section');
  return row;
}

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
  if (!db.prepare('SELECT 1 FROM site_sections WHERE id = ? AND site_id = ?').get(sectionId, site.id))
    throw badRequest(`position.${side}.${field}: is not a section of this site`);
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
  const first = db
    .prepare('SELECT id FROM site_sections WHERE site_id = ? ORDER BY position, id LIMIT 1')
    .get(access.site.id) as { id: string } | undefined;
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

/** The section's site spaces whose space is not deleted (a deleted space is not published; restored, it is again). */
export const LIVE_SITE_SPACES = `site_spaces ss JOIN spaces s ON s.id = ss.space_id WHERE s.deleted_at IS NULL`;

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
