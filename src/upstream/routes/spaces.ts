/**
 * Spaces: the Space shape and who may see it, the space lifecycle (delete → restore within
 * 7 days → removed for good), duplicate, move, transfer and the links of the current revision.
 *
 * Roles per operation: read for GET, links and (with create in the organization or the parent
 * collection) duplicate; edit for any PATCH (`title`/`emoji`, or nothing); admin for PATCH `defaultLevel`/
 * `editMode` (they change who may do what), delete, restore, move and transfer.
 */
import { LINK_STATUSES, SPACE_RESTORE_DAYS } from '../../api/rules.js';
import { atLeast, type Role } from '../../api/roles.js';
import { contentRole, requireOrg, requireRole } from '../access.js';
import { linkStats } from '../content/links.js';
import { createRevision, pagesOf, type PageInput } from '../content/revisions.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import type { Db } from '../db/index.js';
import { badRequest, conflict, notFound, unauthorized } from '../errors.js';
import { newId } from '../ids.js';
import { arrayPage, paginate, paginateArray } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import { shareKeyOpensSpace } from '../shareKeys.js';
import { endPosition, placement, requireCreateIn, transferTarget } from './collections.js';
import { dropForeignGrants, dropGrants, grantCreator } from './permissions.js';
import { dropForeignSiteSpaces } from './siteSections.js';

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
  const role = contentRole(ctx.db, { type: 'space', ...row }, ctx.caller?.id);
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
  return Boolean(
    row.deleted_at && ctx.services.clock.now().getTime() - Date.parse(row.deleted_at) > SPACE_RESTORE_DAYS * DAY_MS,
  );
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
  const role = options.members
    ? contentRole(ctx.db, { type: 'space', ...row }, ctx.caller?.id)
    : spaceRole(ctx, row, options.shareKey);
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
  const comments = db
    .prepare(`SELECT COUNT(*) AS n FROM comments WHERE space_id = ? AND status = 'open'`)
    .get(spaceId) as { n: number };
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

export const DEFAULT_PAGES: PageInput[] = [
  { title: 'Introduction', markdown: '# Introduction\n\nWelcome to this space.\n' },
];

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

/** Fetches a space row after a write. */
const reread = (db: Db, spaceId: string) => db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceId) as SpaceRow;

function created(ctx: RequestContext, row: SpaceRow) {
  const body = toSpace(ctx, row);
  ctx.res.setHeader('location', body.urls.location);
  return new Reply(201, body);
}

/** A title with ` (copy)` appended, shortened to fit the 50-character limit. */
function copyTitle(title: string): string {
  const suffix = ' (copy)';
  const chars = [...title];
  return chars.slice(0, 50 - suffix.length).join('') + suffix;
}

/** Any PATCH (even `{}`) needs edit; `defaultLevel`/`editMode` need admin. */
function updateSpace(ctx: RequestContext) {
  const { row, role } = loadSpace(ctx, ctx.params.spaceId, 'edit');
  const body = ctx.body('space.update');
  if (body.defaultLevel !== undefined || body.editMode !== undefined) requireRole(role, 'admin', 'Space');
  ctx.db
    .prepare('UPDATE spaces SET title = ?, emoji = ?, default_level = ?, edit_mode = ?, updated_at = ? WHERE id = ?')
    .run(
      body.title ?? row.title,
      body.emoji ?? row.emoji,
      body.defaultLevel ?? row.default_level,
      body.editMode ?? row.edit_mode,
      ctx.now(),
      row.id,
    );
  return toSpace(ctx, reread(ctx.db, row.id));
}

/** A new space beside the original with its title, emoji, settings and current pages (page ids kept, so `page:` links still resolve). */
function duplicateSpace(ctx: RequestContext) {
  const { row } = loadSpace(ctx, ctx.params.spaceId, 'read');
  requireCreateIn(ctx, row.organization_id, row.parent_id, 'parent');
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
  return created(ctx, reread(ctx.db, copy.id));
}

function moveSpace(ctx: RequestContext) {
  const { row } = loadSpace(ctx, ctx.params.spaceId, 'admin');
  const { parentId, position } = placement(ctx, row, ctx.body('space.move'));
  const visibility = !parentId && row.visibility === 'in-collection' ? 'private' : row.visibility;
  ctx.db
    .prepare('UPDATE spaces SET parent_id = ?, position = ?, visibility = ?, updated_at = ? WHERE id = ?')
    .run(parentId, position, visibility, ctx.now(), row.id);
  return toSpace(ctx, reread(ctx.db, row.id));
}

/** To the root of another organization; grants that make no sense there, and other organizations' sites publishing it, are dropped. */
function transferSpace(ctx: RequestContext) {
  const { row } = loadSpace(ctx, ctx.params.spaceId, 'admin');
  const organizationId = transferTarget(ctx, row.organization_id, ctx.body('space.transfer').organization);
  ctx.db.transaction(() => {
    ctx.db
      .prepare(
        `UPDATE spaces SET organization_id = ?, parent_id = NULL, position = ?, updated_at = ?,
           visibility = CASE visibility WHEN 'in-collection' THEN 'private' ELSE visibility END
         WHERE id = ?`,
      )
      .run(organizationId, endPosition(ctx.db, organizationId), ctx.now(), row.id);
    dropForeignGrants(ctx.db, organizationId, [{ type: 'space', id: row.id }]);
    dropForeignSiteSpaces(ctx.db, organizationId, [row.id]);
  })();
  return toSpace(ctx, reread(ctx.db, row.id));
}

/** Links of the space's current revision; later pages keep to the revision of the first (revisions never change). */
function listLinks(ctx: RequestContext) {
  const { row } = loadSpace(ctx, ctx.params.spaceId, 'read');
  const status = ctx.query.enum('status', LINK_STATUSES);
  const revision = arrayPage(ctx)?.version ?? row.revision_id;
  if (!ctx.db.prepare('SELECT 1 FROM revisions WHERE id = ? AND space_id = ?').get(revision, row.id))
    throw badRequest('page: is not a valid page token');
  const { links, stats } = linkStats(ctx.db, revision, row.id, ctx.services.origin());
  return paginateArray(
    ctx,
    links.filter((l) => !status || l.status === status),
    { stats },
    revision,
  );
}

function createSpace(ctx: RequestContext) {
  const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.caller?.id);
  // `private` is deprecated (private spaces are no longer supported): accepted and ignored.
  const body = ctx.body('space.create', { optional: true });
  const parentId: string | null = body.parent ?? null;
  requireCreateIn(ctx, org.id, parentId, 'parent');
  const row = ctx.db.transaction(() => {
    const inserted = insertSpace(ctx.db, ctx.now(), { organizationId: org.id, parentId, title: body.title, emoji: body.emoji });
    grantCreator(ctx, { type: 'space', id: inserted.id, organization_id: org.id });
    return inserted;
  })();
  return created(ctx, row);
}

export function register(router: Router, _services: UpstreamServices) {
  router.get(
    '/spaces/{spaceId}',
    (ctx) => {
      const shareKey = ctx.query.string('shareKey');
      const { row, role } = loadSpace(ctx, ctx.params.spaceId, 'read', { shareKey, deleted: true });
      return toSpace(ctx, row, role);
    },
    { anonymous: true },
  );

  router.patch('/spaces/{spaceId}', updateSpace);

  /** Soft delete: `deletedAt` is set; the space can be restored for 7 days. */
  router.delete('/spaces/{spaceId}', (ctx) => {
    const { row } = loadSpace(ctx, ctx.params.spaceId, 'admin');
    ctx.db.prepare('UPDATE spaces SET deleted_at = ? WHERE id = ?').run(ctx.now(), row.id);
    return undefined;
  });

  router.post('/spaces/{spaceId}/restore', (ctx) => {
    const { row } = loadSpace(ctx, ctx.params.spaceId, 'admin', { deleted: true });
    if (!row.deleted_at) throw conflict('The space is not deleted');
    ctx.db.prepare('UPDATE spaces SET deleted_at = NULL, updated_at = ? WHERE id = ?').run(ctx.now(), row.id);
    return toSpace(ctx, reread(ctx.db, row.id));
  });

  router.post('/spaces/{spaceId}/duplicate', duplicateSpace);
  router.post('/spaces/{spaceId}/move', moveSpace);
  router.post('/spaces/{spaceId}/transfer', transferSpace);
  router.get('/spaces/{spaceId}/links', listLinks);

  router.get('/orgs/{organizationId}/spaces', (ctx) => {
    const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.caller?.id);
    purgeExpiredSpaces(ctx, org.id);
    return paginate<SpaceRow, Space>(ctx, {
      from: 'spaces WHERE organization_id = ? AND deleted_at IS NULL',
      params: [org.id],
      orderBy: ['position', 'id'],
      filter: (row) => spaceRole(ctx, row) !== null,
      map: (row) => toSpace(ctx, row),
    });
  });

  router.post('/orgs/{organizationId}/spaces', createSpace);
}
