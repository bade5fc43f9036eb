import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import { builder } from '../builder.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { Organization } from '../nodes/Organization.js';
import { Team, teams } from '../nodes/Team.js';
import { forgetOrganization } from './members.js';

builder.relayMutationField(
  'createTeam',
  {
    inputFields: (t) => ({
      organizationId: t.string({ required: true }),
      title: t.string({ required: true }),
      members: t.stringList({ description: 'User ids of members to add; the caller joins as owner.' }),
    }),
  },
  {
    description: 'Creates a team (`PUT /orgs/{organizationId}/teams`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, ['organizationId']);
      checkInput(bodies['team.create'], body);
      forgetOrganization(ctx, input.organizationId);
      return { organizationId: input.organizationId, team: await teams.save(ctx, 'PUT', input.organizationId, body) };
    },
  },
  {
    outputFields: (t) => ({
      team: t.field({ type: Team, nullable: true, resolve: (p) => p.team }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.organizationId }),
    }),
  },
);

builder.relayMutationField(
  'updateTeam',
  {
    inputFields: (t) => ({
      organizationId: t.string({ required: true }),
      teamId: t.string({ required: true }),
      title: t.string({ required: true }),
    }),
  },
  {
    description: 'Renames a team (`PATCH /orgs/{organizationId}/teams/{teamId}`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, ['organizationId', 'teamId']);
      checkInput(bodies['team.update'], body);
      forgetOrganization(ctx, input.organizationId);
      return { team: await teams.save(ctx, 'PATCH', input.organizationId, body, input.teamId) };
    },
  },
  { outputFields: (t) => ({ team: t.field({ type: Team, nullable: true, resolve: (p) => p.team }) }) },
);

builder.relayMutationField(
  'deleteTeam',
  { inputFields: (t) => ({ organizationId: t.string({ required: true }), teamId: t.string({ required: true }) }) },
  {
    description: 'Deletes a team and its permissions (`DELETE /orgs/{organizationId}/teams/{teamId}`).',
    resolve: async (_root, { input }, ctx) => {
      forgetOrganization(ctx, input.organizationId);
      await teams.remove(ctx, input.organizationId, input.teamId);
      return { organizationId: input.organizationId, deletedId: globalId('Team', input.organizationId, input.teamId) };
    },
  },
  {
    outputFields: (t) => ({
      deletedId: t.id({ resolve: (p) => p.deletedId }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.organizationId }),
    }),
  },
);
