import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import type { Role } from '../../api/roles.js';
import { requireOrg } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import {
  insertLinkInvite,
  inviteByEmail,
  joinWithInvite,
  LINK_INVITES,
  linkInvitesOf,
  loadLinkInvite,
  setLinkInviteRole,
  toInvite,
  type LinkInviteRow,
} from '../domain/invites.js';
import { deleteOwned } from '../domain/owned.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';

function invite(ctx: RequestContext) {
  const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.user().id, 'admin');
  const body = ctx.body(bodies['invite.create']);
  const role: Role | null = body.role === undefined ? org.default_role : body.role;
  return inviteByEmail(ctx, org, { emails: body.emails, role, sso: body.sso });
}

function requireLinkInvite(ctx: RequestContext, min: 'member' | 'admin'): LinkInviteRow {
  const { organizationId, inviteId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id, min);
  return loadLinkInvite(ctx.db, organizationId, inviteId);
}

function createLinkInvite(ctx: RequestContext) {
  const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.user().id, 'admin');
  const body = ctx.body(bodies['linkInvite.create'], { optional: true });
  const role = body.role === undefined ? org.default_role : body.role;
  return new Reply(201, toInvite(ctx, insertLinkInvite(ctx.db, { organizationId: org.id, role, createdBy: ctx.user().id }, ctx.now())));
}

export function register(router: Router, _services: UpstreamServices) {
  const link = '/orgs/{organizationId}/link-invites/{inviteId}';

  router.post('/orgs/{organizationId}/invites', invite);
  router.post('/orgs/{organizationId}/invites/{inviteId}', (ctx) => {
    joinWithInvite(ctx, ctx.params.organizationId, ctx.params.inviteId);
    return {};
  });

  router.get('/orgs/{organizationId}/link-invites', (ctx) => {
    const { organizationId } = ctx.params;
    const { member } = requireOrg(ctx.db, organizationId, ctx.user().id);
    return paginate(ctx, linkInvitesOf(ctx, organizationId, member.role));
  });
  router.post('/orgs/{organizationId}/link-invites', createLinkInvite);
  router.get(link, (ctx) => toInvite(ctx, requireLinkInvite(ctx, 'member')));

  router.patch(link, (ctx) => {
    const row = requireLinkInvite(ctx, 'admin');
    const { role } = ctx.body(bodies['linkInvite.update']);
    return toInvite(ctx, setLinkInviteRole(ctx.db, row, role));
  });

  router.delete(link, (ctx) => {
    deleteOwned(ctx.db, LINK_INVITES, requireLinkInvite(ctx, 'admin').id);
    return undefined;
  });
}
