/**
 * Spaces: the Space shape and who may see it, the lifecycle (deleted → removed for good after
 * 7 days) and inserting a space with its first revision.
 */
import { setColumns } from '../db/columns.js';
import { atLeast, type Role } from '../../api/roles.js';
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { notFound, unauthorized } from '../errors.js';
import { newId } from '../ids.js';
import { contentRole, contentRoles, grantedSpacesFilter, requireRole } from '../access.js';
import { SPACE_RESTORE_DAYS } from '../../api/rules.js';
import { createRevision, pagesOf, type PageInput } from '../content/revisions.js';
import { shareKeyOpensSpace } from '../shareKeys.js';
import { endPosition } from './contentTree.js';
import { dropForeignGrants, dropGrants, grantCreator } from './grants.js';
import { dropForeignSiteSpaces } from './siteSpaces.js';
import type { ListSpec } from '../pagination.js';

export interface SpaceRow {
  id: string;
  organization_id: string;
  parent_id: string | null;
  title: string;
  emoji: string;
  visibility: string;
  edit_mode: string;
  default_level: Role;
  revision_id: string;
  position: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Spaces anyone may read, member or not. */
const OPEN_VISIBILITIES = new Set(['public', 'unlisted']);

/** The caller's role on a space (visibility and share key included); null when they cannot see it. */
export function spaceRole(ctx: RequestContext, row: SpaceRow, shareKey?: string): Role | null {
  return withVisibility(ctx, row, contentRole(ctx.db, { type: 'space', ...row }, ctx.caller?.id), shareKey);
}

/** spaceRole for the rows of a list (see contentRoles). */
export function spaceRoles(ctx: RequestContext): (row: SpaceRow) => Role | null {
  const roles = contentRoles(ctx.db, ctx.caller?.id);
  return (row) => withVisibility(ctx, row, roles({ type: 'space', ...row }));
}

/** The caller's content role on the space, or read when its visibility or the share key opens it. */
function withVisibility(ctx: RequestContext, row: SpaceRow, role: Role | null, shareKey?: string): Role | null {
  if (role) return role;
  if (OPEN_VISIBILITIES.has(row.visibility)) return 'read';
  if (shareKey && shareKeyOpensSpace(ctx.db, shareKey, row.id)) return 'read';
  return null;
}

/** Deletes a space and everything in it (revisions, change requests, comments, grants). */
function removeForGood(db: Db, spaceId: string): void {
  db.transaction(() => {
    dropGrants(db, { type: 'space', id: spaceId });
    db.prepare('DELETE FROM spaces WHERE id = ?').run(spaceId);
  })();
}

/** Removes for good the spaces of an organization deleted more than 7 days ago. */
export function purgeExpiredSpaces(ctx: RequestContext, organizationId: string): void {
  const cutoff = new Date(ctx.services.clock.now().getTime() - SPACE_RESTORE_DAYS * DAY_MS).toISOString();
  const expired = ctx.db
    .prepare('SELECT id FROM spaces WHERE organization_id = ? AND deleted_at IS NOT NULL AND deleted_at < ?')
    .all(organizationId, cutoff) as Array<{ id: string }>;
  for (const { id } of expired) removeForGood(ctx.db, id);
}

/** True when a deleted space is past its restore window. */
export function isExpired(ctx: RequestContext, row: SpaceRow): boolean {
  return Boolean(row.deleted_at && ctx.services.clock.now().getTime() - Date.parse(row.deleted_at) > SPACE_RESTORE_DAYS * DAY_MS);
}

/**
 * The space with the caller's role, checking `min` (404 when the caller cannot see it, 403 when
 * the role is too low). Deleted spaces are found only with `deleted: true`, and only by their
 * admins; a space deleted more than 7 days ago is removed for good on first sight. A caller
 * without a token whom no visibility or share key lets in gets 401 (as for sites), not 404.
 * With `members`, only roles from membership and grants count: a public visibility or a share key
 * opens the published content, not the work on it (change requests, comments, permissions).
 */
export function loadSpace(
  ctx: RequestContext,
  spaceId: string,
  min: Role = 'read',
  options: { shareKey?: string; deleted?: boolean; members?: boolean } = {},
): { row: SpaceRow; role: Role } {
  // Without a token, whatever the caller is not let into is a 401 (so existence is not told either).
  const hidden = () => (ctx.caller ? notFound('Space') : unauthorized('A valid access token or share key is required'));
  const row = ctx.db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceId) as SpaceRow | undefined;
  if (!row) throw hidden();
  if (row.deleted_at && isExpired(ctx, row)) {
    removeForGood(ctx.db, row.id);
    throw hidden();
  }
  if (row.deleted_at && !options.deleted) throw hidden();
  const role = options.members ? contentRole(ctx.db, { type: 'space', ...row }, ctx.caller?.id) : spaceRole(ctx, row, options.shareKey);
  // A deleted space exists only for its admins (who may restore it).
  if (!role || (row.deleted_at && !atLeast(role, 'admin'))) throw hidden();
  return { row, role: requireRole(role, min, 'Space') };
}

function spaceCounts(db: Db, spaceId: string) {
  const cr = db
    .prepare(
      `SELECT COUNT(*) AS total, SUM(status = 'open') AS open, SUM(status = 'draft') AS draft
       FROM change_requests WHERE space_id = ?`,
    )
    .get(spaceId) as { total: number; open: number | null; draft: number | null };
  const comments = db.prepare(`SELECT COUNT(*) AS n FROM comments WHERE space_id = ? AND status = 'open'`).get(spaceId) as { n: number };
  return { comments: comments.n, changeRequests: cr.total, changeRequestsOpen: cr.open ?? 0, changeRequestsDraft: cr.draft ?? 0 };
}

/** The seed's Space shape, with `permissions` computed from the caller's role. */
export function toSpace(ctx: RequestContext, row: SpaceRow, role?: Role | null) {
  const r = role === undefined ? spaceRole(ctx, row) : role;
  const published = row.visibility !== 'private' ? `${ctx.services.origin()}/published/s/${row.id}` : undefined;
  return {
    object: 'space' as const,
    id: row.id,
    title: row.title,
    emoji: row.emoji,
    visibility: row.visibility,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.deleted_at ? { deletedAt: row.deleted_at } : {}),
    editMode: row.edit_mode,
    urls: {
      location: `${ctx.apiBase}/spaces/${row.id}`,
      app: `${ctx.appBase}/s/${row.id}`,
      ...(published ? { published } : {}),
      ...(row.visibility === 'public' ? { public: published } : {}),
    },
    organization: row.organization_id,
    ...(row.parent_id ? { parent: row.parent_id } : {}),
    revision: row.revision_id,
    defaultLevel: row.default_level,
    ...spaceCounts(ctx.db, row.id),
    mergeRules: { type: 'inherit' as const },
    permissions: {
      access: atLeast(r, 'read'),
      admin: atLeast(r, 'admin'),
      edit: atLeast(r, 'edit') && row.edit_mode !== 'locked',
      comment: atLeast(r, 'comment'),
      merge: atLeast(r, 'edit') && row.edit_mode !== 'locked',
      review: atLeast(r, 'review'),
    },
  };
}

export type Space = ReturnType<typeof toSpace>;

export const DEFAULT_PAGES: PageInput[] = [{ title: 'Introduction', markdown: '# Introduction\n\nWelcome to this space.\n' }];

/** Inserts a space (at the end of its organization / collection) with a first revision. */
export function insertSpace(
  db: Db,
  now: string,
  input: {
    organizationId: string;
    parentId?: string | null;
    title?: string;
    emoji?: string;
    visibility?: string;
    defaultLevel?: Role;
    pages?: PageInput[];
  },
): SpaceRow {
  const id = newId();
  db.transaction(() => {
    const revisionId = newId();
    db.prepare(
      `INSERT INTO spaces (id, organization_id, parent_id, title, emoji, visibility, default_level, revision_id, position, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      input.organizationId,
      input.parentId ?? null,
      input.title ?? '',
      input.emoji ?? '',
      input.visibility ?? (input.parentId ? 'in-collection' : 'private'),
      input.defaultLevel ?? 'read',
      revisionId,
      endPosition(db, input.organizationId),
      now,
      now,
    );
    const rev = createRevision(db, id, null, input.pages ?? DEFAULT_PAGES, now);
    db.prepare('UPDATE spaces SET revision_id = ? WHERE id = ?').run(rev, id);
  })();
  return db.prepare('SELECT * FROM spaces WHERE id = ?').get(id) as SpaceRow;
}

/** A space row by id (after a write). */
export const spaceById = (db: Db, spaceId: string) => db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceId) as SpaceRow;

/** A title with ` (copy)` appended, shortened to fit the 50-character limit. */
export function copyTitle(title: string): string {
  const suffix = ' (copy)';
  const chars = [...title];
  return chars.slice(0, 50 - suffix.length).join('') + suffix;
}
// ---------------------------------------------------------------------------------------------
// Writes

/** Creates a space for the caller in the organization (or a collection of it); the creator administers it. */
export function createSpaceFor(
  ctx: RequestContext,
  organizationId: string,
  input: { parentId: string | null; title?: string; emoji?: string },
): SpaceRow {
  return ctx.db.transaction(() => {
    const inserted = insertSpace(ctx.db, ctx.now(), { organizationId, ...input });
    grantCreator(ctx, { type: 'space', id: inserted.id, organization_id: organizationId });
    return inserted;
  })();
}

/** Sets the given settings (undefined keeps one) and bumps `updatedAt`. */
export function updateSpaceSettings(
  db: Db,
  row: SpaceRow,
  changes: { title?: string; emoji?: string; defaultLevel?: Role; editMode?: string },
  now: string,
): SpaceRow {
  setColumns(db, 'spaces', ['id', row.id], {
    title: changes.title,
    emoji: changes.emoji,
    default_level: changes.defaultLevel,
    edit_mode: changes.editMode,
    updated_at: now,
  });
  return spaceById(db, row.id);
}

/** A new space beside the original with its title, emoji, settings and current pages (page ids kept, so `page:` links still resolve). */
export function duplicateSpace(ctx: RequestContext, row: SpaceRow): SpaceRow {
  const pages: PageInput[] = pagesOf(ctx.db, row.revision_id).map((p) => ({
    page_id: p.page_id,
    title: p.title,
    emoji: p.emoji,
    path: p.path,
    markdown: p.markdown,
  }));
  const copy = ctx.db.transaction(() => {
    const inserted = insertSpace(ctx.db, ctx.now(), {
      organizationId: row.organization_id,
      parentId: row.parent_id,
      title: copyTitle(row.title),
      emoji: row.emoji,
      visibility: row.visibility,
      defaultLevel: row.default_level,
      pages,
    });
    ctx.db.prepare('UPDATE spaces SET edit_mode = ? WHERE id = ?').run(row.edit_mode, inserted.id);
    grantCreator(ctx, { type: 'space', id: inserted.id, organization_id: row.organization_id });
    return inserted;
  })();
  return spaceById(ctx.db, copy.id);
}

/** Moves a space in its organization's tree; `in-collection` becomes `private` at the root. */
export function moveSpace(db: Db, row: SpaceRow, to: { parentId: string | null; position: number }, now: string): SpaceRow {
  const visibility = !to.parentId && row.visibility === 'in-collection' ? 'private' : row.visibility;
  db.prepare('UPDATE spaces SET parent_id = ?, position = ?, visibility = ?, updated_at = ? WHERE id = ?').run(
    to.parentId,
    to.position,
    visibility,
    now,
    row.id,
  );
  return spaceById(db, row.id);
}

/** To the root of another organization; grants that make no sense there, and other organizations' sites publishing it, are dropped. */
export function transferSpace(db: Db, row: SpaceRow, organizationId: string, now: string): SpaceRow {
  db.transaction(() => {
    db.prepare(
      `UPDATE spaces SET organization_id = ?, parent_id = NULL, position = ?, updated_at = ?,
         visibility = CASE visibility WHEN 'in-collection' THEN 'private' ELSE visibility END
       WHERE id = ?`,
    ).run(organizationId, endPosition(db, organizationId), now, row.id);
    dropForeignGrants(db, organizationId, [{ type: 'space', id: row.id }]);
    dropForeignSiteSpaces(db, organizationId, [row.id]);
  })();
  return spaceById(db, row.id);
}

/** Soft delete: `deletedAt` is set; the space can be restored for 7 days. */
export function softDeleteSpace(db: Db, spaceId: string, now: string): void {
  db.prepare('UPDATE spaces SET deleted_at = ? WHERE id = ?').run(now, spaceId);
}

export function restoreSpace(db: Db, spaceId: string, now: string): SpaceRow {
  db.prepare('UPDATE spaces SET deleted_at = NULL, updated_at = ? WHERE id = ?').run(now, spaceId);
  return spaceById(db, spaceId);
}

/** True when `revisionId` is a revision of the space. */
export const isRevisionOf = (db: Db, revisionId: string, spaceId: string) =>
  Boolean(db.prepare('SELECT 1 FROM revisions WHERE id = ? AND space_id = ?').get(revisionId, spaceId));

/**
 * SQL (with its parameters) keeping the `spaces` rows of the organization the caller may see, when
 * their organization role does not show them all: open ones and those grantedSpacesFilter keeps.
 * An empty condition when it does.
 */
export function visibleSpacesFilter(ctx: RequestContext, organizationId: string): { sql: string; params: unknown[] } {
  const granted = grantedSpacesFilter(ctx.db, organizationId, ctx.caller?.id);
  if (!granted) return { sql: '', params: [] };
  const open = [...OPEN_VISIBILITIES].map((v) => `'${v}'`).join(', ');
  return { sql: ` AND (visibility IN (${open}) OR ${granted.sql})`, params: granted.params };
}

/** The list of a parent's live spaces the caller can see (`organization_id` or `parent_id` = `parentId`). */
export function visibleSpaces(ctx: RequestContext, column: 'organization_id' | 'parent_id', parentId: string): ListSpec<SpaceRow, Space> {
  const roleOf = spaceRoles(ctx);
  const organizationId =
    column === 'organization_id'
      ? parentId
      : ((ctx.db.prepare('SELECT organization_id FROM collections WHERE id = ?').get(parentId) as { organization_id: string } | undefined)
          ?.organization_id ?? '');
  const visible = visibleSpacesFilter(ctx, organizationId);
  return {
    from: `spaces WHERE ${column} = ? AND deleted_at IS NULL${visible.sql}`,
    params: [parentId, ...visible.params],
    orderBy: ['position', 'id'],
    filter: (row) => roleOf(row) !== null,
    map: (row) => toSpace(ctx, row, roleOf(row)),
  };
}
