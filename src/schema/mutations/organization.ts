/**
 * Writes to an organization that are not a write of one of its resources (those come from
 * src/schema/resources.ts): invites by email, joining with an invite, and the activity ping.
 */
import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import { builder } from '../builder.js';
import { Role } from '../lib/enums.js';
import { checkInput, restBody } from '../lib/mutation.js';
import { restPath } from '../lib/node.js';
import { edge } from '../lib/resource.js';
import { User } from '../nodes/User.js';

type OfOrganization = { organizationId: string };

/** The payload's organization, as it is after the write. */
const organization = (t: any) => edge(t, 'Organization', (p: OfOrganization) => [p.organizationId]);

/** Everything read under the organization: counts and permissions shown across it change. */
const underOrganization = (organizationId: string) => [restPath`/orgs/${organizationId}`];

builder.relayMutationField(
  'inviteToOrganization',
  {
    inputFields: (t) => ({
      organizationId: t.string({ required: true }),
      emails: t.stringList({ required: true, description: 'At least one address.' }),
      role: t.field({ type: Role, description: "Role of the new members (default: the organization's); null for guests." }),
      sso: t.boolean({ description: 'Invites them as SSO users (default false).' }),
    }),
  },
  {
    description:
      'Invites people by email (`POST /orgs/{organizationId}/invites`): existing users join at once, others get a pending invite.',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, ['organizationId']);
      checkInput(bodies['invite.create'], body);
      const path = restPath`/orgs/${input.organizationId}/invites`;
      const result = await ctx.rest.write<{ users: string[]; invited: number; failedSSOEmails: string[] }>('POST', path, body, {
        invalidate: underOrganization(input.organizationId),
      });
      return { ...result, organizationId: input.organizationId };
    },
  },
  {
    outputFields: (t) => ({
      users: t.field({ type: [User], nullable: true, description: 'Existing users who joined.', resolve: (p) => p.users }),
      invited: t.int({ description: 'Count of pending invites sent.', resolve: (p) => p.invited }),
      failedSSOEmails: t.stringList({ description: 'Addresses that could not be invited as SSO users.', resolve: (p) => p.failedSSOEmails }),
      organization: organization(t),
    }),
  },
);

builder.relayMutationField(
  'joinOrganization',
  { inputFields: (t) => ({ organizationId: t.string({ required: true }), inviteId: t.string({ required: true }) }) },
  {
    description: 'The caller joins with an email or link invite (`POST /orgs/{organizationId}/invites/{inviteId}`).',
    resolve: async (_root, { input }, ctx) => {
      // The caller's organizations change too, so every organization read is forgotten.
      await ctx.rest.write('POST', restPath`/orgs/${input.organizationId}/invites/${input.inviteId}`, undefined, { invalidate: ['/orgs'] });
      return { organizationId: input.organizationId };
    },
  },
  { outputFields: (t) => ({ organization: organization(t) }) },
);

builder.relayMutationField(
  'pingOrganization',
  { inputFields: (t) => ({ organizationId: t.string({ required: true }) }) },
  {
    description: "Records the caller's activity in the organization (`POST /orgs/{organizationId}/ping`).",
    resolve: async (_root, { input }, ctx) => {
      const path = restPath`/orgs/${input.organizationId}/ping`;
      const res = await ctx.rest.write<{ platformVisitorClaims: string }>('POST', path, undefined, { invalidate: underOrganization(input.organizationId) });
      return { organizationId: input.organizationId, platformVisitorClaims: res.platformVisitorClaims };
    },
  },
  {
    outputFields: (t) => ({
      platformVisitorClaims: t.string({ description: "A signed token of the caller's claims in the organization.", resolve: (p) => p.platformVisitorClaims }),
      organization: organization(t),
    }),
  },
);
