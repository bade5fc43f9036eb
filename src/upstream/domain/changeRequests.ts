/** Change requests: lookup (by id or number) with the caller's role, and the seed's shape. */
import type { Role } from '../../api/roles.js';
import { copyRevision } from '../content/revisions.js';
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { conflict, forbidden, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { ListSpec } from '../pagination.js';
import { isOutdated, type ChangeRequestRow } from '../content/merge.js';
import { loadSpace, type SpaceRow } from './spaces.js';
import { userById } from './users.js';

function openComments(ctx: RequestContext, changeRequestId: string): number {
  const row = ctx.db.prepare(`SELECT COUNT(*) AS n FROM comments WHERE change_request_id = ? AND status = 'open'`).get(changeRequestId) as {
    n: number;
  };
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
export const changeRequestById = (db: Db, changeRequestId: string) =>
  db.prepare('SELECT * FROM change_requests WHERE id = ?').get(changeRequestId) as ChangeRequestRow | undefined;

/** The space's change requests with `status` (and `contributor` among their contributors), most recently updated first (the hosted API's order). */
export function changeRequestsOf(
  ctx: RequestContext,
  space: SpaceRow,
  status: string,
  contributor?: string,
): ListSpec<ChangeRequestRow, ChangeRequest> {
  const byContributor = contributor ? ' AND id IN (SELECT change_request_id FROM change_request_contributors WHERE user_id = ?)' : '';
  return {
    from: `change_requests WHERE space_id = ? AND status = ?${byContributor}`,
    params: contributor ? [space.id, status, contributor] : [space.id, status],
    orderBy: ['updated_at', 'id'],
    direction: 'desc',
    map: (row) => toChangeRequest(ctx, row, space),
  };
}

/** A draft change request numbered after the space's last one, on a copy of the space's revision; its creator is its first contributor. */
export function insertChangeRequest(db: Db, space: SpaceRow, input: { subject: string; userId: string }, now: string): string {
  const id = newId();
  db.transaction(() => {
    const { max } = db.prepare('SELECT MAX(number) AS max FROM change_requests WHERE space_id = ?').get(space.id) as { max: number | null };
    const revision = copyRevision(db, space.revision_id, space.id, now);
    db.prepare(
      `INSERT INTO change_requests (id, space_id, number, status, subject, created_by, created_at, updated_at, revision_id, revision_initial)
       VALUES (?, ?, ?, 'draft', ?, ?, ?, ?, ?, ?)`,
    ).run(id, space.id, (max ?? 0) + 1, input.subject, input.userId, now, now, revision, space.revision_id);
    db.prepare('INSERT INTO change_request_contributors (change_request_id, user_id) VALUES (?, ?)').run(id, input.userId);
  })();
  return id;
}

/** Sets `subject` and `status` (PATCH; never `merged`); 409 once the change request is merged. */
export function setChangeRequestFields(db: Db, cr: ChangeRequestRow, changes: { subject?: string; status?: string }, now: string): void {
  if (cr.status === 'merged') throw conflict('A merged change request cannot be changed');
  db.prepare('UPDATE change_requests SET subject = ?, status = ?, updated_at = ? WHERE id = ?').run(
    changes.subject ?? cr.subject,
    changes.status ?? cr.status,
    now,
    cr.id,
  );
}
