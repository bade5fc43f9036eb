/** Teams: rows, who manages them, the Team shape. */
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { newId } from '../ids.js';
import type { ListSpec } from '../pagination.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { orgMembership, requireOrg } from '../access.js';

export interface TeamRow {
  id: string;
  organization_id: string;
  title: string;
  created_at: string;
}

/** Team membership roles: the creator is `owner` (may manage the team), others `member`. */
export type TeamRole = 'owner' | 'member';

/** SQL condition: `column` contains the next bound parameter, ignoring case. */
export const containsIgnoringCase = (column: string) => `instr(lower(${column}), lower(?)) > 0`;

const countMembers = (ctx: RequestContext, teamId: string) =>
  (ctx.db.prepare('SELECT COUNT(*) AS n FROM team_members WHERE team_id = ?').get(teamId) as { n: number }).n;

/** Live spaces the team was granted, directly or through a collection above them. */
function countSpaces(ctx: RequestContext, teamId: string): number {
  const row = ctx.db
    .prepare(
      `WITH RECURSIVE granted(id) AS (
         SELECT target_id FROM content_permissions
         WHERE principal_type = 'team' AND principal_id = ? AND target_type = 'collection'
         UNION SELECT c.id FROM collections c JOIN granted g ON c.parent_id = g.id
       )
       SELECT COUNT(*) AS n FROM spaces s WHERE s.deleted_at IS NULL AND (
         s.parent_id IN (SELECT id FROM granted) OR s.id IN (
           SELECT target_id FROM content_permissions
           WHERE principal_type = 'team' AND principal_id = ? AND target_type = 'space'))`,
    )
    .get(teamId, teamId) as { n: number };
  return row.n;
}

export function teamRole(ctx: RequestContext, teamId: string, userId: string): TeamRole | null {
  const row = ctx.db.prepare('SELECT role FROM team_members WHERE team_id = ? AND user_id = ?').get(teamId, userId) as
    { role: TeamRole } | undefined;
  return row?.role ?? null;
}

/** Organization admins manage every team; other members the teams they own. */
export function canManageTeam(ctx: RequestContext, team: TeamRow, userId: string | undefined): boolean {
  const member = userId ? orgMembership(ctx.db, team.organization_id, userId) : null;
  if (!member || !userId) return false;
  return member.role === 'admin' || teamRole(ctx, team.id, userId) === 'owner';
}

export function toTeam(ctx: RequestContext, row: TeamRow) {
  return {
    object: 'team' as const,
    id: row.id,
    title: row.title,
    members: countMembers(ctx, row.id),
    spaces: countSpaces(ctx, row.id),
    createdAt: row.created_at,
    permissions: {
      admin: canManageTeam(ctx, row, ctx.caller?.id),
      view: Boolean(orgMembership(ctx.db, row.organization_id, ctx.caller?.id)),
    },
  };
}

export type Team = ReturnType<typeof toTeam>;

/** A team of the organization, or undefined. */
export function findTeam(ctx: RequestContext, organizationId: string, teamId: string): TeamRow | undefined {
  return ctx.db.prepare('SELECT * FROM teams WHERE id = ? AND organization_id = ?').get(teamId, organizationId) as TeamRow | undefined;
}

export function requireTeam(ctx: RequestContext, manage = false): TeamRow {
  const { organizationId, teamId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id);
  const team = findTeam(ctx, organizationId, teamId);
  if (!team) throw notFound('Team');
  if (manage && !canManageTeam(ctx, team, ctx.user().id)) throw forbidden('Only organization admins and owners of the team may change it');
  return team;
}

/** The `owner` filter: teams that member can manage (all of them for an organization admin). */
export function ownerClause(ctx: RequestContext, organizationId: string, owner: string): { sql: string; params: unknown[] } {
  const member = orgMembership(ctx.db, organizationId, owner);
  if (!member) return { sql: '0', params: [] };
  if (member.role === 'admin') return { sql: '1', params: [] };
  return { sql: `id IN (SELECT team_id FROM team_members WHERE user_id = ? AND role = 'owner')`, params: [owner] };
}

/** Listed members must be active members of the organization (400 names the first one that is not). */
export function checkMembers(ctx: RequestContext, organizationId: string, members: string[]) {
  members.forEach((userId, i) => {
    if (!orgMembership(ctx.db, organizationId, userId)) throw badRequest(`members[${i}]: is not a member of the organization`);
  });
}
/** The organization's teams, filtered by an `owner` who can manage them and a `title` substring (any case). */
export function teamsOf(ctx: RequestContext, organizationId: string, only: { owner?: string; title?: string }): ListSpec<TeamRow, Team> {
  const where = ['organization_id = ?'];
  const params: unknown[] = [organizationId];
  if (only.owner !== undefined) {
    const clause = ownerClause(ctx, organizationId, only.owner);
    where.push(clause.sql);
    params.push(...clause.params);
  }
  if (only.title !== undefined) {
    where.push(containsIgnoringCase('title'));
    params.push(only.title);
  }
  return { from: `teams WHERE ${where.join(' AND ')}`, params, orderBy: ['created_at', 'id'], map: (row) => toTeam(ctx, row) };
}

/** A team owned by its creator, with the other `members`. */
export function insertTeam(
  db: Db,
  input: { organizationId: string; title: string; owner: string; members: string[] },
  now: string,
): TeamRow {
  const team: TeamRow = { id: newId(), organization_id: input.organizationId, title: input.title, created_at: now };
  const addMember = db.prepare('INSERT OR IGNORE INTO team_members (team_id, user_id, role) VALUES (?, ?, ?)');
  db.transaction(() => {
    db.prepare('INSERT INTO teams (id, organization_id, title, created_at) VALUES (?, ?, ?, ?)').run(
      team.id,
      team.organization_id,
      team.title,
      team.created_at,
    );
    addMember.run(team.id, input.owner, 'owner');
    for (const userId of input.members) addMember.run(team.id, userId, 'member');
  })();
  return team;
}

export function renameTeam(db: Db, team: TeamRow, title: string): TeamRow {
  db.prepare('UPDATE teams SET title = ? WHERE id = ?').run(title, team.id);
  return { ...team, title };
}

/** Deletes a team and the grants it held. */
export function deleteTeam(db: Db, teamId: string): void {
  db.transaction(() => {
    db.prepare(`DELETE FROM content_permissions WHERE principal_type = 'team' AND principal_id = ?`).run(teamId);
    db.prepare('DELETE FROM teams WHERE id = ?').run(teamId);
  })();
}
