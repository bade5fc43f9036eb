import { createHmac, randomBytes } from 'node:crypto';
import { MEMBER_ROLE_FILTERS, organizationBodies as bodies } from '../../api/bodies/organizations.js';
import type { Role } from '../../api/roles.js';
import { MEMBER_SORTS, ORDERS } from '../../api/rules.js';
import { contentRole, requireOrg, type ContentTarget } from '../access.js';
import type { RequestContext, UpstreamServices, UserRow } from '../context.js';
import { conflict, forbidden, notFound } from '../errors.js';
import { paginate } from '../pagination.js';
import type { Router } from '../router.js';
import { spaceRole, toSpace, type Space, type SpaceRow } from '../domain/spaces.js';
import { containsIgnoringCase, toTeam, type TeamRole, type TeamRow } from '../domain/teams.js';
import { toUser } from '../domain/users.js';

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

/** Live spaces of the organization, as targets of the role computation. */
function orgSpaces(ctx: RequestContext, organizationId: string): ContentTarget[] {
  return ctx.db
    .prepare(
      `SELECT 'space' AS type, id, organization_id, parent_id, default_level FROM spaces
       WHERE organization_id = ? AND deleted_at IS NULL`,
    )
    .all(organizationId) as ContentTarget[];
}

/** Spaces on which the member has a role (through the organization, a grant or a team). */
const countSpaces = (ctx: RequestContext, row: MemberRow) =>
  orgSpaces(ctx, row.organization_id).filter((space) => contentRole(ctx.db, space, row.user_id)).length;

const countTeams = (ctx: RequestContext, row: MemberRow) =>
  (
    ctx.db
      .prepare(
        'SELECT COUNT(*) AS n FROM team_members tm JOIN teams t ON t.id = tm.team_id WHERE t.organization_id = ? AND tm.user_id = ?',
      )
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
    spaces: countSpaces(ctx, row),
    teams: countTeams(ctx, row),
  };
}

export type Member = ReturnType<typeof toMember>;

export function findMember(ctx: RequestContext, organizationId: string, userId: string): MemberRow | undefined {
  return ctx.db
    .prepare(`SELECT * FROM ${MEMBERS_FROM} WHERE m.organization_id = ? AND m.user_id = ?`)
    .get(organizationId, userId) as MemberRow | undefined;
}

/** The member of the path, for a caller who is a member (`admin`: who is an organization admin). */
function requireMember(ctx: RequestContext, min: 'member' | 'admin' = 'member'): MemberRow {
  const { organizationId, userId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id, min);
  const row = findMember(ctx, organizationId, userId);
  if (!row) throw notFound('Member');
  return row;
}

/** 409 when the member is the organization's only active admin. */
function keepAnAdmin(ctx: RequestContext, row: MemberRow) {
  if (row.role !== 'admin' || row.disabled) return;
  const others = ctx.db
    .prepare(`SELECT COUNT(*) AS n FROM members WHERE organization_id = ? AND role = 'admin' AND disabled = 0 AND user_id != ?`)
    .get(row.organization_id, row.user_id) as { n: number };
  if (!others.n) throw conflict('The last admin of an organization cannot be demoted or removed');
}

function listMembers(ctx: RequestContext) {
  const { organizationId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id);
  const order = ctx.query.enum('order', ORDERS, 'desc');
  const sort = ctx.query.enum('sort', MEMBER_SORTS, 'joinedAt');
  const role = ctx.query.enum('role', MEMBER_ROLE_FILTERS);
  const search = ctx.query.string('search');
  const where = ['m.organization_id = ?'];
  const params: unknown[] = [organizationId];
  if (role === 'guest') where.push('m.role IS NULL');
  else if (role) {
    where.push('m.role = ?');
    params.push(role);
  }
  if (search !== undefined) {
    where.push(`(${containsIgnoringCase('u.display_name')} OR ${containsIgnoringCase('u.email')})`);
    params.push(search, search);
  }
  // Sorting by last seen lists active members only: those seen at least once.
  if (sort === 'lastSeenAt') where.push('m.last_seen_at IS NOT NULL');
  return paginate<MemberRow, Member>(ctx, {
    from: `${MEMBERS_FROM} WHERE ${where.join(' AND ')}`,
    params,
    orderBy: [sort === 'lastSeenAt' ? 'm.last_seen_at' : 'm.joined_at', 'm.user_id'],
    direction: order,
    map: (row) => toMember(ctx, row),
  });
}

function updateMember(ctx: RequestContext) {
  const row = requireMember(ctx, 'admin');
  const body = ctx.body(bodies['member.update'], { optional: true });
  if (body.role === undefined || body.role === row.role) return toMember(ctx, row);
  if (body.role !== 'admin') keepAnAdmin(ctx, row);
  ctx.db.prepare('UPDATE members SET role = ? WHERE organization_id = ? AND user_id = ?').run(body.role, row.organization_id, row.user_id);
  return toMember(ctx, { ...row, role: body.role });
}

/** Admins remove anyone; any member may leave (remove themselves). */
function removeMember(ctx: RequestContext) {
  const { organizationId, userId } = ctx.params;
  const me = ctx.user().id;
  const { member } = requireOrg(ctx.db, organizationId, me);
  if (userId !== me && member.role !== 'admin')
    throw forbidden('Only organization admins may remove other members');
  const row = findMember(ctx, organizationId, userId);
  if (!row) throw notFound('Member');
  keepAnAdmin(ctx, row);
  ctx.db.transaction(() => {
    ctx.db
      .prepare('DELETE FROM team_members WHERE user_id = ? AND team_id IN (SELECT id FROM teams WHERE organization_id = ?)')
      .run(userId, organizationId);
    ctx.db
      .prepare(
        `DELETE FROM content_permissions WHERE principal_type = 'user' AND principal_id = ? AND (
           (target_type = 'space' AND target_id IN (SELECT id FROM spaces WHERE organization_id = ?)) OR
           (target_type = 'collection' AND target_id IN (SELECT id FROM collections WHERE organization_id = ?)))`,
      )
      .run(userId, organizationId, organizationId);
    ctx.db.prepare('DELETE FROM members WHERE organization_id = ? AND user_id = ?').run(organizationId, userId);
  })();
  return undefined;
}

function listMemberTeams(ctx: RequestContext) {
  const row = requireMember(ctx);
  const where = ['t.organization_id = ?', 'tm.user_id = ?'];
  const params: unknown[] = [row.organization_id, row.user_id];
  const title = ctx.query.string('title');
  if (title !== undefined) {
    where.push(containsIgnoringCase('t.title'));
    params.push(title);
  }
  return paginate<TeamRow & { role: TeamRole }, { team: ReturnType<typeof toTeam>; member: { role: TeamRole } }>(ctx, {
    from: `teams t JOIN team_members tm ON tm.team_id = t.id WHERE ${where.join(' AND ')}`,
    params,
    orderBy: ['t.created_at', 't.id'],
    map: (team) => ({ team: toTeam(ctx, team), member: { role: team.role } }),
  });
}

/** Spaces the member has a role on, among those the caller can see, with the member's role. */
function listMemberSpaces(ctx: RequestContext, member: MemberRow) {
  const roles = new Map<string, Role | null>();
  const roleOf = (row: SpaceRow) => {
    if (!roles.has(row.id)) roles.set(row.id, contentRole(ctx.db, { type: 'space', ...row }, member.user_id));
    return roles.get(row.id) ?? null;
  };
  return paginate<SpaceRow, { permission: Role; space: Space }>(ctx, {
    from: 'spaces WHERE organization_id = ? AND deleted_at IS NULL',
    params: [member.organization_id],
    orderBy: ['created_at', 'id'],
    direction: ctx.query.enum('order', ORDERS, 'desc'),
    filter: (row) => Boolean(roleOf(row) && spaceRole(ctx, row)),
    map: (row) => ({ permission: roleOf(row)!, space: toSpace(ctx, row) }),
  });
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An HS256 JWT of the caller's claims in the organization, signed with a per-server secret. */
function visitorClaims(secret: Buffer, claims: Record<string, unknown>): string {
  const unsigned = `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

export function register(router: Router, _services: UpstreamServices) {
  const secret = randomBytes(32);
  const member = '/orgs/{organizationId}/members/{userId}';

  router.get('/orgs/{organizationId}/members', listMembers);
  router.get(member, (ctx) => toMember(ctx, requireMember(ctx)));
  router.patch(member, updateMember);
  router.delete(member, removeMember);

  router.post(`${member}/sso`, (ctx) => {
    const row = requireMember(ctx, 'admin');
    ctx.db.prepare('UPDATE members SET sso = 1 WHERE organization_id = ? AND user_id = ?').run(row.organization_id, row.user_id);
    return toMember(ctx, { ...row, sso: 1 });
  });

  router.get(`${member}/spaces`, (ctx) => listMemberSpaces(ctx, requireMember(ctx)));
  router.get(`${member}/teams`, listMemberTeams);

  router.post('/orgs/{organizationId}/ping', (ctx) => {
    const { organizationId } = ctx.params;
    const me = ctx.user();
    const { member: membership } = requireOrg(ctx.db, organizationId, me.id);
    const now = ctx.now();
    ctx.db.prepare('UPDATE members SET last_seen_at = ? WHERE organization_id = ? AND user_id = ?').run(now, organizationId, me.id);
    const iat = Math.floor(Date.parse(now) / 1000);
    return {
      platformVisitorClaims: visitorClaims(secret, { sub: me.id, organization: organizationId, role: membership.role, iat }),
    };
  });
}
