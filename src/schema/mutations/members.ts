import type { OrganizationMember as RestMember } from '@gitbook/api';
import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { Role } from '../lib/enums.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { restPath } from '../lib/node.js';
import { Member, members } from '../nodes/Member.js';
import { Organization } from '../nodes/Organization.js';

/**
 * Forgets every cached read under the organization: a write to its members, teams, invites or
 * SAML providers changes counts and permissions shown elsewhere in it (`Member.teamsCount`,
 * `Team.membersCount`, a provider's default team…), so later reads in the operation are fresh.
 */
export const forgetOrganization = (ctx: GatewayContext, organizationId: string) =>
  ctx.rest.forget([restPath`/orgs/${organizationId}`]);

const memberKeys = (t: PothosSchemaTypes.InputFieldBuilder<any, 'InputObject'>) => ({
  organizationId: t.string({ required: true }),
  userId: t.string({ required: true, description: 'The user id of the member.' }),
});

builder.relayMutationField(
  'updateMember',
  {
    inputFields: (t) => ({
      ...memberKeys(t),
      role: t.field({ type: Role, description: 'The new role; null makes the member a guest.' }),
    }),
  },
  {
    description: "Changes a member's role (`PATCH /orgs/{organizationId}/members/{userId}`); the last admin cannot be demoted.",
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, ['organizationId', 'userId']);
      checkInput(bodies['member.update'], body);
      forgetOrganization(ctx, input.organizationId);
      return { member: await members.save(ctx, 'PATCH', input.organizationId, body, input.userId) };
    },
  },
  { outputFields: (t) => ({ member: t.field({ type: Member, nullable: true, resolve: (p) => p.member }) }) },
);

builder.relayMutationField(
  'removeMember',
  { inputFields: (t) => memberKeys(t) },
  {
    description: 'Removes a member, or lets the caller leave (`DELETE /orgs/{organizationId}/members/{userId}`).',
    resolve: async (_root, { input }, ctx) => {
      forgetOrganization(ctx, input.organizationId);
      await members.remove(ctx, input.organizationId, input.userId);
      return { organizationId: input.organizationId, deletedId: globalId('Member', input.organizationId, input.userId) };
    },
  },
  {
    outputFields: (t) => ({
      deletedId: t.id({ resolve: (p) => p.deletedId }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.organizationId }),
    }),
  },
);

builder.relayMutationField(
  'setMemberSso',
  { inputFields: (t) => memberKeys(t) },
  {
    description: 'Makes a member sign in with SSO (`POST /orgs/{organizationId}/members/{userId}/sso`).',
    resolve: async (_root, { input }, ctx) => {
      const { organizationId, userId } = input;
      forgetOrganization(ctx, organizationId);
      const json = await ctx.rest.write<RestMember>('POST', `${members.path(organizationId, userId)}/sso`);
      ctx.rest.prime(members.path(organizationId, json.id), json);
      return { member: members.attach(json, organizationId) };
    },
  },
  { outputFields: (t) => ({ member: t.field({ type: Member, nullable: true, resolve: (p) => p.member }) }) },
);

builder.relayMutationField(
  'pingOrganization',
  { inputFields: (t) => ({ organizationId: t.string({ required: true }) }) },
  {
    description: "Records the caller's activity in the organization (`POST /orgs/{organizationId}/ping`).",
    resolve: async (_root, { input }, ctx) => {
      forgetOrganization(ctx, input.organizationId);
      const res = await ctx.rest.write<{ platformVisitorClaims: string }>('POST', restPath`/orgs/${input.organizationId}/ping`);
      return { organizationId: input.organizationId, platformVisitorClaims: res.platformVisitorClaims };
    },
  },
  {
    outputFields: (t) => ({
      platformVisitorClaims: t.string({ description: "A signed token of the caller's claims in the organization.", resolve: (p) => p.platformVisitorClaims }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.organizationId }),
    }),
  },
);
