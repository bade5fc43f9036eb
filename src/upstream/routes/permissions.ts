/**
 * Space and collection user permissions: one implementation for both bases
 * (`/spaces/{spaceId}/permissions`, `/collections/{collectionId}/permissions`), parameterised
 * by the target type. Grants live in `content_permissions` and feed `contentRole` (access.ts),
 * so a grant changes what its user can do. Reading the lists needs read access to the target;
 * changing grants needs admin.
 */
import { ROLES, type Role } from '../../api/roles.js';
import { orgMembership, type ContentTarget } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { HttpError, notFound } from '../errors.js';
import { paginate } from '../pagination.js';
import type { Router } from '../router.js';
import { loadCollection } from '../domain/collections.js';
import { loadSpace } from '../domain/spaces.js';
import {
  aggregateGrants,
  hasMembership,
  isTeamOf,
  removeUserGrant,
  setGrant,
  setGrants,
  userGrants,
  type TargetRef,
  type TargetType,
} from '../domain/grants.js';

/** How each base finds its target, with the caller's role checked. */
interface Base {
  base: string;
  param: string;
  load: (ctx: RequestContext, id: string, min: Role) => ContentTarget;
}

const targets: Record<TargetType, Base> = {
  space: {
    base: '/spaces/{spaceId}/permissions',
    param: 'spaceId',
    load: (ctx, id, min) => ({ type: 'space', ...loadSpace(ctx, id, min, { members: true }).row }),
  },
  collection: {
    base: '/collections/{collectionId}/permissions',
    param: 'collectionId',
    load: (ctx, id, min) => ({ type: 'collection', ...loadCollection(ctx, id, min).row }),
  },
};

/** Spec: "No team or user with the provided Id" is a 404; the message names the field. */
const unknownPrincipal = (field: string, what: string) => new HttpError(404, `${field}: ${what}`);

function checkPrincipals(ctx: RequestContext, organizationId: string, body: { teams?: string[]; users?: string[] }) {
  body.teams?.forEach((id, i) => {
    if (!isTeamOf(ctx.db, id, organizationId)) throw unknownPrincipal(`teams[${i}]`, `no team ${id} in this organization`);
  });
  body.users?.forEach((id, i) => {
    if (!orgMembership(ctx.db, organizationId, id))
      throw unknownPrincipal(`users[${i}]`, `user ${id} is not a member of this organization`);
  });
}

/**
 * The `{userId}` of the path: a member of the target's organization; 404 for anyone else. A
 * disabled member counts when a grant is removed (so it can go), not when one is given (as POST).
 */
function pathUser(ctx: RequestContext, target: TargetRef, granting: boolean): string {
  const { userId } = ctx.params;
  const member = granting ? orgMembership(ctx.db, target.organization_id, userId) : hasMembership(ctx.db, target.organization_id, userId);
  if (!member) throw notFound('User');
  return userId;
}

function registerBase(router: Router, type: TargetType) {
  const { base, param, load } = targets[type];

  router.post(base, (ctx) => {
    const target = load(ctx, ctx.params[param], 'admin');
    const body = ctx.body('permission.invite');
    checkPrincipals(ctx, target.organization_id, body);
    setGrants(ctx.db, target, { teams: body.teams, users: body.users }, body.role, ctx.now());
    return undefined;
  });

  router.get(`${base}/users`, (ctx) => {
    const target = load(ctx, ctx.params[param], 'read');
    return paginate(ctx, userGrants(ctx, target));
  });

  router.delete(`${base}/users/{userId}`, (ctx) => {
    const target = load(ctx, ctx.params[param], 'admin');
    removeUserGrant(ctx.db, target, pathUser(ctx, target, false));
    return undefined;
  });

  router.patch(`${base}/users/{userId}`, (ctx) => {
    const target = load(ctx, ctx.params[param], 'admin');
    const { role } = ctx.body('permission.update');
    const userId = pathUser(ctx, target, Boolean(role));
    if (role === undefined) return undefined;
    if (role === null) removeUserGrant(ctx.db, target, userId);
    else setGrant(ctx.db, target, { type: 'user', id: userId }, role, ctx.now());
    return undefined;
  });

  /** Every member with access (explicit, team, inherited or organization-role grants), strongest role each. */
  router.get(`${base}/aggregate`, (ctx) => {
    const target = load(ctx, ctx.params[param], 'read');
    return paginate(ctx, aggregateGrants(ctx, target, ctx.query.enum('role', ROLES)));
  });
}

export function register(router: Router, _services: UpstreamServices) {
  registerBase(router, 'space');
  registerBase(router, 'collection');
}
