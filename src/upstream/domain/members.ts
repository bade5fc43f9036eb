/** Organization members: rows joined with their users, the Member shape, roles, removal, their teams and spaces. */
import { createHmac } from 'node:crypto';
import type { Role } from '../../api/roles.js';
import { contentRoles, grantedSpacesFilter, type ContentTarget } from '../access.js';
import type { RequestContext, UserRow } from '../context.js';
import type { Db } from '../db/index.js';
import { conflict } from '../errors.js';
import type { ListSpec } from '../pagination.js';
import { spaceRoles, toSpace, visibleSpacesFilter, type Space, type SpaceRow } from './spaces.js';
import { containsIgnoringCase, toTeam, type Team, type TeamRole, type TeamRow } from './teams.js';
import { toUser } from './users.js';

/** A membership joined with its user (`SELECT * FROM members m JOIN users u`). */
export interface MemberRow extends UserRow {
  organization_id: string;
  user_id: string;
  role: Role | null;
  disabled: number;
  sso: number;
  joined_at: string;
  last_seen_at: string | null;
}

const MEMBERS_FROM = 'members m JOIN users u ON u.id = m.user_id';

/**
 * Live spaces of the organization on which the user may hold a role (see grantedSpacesFilter), as
 * targets of the role computation, one at a time (there may be 300,000).
 */
function orgSpaces(db: Db, organizationId: string, userId: string): IterableIterator<ContentTarget> {
  const granted = grantedSpacesFilter(db, organizationId, userId);
  return db
    .prepare(
      `SELECT 'space' AS type, id, organization_id, parent_id, default_level FROM spaces
       WHERE organization_id = ? AND deleted_at IS NULL${granted ? ` AND ${granted.sql}` : ''}`,
    )
    .iterate(organizationId, ...(granted?.params ?? [])) as IterableIterator<ContentTarget>;
}

/** Spaces on which the member has a role (through the organization, a grant or a team). */
function countSpaces(db: Db, row: MemberRow) {
  if (row.disabled) return 0;
  // A role in the organization is a role on every space (at most its default level): counted, not computed per space.
  if (row.role)
    return (
      db.prepare('SELECT COUNT(*) AS n FROM spaces WHERE organization_id = ? AND deleted_at IS NULL').get(row.organization_id) as {
        n: number;
      }
    ).n;
  const roleOf = contentRoles(db, row.user_id);
  let n = 0;
  for (const space of orgSpaces(db, row.organization_id, row.user_id)) if (roleOf(space)) n++;
  return n;
}

const countTeams = (db: Db, row: MemberRow) =>
  (
    db
      .prepare('SELECT COUNT(*) AS n FROM team_members tm JOIN teams t ON t.id = tm.team_id WHERE t.organization_id = ? AND tm.user_id = ?')
      .get(row.organization_id, row.user_id) as { n: number }
  ).n;

export function toMember(ctx: RequestContext, row: MemberRow) {
  return {
    object: 'member' as const,
    id: row.user_id,
    role: row.role,
    user: toUser(ctx, row),
    disabled: Boolean(row.disabled),
    joinedAt: row.joined_at,
    ...(row.last_seen_at ? { lastSeenAt: row.last_seen_at } : {}),
    sso: Boolean(row.sso),
    spaces: countSpaces(ctx.db, row),
    teams: countTeams(ctx.db, row),
  };
}

export type Member = ReturnType<typeof toMember>;

export function findMember(db: Db, organizationId: string, userId: string): MemberRow | undefined {
  return db.prepare(`SELECT * FROM ${MEMBERS_FROM} WHERE m.organization_id = ? AND m.user_id = ?`).get(organizationId, userId) as
    MemberRow | undefined;
}

/** The `GET …/members` filters: an organization role (`guest`: none), a name or email substring, the sort. */
export interface MemberFilters {
  role?: Role | 'guest';
  search?: string;
  sort: 'joinedAt' | 'lastSeenAt';
  order: 'asc' | 'desc';
}

export function membersOf(ctx: RequestContext, organizationId: string, only: MemberFilters): ListSpec<MemberRow, Member> {
  const where = ['m.organization_id = ?'];
  const params: unknown[] = [organizationId];
  if (only.role === 'guest') where.push('m.role IS NULL');
  else if (only.role) {
    where.push('m.role = ?');
    params.push(only.role);
  }
  if (only.search !== undefined) {
    where.push(`(${containsIgnoringCase('u.display_name')} OR ${containsIgnoringCase('u.email')})`);
    params.push(only.search, only.search);
  }
  // Sorting by last seen lists active members only: those seen at least once.
  if (only.sort === 'lastSeenAt') where.push('m.last_seen_at IS NOT NULL');
  return {
    from: `${MEMBERS_FROM} WHERE ${where.join(' AND ')}`,
    params,
    orderBy: [only.sort === 'lastSeenAt' ? 'm.last_seen_at' : 'm.joined_at', 'm.user_id'],
    direction: only.order,
    map: (row) => toMember(ctx, row),
  };
}

/** 409 when the member is the organization's only active admin. */
function keepAnAdmin(db: Db, row: MemberRow) {
  if (row.role !== 'admin' || row.disabled) return;
  const others = db
    .prepare(`SELECT COUNT(*) AS n FROM members WHERE organization_id = ? AND role = 'admin' AND disabled = 0 AND user_id != ?`)
    .get(row.organization_id, row.user_id) as { n: number };
  if (!others.n) throw conflict('The last admin of an organization cannot be demoted or removed');
}

/** Sets the member's organization role (409 when that demotes the last admin). */
export function setMemberRole(db: Db, row: MemberRow, role: Role | null): MemberRow {
  if (role === row.role) return row;
  if (role !== 'admin') keepAnAdmin(db, row);
  db.prepare('UPDATE members SET role = ? WHERE organization_id = ? AND user_id = ?').run(role, row.organization_id, row.user_id);
  return { ...row, role };
}

/** Removes a member with their team memberships and grants in the organization (409 for the last admin). */
export function removeMember(db: Db, row: MemberRow): void {
  const { organization_id: organizationId, user_id: userId } = row;
  keepAnAdmin(db, row);
  db.transaction(() => {
    db.prepare('DELETE FROM team_members WHERE user_id = ? AND team_id IN (SELECT id FROM teams WHERE organization_id = ?)').run(
      userId,
      organizationId,
    );
    db.prepare(
      `DELETE FROM content_permissions WHERE principal_type = 'user' AND principal_id = ? AND (
         (target_type = 'space' AND target_id IN (SELECT id FROM spaces WHERE organization_id = ?)) OR
         (target_type = 'collection' AND target_id IN (SELECT id FROM collections WHERE organization_id = ?)))`,
    ).run(userId, organizationId, organizationId);
    db.prepare('DELETE FROM members WHERE organization_id = ? AND user_id = ?').run(organizationId, userId);
  })();
}

export function enableSso(db: Db, row: MemberRow): MemberRow {
  db.prepare('UPDATE members SET sso = 1 WHERE organization_id = ? AND user_id = ?').run(row.organization_id, row.user_id);
  return { ...row, sso: 1 };
}

export function touchLastSeen(db: Db, organizationId: string, userId: string, now: string): void {
  db.prepare('UPDATE members SET last_seen_at = ? WHERE organization_id = ? AND user_id = ?').run(now, organizationId, userId);
}

/** The member's teams in the organization (with a `title` substring, any case), with the member's role in each. */
export function memberTeamsOf(
  ctx: RequestContext,
  member: MemberRow,
  title: string | undefined,
): ListSpec<TeamRow & { role: TeamRole }, { team: Team; member: { role: TeamRole } }> {
  const where = ['t.organization_id = ?', 'tm.user_id = ?'];
  const params: unknown[] = [member.organization_id, member.user_id];
  if (title !== undefined) {
    where.push(containsIgnoringCase('t.title'));
    params.push(title);
  }
  return {
    from: `teams t JOIN team_members tm ON tm.team_id = t.id WHERE ${where.join(' AND ')}`,
    params,
    orderBy: ['t.created_at', 't.id'],
    map: (team) => ({ team: toTeam(ctx, team), member: { role: team.role } }),
  };
}

/** Spaces the member has a role on, among those the caller can see, with the member's role. */
export function memberSpacesOf(
  ctx: RequestContext,
  member: MemberRow,
  order: 'asc' | 'desc',
): ListSpec<SpaceRow, { permission: Role; space: Space }> {
  const memberRoles = contentRoles(ctx.db, member.user_id);
  const roleOf = (row: SpaceRow) => memberRoles({ type: 'space', ...row });
  const callerRoleOf = spaceRoles(ctx);
  // Both must hold a role: the rows the member's grants reach (when only grants give them one), among those the caller sees.
  const granted = grantedSpacesFilter(ctx.db, member.organization_id, member.user_id);
  const visible = visibleSpacesFilter(ctx, member.organization_id);
  return {
    from: `spaces WHERE organization_id = ? AND deleted_at IS NULL${granted ? ` AND ${granted.sql}` : ''}${visible.sql}`,
    params: [member.organization_id, ...(granted?.params ?? []), ...visible.params],
    orderBy: ['created_at', 'id'],
    direction: order,
    filter: (row) => Boolean(roleOf(row) && callerRoleOf(row)),
    map: (row) => ({ permission: roleOf(row)!, space: toSpace(ctx, row, callerRoleOf(row)) }),
  };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An HS256 JWT of the caller's claims in the organization, signed with a per-server secret. */
export function visitorClaims(secret: Buffer, claims: Record<string, unknown>): string {
  const unsigned = `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}
