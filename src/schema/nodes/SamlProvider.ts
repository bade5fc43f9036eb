import type { OrganizationSAMLProvider as RestSamlProvider, OrganizationSSOProviderLogin as RestSsoLogin } from '@gitbook/api';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { Role, SamlProviderStatus } from '../lib/enums.js';
import { orNull, urlsType } from '../lib/fields.js';
import { encodeKeys, restPath } from '../lib/node.js';
import { orgScoped, type OrgScoped } from '../lib/orgScoped.js';
import { Organization } from './Organization.js';
import { embedded } from '../lib/resource.js';
import { Team } from './Team.js';

/** SAML providers of an organization (`/orgs/{organizationId}/saml/{samlProviderId}`). */
export const samlProviders = orgScoped<RestSamlProvider>('SamlProvider', { segment: 'saml', key: (p) => p.id });
export const SamlProvider = samlProviders.ref;

/** The provider's embedded default team, primed so a later read of that team costs no call. */
function defaultTeamOf(ctx: GatewayContext, provider: OrgScoped<RestSamlProvider>) {
  const team = provider.defaultTeam;
  if (!team) return null;
  return embedded(ctx, 'Team', team, { organizationId: provider.organizationId });
}

const SamlProviderService = builder.objectRef<RestSamlProvider['service']>('SamlProviderService').implement({
  description: 'Where the identity provider talks to this service.',
  fields: (t) => ({
    acsURL: t.exposeString('acsURL', { description: 'Assertion Consumer Service URL.' }),
    startURL: t.exposeString('startURL', { description: 'Start URL for the identity provider.' }),
    entityID: t.exposeString('entityID'),
  }),
});

const SamlProviderUrls = urlsType('SamlProviderUrls', 'a SAML provider', ['location']);

SamlProvider.implement({
  description: 'A SAML single sign-on provider of an organization.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the provider.' }),
    label: t.exposeString('label'),
    ssoURL: t.string({ nullable: true, resolve: (p) => orNull(p.ssoURL) }),
    entityID: t.string({ nullable: true, resolve: (p) => orNull(p.entityID) }),
    certificate: t.string({ nullable: true, resolve: (p) => orNull(p.certificate) }),
    defaultTeam: t.field({ type: Team, nullable: true, resolve: (p, _args, ctx) => defaultTeamOf(ctx, p) }),
    defaultRole: t.field({ type: Role, nullable: true, description: 'Role of new members; null for guests.', resolve: (p) => p.defaultRole as never }),
    createdAt: t.field({ type: 'DateTime', resolve: (p) => p.createdAt }),
    status: t.field({ type: SamlProviderStatus, resolve: (p) => p.status as never }),
    service: t.field({ type: SamlProviderService, resolve: (p) => p.service }),
    urls: t.field({ type: SamlProviderUrls, resolve: (p) => p.urls }),
    organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.organizationId }),
  }),
});

export const SamlProviderConnection = builder.connectionObject(
  { type: SamlProvider, name: 'SamlProviderConnection' },
  { name: 'SamlProviderEdge' },
);

/** SSO login information of a provider: what a sign-in page shows. Not addressable on its own. */
const SsoLogin = builder.objectRef<OrgScoped<RestSsoLogin>>('SsoLogin').implement({
  description: 'How to sign in to the organization with one of its SAML providers.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the SAML provider.' }),
    label: t.exposeString('label'),
    startURL: t.exposeString('startURL', { description: 'Where the identity provider login starts.' }),
    samlProvider: t.field({
      type: SamlProvider,
      nullable: true,
      description: 'The SAML provider (readable by organization admins).',
      resolve: (login) => encodeKeys([login.organizationId, login.id]),
    }),
  }),
});

builder.objectFields(Organization, (t) => ({
  samlProviders: t.field({
    type: SamlProviderConnection,
    nullable: true,
    description: 'SAML providers of the organization, for admins (`GET /orgs/{organizationId}/saml`).',
    args: forwardArgs,
    resolve: (org, args, ctx) => resolveList(ctx, args, samlProviders.list(org.id)),
  }),
  ssoLogins: t.field({
    type: [SsoLogin],
    nullable: true,
    description: 'How to sign in with SSO (`GET /orgs/{organizationId}/sso`).',
    resolve: async (org, _args, ctx) => {
      const { items } = await ctx.rest.load<{ items: RestSsoLogin[] }>(restPath`/orgs/${org.id}/sso`);
      return items.map((login) => ({ ...login, organizationId: org.id }));
    },
  }),
}));

builder.queryFields((t) => ({
  samlProvider: t.field({
    type: SamlProvider,
    nullable: true,
    description: 'A SAML provider by REST id (`GET /orgs/{organizationId}/saml/{samlProviderId}`).',
    args: { organizationId: t.arg.string({ required: true }), samlProviderId: t.arg.string({ required: true }) },
    resolve: (_root, { organizationId, samlProviderId }) => encodeKeys([organizationId, samlProviderId]),
  }),
}));
