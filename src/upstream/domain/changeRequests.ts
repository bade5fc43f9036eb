/** Change requests: lookup (by id or number) with the caller's role, and the seed's shape. */
import type { Role } from '../../api/roles.js';
import type { RequestContext } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { isOutdated, type ChangeRequestRow } from '../content/merge.js';
import { loadSpace, type SpaceRow } from './spaces.js';
import { userById } from './users.js';

function openComments(ctx: RequestContext, changeRequestId: string): number {
  const row = ctx.db
    .prepare(`SELECT COUNT(*) AS n FROM comments WHERE change_request_id = ? AND status = 'open'`)
    .get(changeRequestId) as { n: number };
  return row.n;
}

/** The seed's Change request shape. */
export function toChangeRequest(ctx: RequestContext, row: ChangeRequestRow, space: SpaceRow) {
  return {
    object: 'change-request' as const,
    id: row.id,
    number: row.number,
    status: row.status,
    subject: row.subject,
    createdBy: userById(ctx, row.created_by),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    space: row.space_id,
    revision: row.revision_id,
    revisionInitial: row.revision_initial,
    ...(row.revision_merged_ancestor ? { revisionMergedAncestor: row.revision_merged_ancestor } : {}),
    ...(row.revision_merged ? { revisionMerged: row.revision_merged } : {}),
    comments: openComments(ctx, row.id),
    outdated: isOutdated(row, space.revision_id),
    urls: {
      app: `${ctx.appBase}/s/${space.id}/~/changes/${row.number}`,
      location: `${ctx.apiBase}/spaces/${space.id}/change-requests/${row.id}`,
    },
  };
}

export type ChangeRequest = ReturnType<typeof toChangeRequest>;

function findChangeRequest(ctx: RequestContext, spaceId: string, changeRequestId: string): ChangeRequestRow {
  const byNumber = /^[1-9]\d{0,15}$/.test(changeRequestId) ? Number(changeRequestId) : null;
  const row = ctx.db
    .prepare('SELECT * FROM change_requests WHERE space_id = ? AND (id = ? OR number = ?)')
    .get(spaceId, changeRequestId, byNumber) as ChangeRequestRow | undefined;
  if (!row) throw notFound('Change request');
  return row;
}

/** The change request of the path (`{changeRequestId}` is its id or its number), with its space and the caller's role. */
export function loadChangeRequest(ctx: RequestContext, min: Role = 'read') {
  const { row: space, role } = loadSpace(ctx, ctx.params.spaceId, min, { members: true });
  return { space, role, cr: findChangeRequest(ctx, space.id, ctx.params.changeRequestId) };
}

/** Content writes need the space's `edit` / `merge` permission: the role, and a space that is not locked. */
export function requireUnlocked(space: SpaceRow) {
  if (space.edit_mode === 'locked') throw forbidden('The space is locked (editMode locked): its content cannot change');
}

/** The change request as stored now (after a write). */
export function reloadChangeRequest(ctx: RequestContext, changeRequestId: string, space: SpaceRow) {
  const row = ctx.db.prepare('SELECT * FROM change_requests WHERE id = ?').get(changeRequestId) as ChangeRequestRow;
  return toChangeRequest(ctx, row, space);
}