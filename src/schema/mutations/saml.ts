import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import { builder } from '../builder.js';
import { Role } from '../lib/enums.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { Organization } from '../nodes/Organization.js';
import { SamlProvider, samlProviders } from '../nodes/SamlProvider.js';
import { forgetOrganization } from './members.js';

/** Body fields of create and update (`label` is required on create only). */
const providerFields = (t: PothosSchemaTypes.InputFieldBuilder<any, 'InputObject'>, labelRequired: boolean) => ({
  label: t.string({ required: labelRequired, description: '1 to 30 characters.' }),
  entityID: t.string({ description: "The identity provider's entity ID." }),
  certificate: t.string({ description: "The identity provider's certificate." }),
  ssoURL: t.string({ description: "The identity provider's sign-in URL." }),
  defaultTeam: t.string({ description: 'Id of a team new members join; null clears it.' }),
  defaultRole: t.field({ type: Role, description: 'Role of new members; null for guests.' }),
});

builder.relayMutationField(
  'createSamlProvider',
  { inputFields: (t) => ({ organizationId: t.string({ required: true }), ...providerFields(t, true) }) },
  {
    description: 'Adds a SAML provider (`POST /orgs/{organizationId}/saml`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, ['organizationId']);
      checkInput(bodies['samlProvider.create'], body);
      forgetOrganization(ctx, input.organizationId);
      const samlProvider = await samlProviders.save(ctx, 'POST', input.organizationId, body);
      return { organizationId: input.organizationId, samlProvider };
    },
  },
  {
    outputFields: (t) => ({
      samlProvider: t.field({ type: SamlProvider, nullable: true, resolve: (p) => p.samlProvider }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.organizationId }),
    }),
  },
);

builder.relayMutationField(
  'updateSamlProvider',
  {
    inputFields: (t) => ({
      organizationId: t.string({ required: true }),
      samlProviderId: t.string({ required: true }),
      ...providerFields(t, false),
    }),
  },
  {
    description: 'Changes a SAML provider (`PATCH /orgs/{organizationId}/saml/{samlProviderId}`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, ['organizationId', 'samlProviderId']);
      checkInput(bodies['samlProvider.update'], body);
      forgetOrganization(ctx, input.organizationId);
      return { samlProvider: await samlProviders.save(ctx, 'PATCH', input.organizationId, body, input.samlProviderId) };
    },
  },
  { outputFields: (t) => ({ samlProvider: t.field({ type: SamlProvider, nullable: true, resolve: (p) => p.samlProvider }) }) },
);

builder.relayMutationField(
  'deleteSamlProvider',
  { inputFields: (t) => ({ organizationId: t.string({ required: true }), samlProviderId: t.string({ required: true }) }) },
  {
    description: 'Removes a SAML provider (`DELETE /orgs/{organizationId}/saml/{samlProviderId}`).',
    resolve: async (_root, { input }, ctx) => {
      forgetOrganization(ctx, input.organizationId);
      await samlProviders.remove(ctx, input.organizationId, input.samlProviderId);
      const deletedId = globalId('SamlProvider', input.organizationId, input.samlProviderId);
      return { organizationId: input.organizationId, deletedId };
    },
  },
  {
    outputFields: (t) => ({
      deletedId: t.id({ resolve: (p) => p.deletedId }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.organizationId }),
    }),
  },
);
