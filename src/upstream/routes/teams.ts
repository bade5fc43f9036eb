import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import { requireOrg } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { checkMembers, deleteTeam, insertTeam, renameTeam, requireTeam, teamsOf, toTeam } from '../domain/teams.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';

function listTeams(ctx: RequestContext) {
  const { organizationId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id);
  return paginate(ctx, teamsOf(ctx, organizationId, { owner: ctx.query.string('owner'), title: ctx.query.string('title') }));
}

function createTeam(ctx: RequestContext) {
  const { organizationId } = ctx.params;
  const me = ctx.user().id;
  // Guests (no organization role) cannot create teams; any other member can, and owns the team.
  requireOrg(ctx.db, organizationId, me, 'read');
  const body = ctx.body(bodies['team.create']);
  const members: string[] = body.members ?? [];
  checkMembers(ctx, organizationId, members);
  return new Reply(201, toTeam(ctx, insertTeam(ctx.db, { organizationId, title: body.title, owner: me, members }, ctx.now())));
}

export function register(router: Router, _services: UpstreamServices) {
  router.get('/orgs/{organizationId}/teams', listTeams);
  router.put('/orgs/{organizationId}/teams', createTeam);

  router.get('/orgs/{organizationId}/teams/{teamId}', (ctx) => toTeam(ctx, requireTeam(ctx)));

  router.patch('/orgs/{organizationId}/teams/{teamId}', (ctx) => {
    const team = requireTeam(ctx, true);
    const { title } = ctx.body(bodies['team.update']);
    return toTeam(ctx, renameTeam(ctx.db, team, title));
  });

  router.delete('/orgs/{organizationId}/teams/{teamId}', (ctx) => {
    deleteTeam(ctx.db, requireTeam(ctx, true).id);
    return undefined;
  });
}
