/**
 * Grants: explicit roles of users and teams on spaces and collections (`content_permissions`),
 * read by `contentRole` (access.ts).
 */
import type { Role } from '../../api/roles.js';
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { contentRole, orgMembership, type ContentTarget } from '../access.js';
import type { ListSpec } from '../pagination.js';
import { userById, type User } from './users.js';

export type TargetType = ContentTarget['type'];

export interface TargetRef {
  type: TargetType;
  id: string;
  organization_id: string;
}

export interface GrantRow {
  target_type: TargetType;
  target_id: string;
  principal_type: 'user' | 'team';
  principal_id: string;
  role: Role;
  created_at: string;
}

/** Gives the teams and the users the role on the target (replacing the role they had), all or none. */
export function setGrants(db: Db, target: TargetRef, principals: { teams?: string[]; users?: string[] }, role: Role, now: string): void {
  db.transaction(() => {
    for (const id of principals.teams ?? []) setGrant(db, target, { type: 'team', id }, role, now);
    for (const id of principals.users ?? []) setGrant(db, target, { type: 'user', id }, role, now);
  })();
}

/** Creates or replaces the role of a user or a team on a space or a collection. */
export function setGrant(db: Db, target: TargetRef, principal: { type: 'user' | 'team'; id: string }, role: Role, now: string): void {
  db.prepare(
    `INSERT INTO content_permissions (target_type, target_id, principal_type, principal_id, role, created_at)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (target_type, target_id, principal_type, principal_id) DO UPDATE SET role = excluded.role`,
  ).run(target.type, target.id, principal.type, principal.id, role, now);
}

/** The creator of a space or collection administers it (organization admins already do). */
export function grantCreator(ctx: RequestContext, target: TargetRef): void {
  const user = ctx.user();
  if (orgMembership(ctx.db, target.organization_id, user.id)?.role === 'admin') return;
  setGrant(ctx.db, target, { type: 'user', id: user.id }, 'admin', ctx.now());
}

/**
 * After a transfer to `organizationId`: teams are per organization, so team grants go; user
 * grants stay only for users who are members of the new organization.
 */
export function dropForeignGrants(db: Db, organizationId: string, targets: Array<{ type: TargetType; id: string }>) {
  const drop = db.prepare(
    `DELETE FROM content_permissions WHERE target_type = @type AND target_id = @id AND (
       (principal_type = 'team' AND principal_id NOT IN (SELECT id FROM teams WHERE organization_id = @org)) OR
       (principal_type = 'user' AND principal_id NOT IN (SELECT user_id FROM members WHERE organization_id = @org)))`,
  );
  for (const t of targets) drop.run({ type: t.type, id: t.id, org: organizationId });
}

export function removeUserGrant(db: Db, target: { type: TargetType; id: string }, userId: string) {
  db.prepare(
    `DELETE FROM content_permissions
     WHERE target_type = ? AND target_id = ? AND principal_type = 'user' AND principal_id = ?`,
  ).run(target.type, target.id, userId);
}

/** Removes every grant on a space or a collection (when it is removed for good). */
export function dropGrants(db: Db, target: { type: TargetType; id: string }) {
  db.prepare('DELETE FROM content_permissions WHERE target_type = ? AND target_id = ?').run(target.type, target.id);
}
/** A user and their role on a space or a collection (lists of permissions). */
export interface UserPermission {
  permission: Role;
  user: User;
}

/** The users granted a role explicitly on the target. */
export function userGrants(ctx: RequestContext, target: { type: TargetType; id: string }): ListSpec<GrantRow, UserPermission> {
  return {
    from: `content_permissions WHERE target_type = ? AND target_id = ? AND principal_type = 'user'`,
    params: [target.type, target.id],
    orderBy: ['created_at', 'principal_id'],
    map: (row) => ({ permission: row.role, user: userById(ctx, row.principal_id) }),
  };
}

/** Every active member with access to the target (explicit, team, inherited or organization-role grants), strongest role each; only those with role `only` when given. */
export function aggregateGrants(ctx: RequestContext, target: ContentTarget, only?: Role): ListSpec<{ user_id: string }, UserPermission> {
  const roles = new Map<string, Role | null>();
  const roleOf = (userId: string) => {
    if (!roles.has(userId)) roles.set(userId, contentRole(ctx.db, target, userId));
    return roles.get(userId)!;
  };
  return {
    from: 'members WHERE organization_id = ? AND disabled = 0',
    params: [target.organization_id],
    orderBy: ['joined_at', 'user_id'],
    filter: (m) => roleOf(m.user_id) !== null && (!only || roleOf(m.user_id) === only),
    map: (m) => ({ permission: roleOf(m.user_id)!, user: userById(ctx, m.user_id) }),
  };
}

/** True when the team belongs to the organization. */
export const isTeamOf = (db: Db, teamId: string, organizationId: string) =>
  Boolean(db.prepare('SELECT 1 FROM teams WHERE id = ? AND organization_id = ?').get(teamId, organizationId));

/** True when the user has a membership in the organization, disabled or not. */
export const hasMembership = (db: Db, organizationId: string, userId: string) =>
  Boolean(db.prepare('SELECT 1 FROM members WHERE organization_id = ? AND user_id = ?').get(organizationId, userId));
