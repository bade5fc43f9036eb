import type { OrganizationTeam as RestTeam } from '@gitbook/api';
import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { encodeKeys } from '../lib/node.js';
import { orgScoped } from '../lib/orgScoped.js';
import { Organization } from './Organization.js';

/** Teams of an organization (`/orgs/{organizationId}/teams/{teamId}`). */
export const teams = orgScoped<RestTeam>('Team', { segment: 'teams', key: (team) => team.id });
export const Team = teams.ref;

const TeamPermissions = builder.objectRef<RestTeam['permissions']>('TeamPermissions').implement({
  description: 'What the caller may do with the team (REST `permissions`).',
  fields: (t) => ({
    admin: t.exposeBoolean('admin', { description: 'Whether the caller may manage the team.' }),
    view: t.exposeBoolean('view', { description: 'Whether the caller may view the team.' }),
  }),
});

Team.implement({
  description: 'A team of organization members.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the team.' }),
    title: t.exposeString('title'),
    membersCount: t.int({ description: 'Count of members of the team (REST `members`).', resolve: (team) => team.members }),
    spacesCount: t.int({ description: 'Count of spaces the team can access (REST `spaces`).', resolve: (team) => team.spaces }),
    createdAt: t.field({ type: 'DateTime', resolve: (team) => team.createdAt }),
    permissions: t.field({ type: TeamPermissions, resolve: (team) => team.permissions }),
    organization: t.field({ type: Organization, nullable: true, resolve: (team) => team.organizationId }),
  }),
});

export const TeamConnection = builder.connectionObject({ type: Team, name: 'TeamConnection' }, { name: 'TeamEdge' });

builder.objectField(Organization, 'teams', (t) =>
  t.field({
    type: TeamConnection,
    nullable: true,
    description: 'Teams of the organization (`GET /orgs/{organizationId}/teams`).',
    args: {
      ...forwardArgs,
      owner: t.arg.string({ description: 'A member id: only the teams that member can manage.' }),
      title: t.arg.string({ description: 'Case-insensitive substring of the team title.' }),
    },
    resolve: (org, { owner, title, ...args }, ctx) =>
      resolveList(ctx, args, { ...teams.list(org.id), query: { owner: owner ?? undefined, title: title ?? undefined } }),
  }),
);

builder.queryFields((t) => ({
  team: t.field({
    type: Team,
    nullable: true,
    description: 'A team by REST id (`GET /orgs/{organizationId}/teams/{teamId}`).',
    args: { organizationId: t.arg.string({ required: true }), teamId: t.arg.string({ required: true }) },
    resolve: (_root, { organizationId, teamId }) => encodeKeys([organizationId, teamId]),
  }),
}));
