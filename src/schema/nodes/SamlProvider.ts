import type { OrganizationSAMLProvider as RestSamlProvider, OrganizationSSOProviderLogin as RestSsoLogin } from '@gitbook/api';
import { builder } from '../builder.js';
import { Role, SamlProviderStatus } from '../lib/enums.js';
import { orNull, urlsType } from '../lib/fields.js';
import { restPath } from '../lib/node.js';
import { markOnRef } from '../lib/refs.js';
import { edge, embedded, resourceNode } from '../lib/resource.js';
import { Organization } from './Organization.js';
import { Team } from './Team.js';
import { EMBEDDED } from '../lib/cost.js';

type OfOrganization<T> = T & { organizationId: string };

/** SAML providers of an organization (`/orgs/{organizationId}/saml/{samlProviderId}`). */
declare module '../lib/resource.js' {
  interface ResourceShapes {
    SamlProvider: OfOrganization<RestSamlProvider>;
  }
}

export const SamlProvider = resourceNode('SamlProvider');

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
    label: t.exposeString('label'),
    ssoURL: t.string({ nullable: true, resolve: (p) => orNull(p.ssoURL) }),
    entityID: t.string({ nullable: true, resolve: (p) => orNull(p.entityID) }),
    certificate: t.string({ nullable: true, resolve: (p) => orNull(p.certificate) }),
    // The embedded default team primes the loader: a later read of that team costs no call.
    defaultTeam: t.field({
      type: Team,
      nullable: true,
      extensions: EMBEDDED,
      resolve: (p, _args, ctx) => (p.defaultTeam ? embedded(ctx, 'Team', p.defaultTeam, { organizationId: p.organizationId }) : null),
    }),
    defaultRole: t.field({
      type: Role,
      nullable: true,
      description: 'Role of new members; null for guests.',
      resolve: (p) => p.defaultRole as never,
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (p) => p.createdAt }),
    status: t.field({ type: SamlProviderStatus, resolve: (p) => p.status as never }),
    service: t.field({ type: SamlProviderService, resolve: (p) => p.service }),
    urls: t.field({ type: SamlProviderUrls, resolve: (p) => p.urls }),
    organization: edge(t, 'Organization', (p) => [p.organizationId]),
  }),
});

/** SSO login information of a provider: what a sign-in page shows. Not addressable on its own. */
const SsoLogin = builder.objectRef<OfOrganization<RestSsoLogin>>('SsoLogin').implement({
  description: 'How to sign in to the organization with one of its SAML providers.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the SAML provider.' }),
    label: t.exposeString('label'),
    startURL: t.exposeString('startURL', { description: 'Where the identity provider login starts.' }),
    samlProvider: edge(t, 'SamlProvider', (l) => [l.organizationId, l.id], {
      description: 'The SAML provider (readable by organization admins).',
    }),
  }),
});

builder.objectField(Organization, 'ssoLogins', (t) =>
  t.field({
    type: [SsoLogin],
    nullable: true,
    description: 'How to sign in with SSO (`GET /orgs/{organizationId}/sso`).',
    // A REST call of its own (cost.ts prices a field without arguments at 0).
    extensions: { cost: { weight: 1 } },
    resolve: async (org, _args, ctx) => {
      const { items } = await ctx.rest.load<{ items: RestSsoLogin[] }>(restPath`/orgs/${org.id}/sso`);
      return items.map((login) => ({ ...login, organizationId: org.id }));
    },
  }),
);
// REST serves SSO logins to any token, member or not (a sign-in page shows them before anyone is a
// member): read on the reference, they need no `GET /orgs/{organizationId}`, which a non-member
// is refused (NOT_FOUND where REST answers).
markOnRef('Organization', ['ssoLogins']);
