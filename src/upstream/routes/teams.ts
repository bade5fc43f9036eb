import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import { requireOrg } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { newId } from '../ids.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import { checkMembers, containsIgnoringCase, ownerClause, requireTeam, toTeam, type Team, type TeamRow } from '../domain/teams.js';

function listTeams(ctx: RequestContext) {
  const { organizationId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id);
  const where = ['organization_id = ?'];
  const params: unknown[] = [organizationId];
  const owner = ctx.query.string('owner');
  if (owner !== undefined) {
    const clause = ownerClause(ctx, organizationId, owner);
    where.push(clause.sql);
    params.push(...clause.params);
  }
  const title = ctx.query.string('title');
  if (title !== undefined) {
    where.push(containsIgnoringCase('title'));
    params.push(title);
  }
  return paginate<TeamRow, Team>(ctx, {
    from: `teams WHERE ${where.join(' AND ')}`,
    params,
    orderBy: ['created_at', 'id'],
    map: (row) => toTeam(ctx, row),
  });
}

function createTeam(ctx: RequestContext) {
  const { organizationId } = ctx.params;
  const me = ctx.user().id;
  // Guests (no organization role) cannot create teams; any other member can, and owns the team.
  requireOrg(ctx.db, organizationId, me, 'read');
  const body = ctx.body(bodies['team.create']);
  const members: string[] = body.members ?? [];
  checkMembers(ctx, organizationId, members);
  const team: TeamRow = { id: newId(), organization_id: organizationId, title: body.title, created_at: ctx.now() };
  const addMember = ctx.db.prepare('INSERT OR IGNORE INTO team_members (team_id, user_id, role) VALUES (?, ?, ?)');
  ctx.db.transaction(() => {
    ctx.db
      .prepare('INSERT INTO teams (id, organization_id, title, created_at) VALUES (?, ?, ?, ?)')
      .run(team.id, team.organization_id, team.title, team.created_at);
    addMember.run(team.id, me, 'owner');
    for (const userId of members) addMember.run(team.id, userId, 'member');
  })();
  return new Reply(201, toTeam(ctx, team));
}

export function register(router: Router, _services: UpstreamServices) {
  router.get('/orgs/{organizationId}/teams', listTeams);
  router.put('/orgs/{organizationId}/teams', createTeam);

  router.get('/orgs/{organizationId}/teams/{teamId}', (ctx) => toTeam(ctx, requireTeam(ctx)));

  router.patch('/orgs/{organizationId}/teams/{teamId}', (ctx) => {
    const team = requireTeam(ctx, true);
    const { title } = ctx.body(bodies['team.update']);
    ctx.db.prepare('UPDATE teams SET title = ? WHERE id = ?').run(title, team.id);
    return toTeam(ctx, { ...team, title });
  });

  router.delete('/orgs/{organizationId}/teams/{teamId}', (ctx) => {
    const team = requireTeam(ctx, true);
    ctx.db.transaction(() => {
      ctx.db.prepare(`DELETE FROM content_permissions WHERE principal_type = 'team' AND principal_id = ?`).run(team.id);
      ctx.db.prepare('DELETE FROM teams WHERE id = ?').run(team.id);
    })();
    return undefined;
  });
}
