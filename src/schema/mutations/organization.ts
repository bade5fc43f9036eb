/**
 * Writes to an organization that are no write of one of its resources (those come from
 * src/schema/resources.ts): invites by email, joining with an invite, the activity ping.
 */
import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import { builder } from '../builder.js';
import { Role } from '../lib/enums.js';
import { checkInput, restBody } from '../lib/mutation.js';
import { restPath } from '../lib/node.js';
import type { GatewayContext } from '../context.js';
import { answered, edge, writeResource, type BuilderTypes } from '../lib/resource.js';
import { User } from '../nodes/User.js';

/** The payload's organization, as it is after the write. */
const organization = <P extends { organizationId: string }>(t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, P>) =>
  edge(t, 'Organization', (p) => [p.organizationId]);

/** A write under the organization: what the table says an organization write makes stale is forgotten. */
const orgWrite = <T>(ctx: GatewayContext, organizationId: string, path: string, body?: unknown) =>
  writeResource<T>(ctx, 'Organization', 'POST', path, { organizationId }, body);

/** The REST answer: `failedSSOEmails` is optional in GitBook's OpenAPI description (absent: none failed). */
type Invited = { users: string[]; invited: number; failedSSOEmails?: string[] };

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
    resolve: async (_root, { input: { organizationId, ...input } }, ctx) => {
      const body = restBody(input);
      checkInput(bodies['invite.create'], body);
      return {
        ...answered(await orgWrite<Invited | undefined>(ctx, organizationId, restPath`/orgs/${organizationId}/invites`, body)),
        organizationId,
      };
    },
  },
  {
    outputFields: (t) => ({
      users: t.field({ type: [User], nullable: true, description: 'Existing users who joined.', resolve: (p) => p.users }),
      invited: t.int({ description: 'Count of pending invites sent.', resolve: (p) => p.invited }),
      failedSSOEmails: t.stringList({
        description: 'Addresses that could not be invited as SSO users.',
        // Absent, a null here would null the whole payload: the invites sent, the caller told "Unexpected error.".
        resolve: (p) => p.failedSSOEmails ?? [],
      }),
      organization: organization(t),
    }),
  },
);

builder.relayMutationField(
  'joinOrganization',
  { inputFields: (t) => ({ organizationId: t.string({ required: true }), inviteId: t.string({ required: true }) }) },
  {
    description: 'The caller joins with an email or link invite (`POST /orgs/{organizationId}/invites/{inviteId}`).',
    resolve: async (_root, { input: { organizationId, inviteId } }, ctx) => {
      // The caller's organizations change too: an organization write forgets the list `/orgs` (and so every read under it).
      await orgWrite(ctx, organizationId, restPath`/orgs/${organizationId}/invites/${inviteId}`);
      return { organizationId };
    },
  },
  { outputFields: (t) => ({ organization: organization(t) }) },
);

builder.relayMutationField(
  'pingOrganization',
  { inputFields: (t) => ({ organizationId: t.string({ required: true }) }) },
  {
    description: "Records the caller's activity in the organization (`POST /orgs/{organizationId}/ping`).",
    resolve: async (_root, { input: { organizationId } }, ctx) => ({
      ...answered(
        await orgWrite<{ platformVisitorClaims: string } | undefined>(ctx, organizationId, restPath`/orgs/${organizationId}/ping`),
      ),
      organizationId,
    }),
  },
  {
    outputFields: (t) => ({
      platformVisitorClaims: t.string({
        description: "A signed token of the caller's claims in the organization.",
        resolve: (p) => p.platformVisitorClaims,
      }),
      organization: organization(t),
    }),
  },
);
