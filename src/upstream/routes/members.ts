import { randomBytes } from 'node:crypto';
import { MEMBER_ROLE_FILTERS, organizationBodies as bodies } from '../../api/bodies/organizations.js';
import { MEMBER_SORTS, ORDERS } from '../../api/rules.js';
import { requireOrg } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import {
  enableSso,
  findMember,
  memberSpacesOf,
  membersOf,
  memberTeamsOf,
  removeMember,
  setMemberRole,
  toMember,
  touchLastSeen,
  visitorClaims,
  type MemberRow,
} from '../domain/members.js';
import { forbidden, notFound } from '../errors.js';
import { paginate } from '../pagination.js';
import type { Router } from '../router.js';

/** The member of the path, for a caller who is a member (`admin`: who is an organization admin). */
function requireMember(ctx: RequestContext, min: 'member' | 'admin' = 'member'): MemberRow {
  const { organizationId, userId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id, min);
  const row = findMember(ctx.db, organizationId, userId);
  if (!row) throw notFound('Member');
  return row;
}

function listMembers(ctx: RequestContext) {
  const { organizationId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id);
  const order = ctx.query.enum('order', ORDERS, 'desc');
  const sort = ctx.query.enum('sort', MEMBER_SORTS, 'joinedAt');
  const role = ctx.query.enum('role', MEMBER_ROLE_FILTERS);
  const search = ctx.query.string('search');
  return paginate(ctx, membersOf(ctx, organizationId, { role, search, sort, order }));
}

function updateMember(ctx: RequestContext) {
  const row = requireMember(ctx, 'admin');
  const body = ctx.body(bodies['member.update'], { optional: true });
  if (body.role === undefined) return toMember(ctx, row);
  return toMember(ctx, setMemberRole(ctx.db, row, body.role));
}

/** Admins remove anyone; any member may leave (remove themselves). */
function removeFromOrg(ctx: RequestContext) {
  const { organizationId, userId } = ctx.params;
  const me = ctx.user().id;
  const { member } = requireOrg(ctx.db, organizationId, me);
  if (userId !== me && member.role !== 'admin') throw forbidden('Only organization admins may remove other members');
  const row = findMember(ctx.db, organizationId, userId);
  if (!row) throw notFound('Member');
  removeMember(ctx.db, row);
  return undefined;
}

export function register(router: Router, _services: UpstreamServices) {
  const secret = randomBytes(32);
  const member = '/orgs/{organizationId}/members/{userId}';

  router.get('/orgs/{organizationId}/members', listMembers);
  router.get(member, (ctx) => toMember(ctx, requireMember(ctx)));
  router.patch(member, updateMember);
  router.delete(member, removeFromOrg);

  router.post(`${member}/sso`, (ctx) => toMember(ctx, enableSso(ctx.db, requireMember(ctx, 'admin'))));

  router.get(`${member}/spaces`, (ctx) => {
    const row = requireMember(ctx);
    return paginate(ctx, memberSpacesOf(ctx, row, ctx.query.enum('order', ORDERS, 'desc')));
  });
  router.get(`${member}/teams`, (ctx) => {
    const row = requireMember(ctx);
    return paginate(ctx, memberTeamsOf(ctx, row, ctx.query.string('title')));
  });

  router.post('/orgs/{organizationId}/ping', (ctx) => {
    const { organizationId } = ctx.params;
    const me = ctx.user();
    const { member: membership } = requireOrg(ctx.db, organizationId, me.id);
    const now = ctx.now();
    touchLastSeen(ctx.db, organizationId, me.id, now);
    const iat = Math.floor(Date.parse(now) / 1000);
    return {
      platformVisitorClaims: visitorClaims(secret, { sub: me.id, organization: organizationId, role: membership.role, iat }),
    };
  });
}
