import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import { builder } from '../builder.js';
import { Role } from '../lib/enums.js';
import { checkInput, restBody } from '../lib/mutation.js';
import { restPath } from '../lib/node.js';
import { Organization } from '../nodes/Organization.js';
import { User } from '../nodes/User.js';
import { forgetOrganization } from './members.js';

interface InviteResult {
  users: string[];
  invited: number;
  failedSSOEmails: string[];
}

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
      forgetOrganization(ctx, input.organizationId);
      const result = await ctx.rest.write<InviteResult>('POST', restPath`/orgs/${input.organizationId}/invites`, body);
      return { ...result, organizationId: input.organizationId };
    },
  },
  {
    outputFields: (t) => ({
      users: t.field({ type: [User], nullable: true, description: 'Existing users who joined.', resolve: (p) => p.users }),
      invited: t.int({ description: 'Count of pending invites sent.', resolve: (p) => p.invited }),
      failedSSOEmails: t.stringList({ description: 'Addresses that could not be invited as SSO users.', resolve: (p) => p.failedSSOEmails }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.organizationId }),
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
  { outputFields: (t) => ({ organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.organizationId }) }) },
);
