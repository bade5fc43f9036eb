import type { Site as RestSite, SitePublishingAuth as RestPublishingAuth } from '@gitbook/api';
import { builder } from '../builder.js';
import { PublishingAuthBackend, Role, SiteType, SiteVisibility } from '../lib/enums.js';
import { orNull, permissionsType, urlsType } from '../lib/fields.js';
import { markOnRef } from '../lib/refs.js';
import { edge, fillPath, resourceNode } from '../lib/resource.js';

/** The site an object belongs to, and the share key it was read with (not part of ids). */
export interface SiteKeys {
  organizationId: string;
  siteId: string;
  shareKey?: string;
}

/**
 * A site: its REST JSON plus its keys (and the share key it was opened with). A site opened by a
 * share key is a reference: REST serves no site object for a key (only its sections and redirect
 * lookups), so the site's own fields load it on demand, with the caller's token.
 */
type SiteShape = RestSite & SiteKeys;

declare module '../lib/resource.js' {
  interface ResourceShapes {
    Site: SiteShape;
  }
}

export const Site = resourceNode('Site');
markOnRef('Site', ['sections', 'redirectLookup']);

const SITE_FLAGS = ['view', 'access', 'edit', 'create', 'admin', 'installIntegration', 'viewAdaptiveSchema', 'editAdaptiveSchema'];
const SitePermissions = permissionsType('SitePermissions', 'with the site', SITE_FLAGS);

const SitePublishingAuth = builder.objectRef<RestPublishingAuth>('SitePublishingAuth').implement({
  description: 'Visitor-authentication settings of a site (organization admins only).',
  fields: (t) => ({
    backend: t.field({ type: PublishingAuthBackend, resolve: (a) => a.backend as never }),
    privateKey: t.exposeString('privateKey'),
    fallbackURL: t.string({ nullable: true, resolve: (a) => orNull(a.fallbackURL) }),
    logoutURL: t.string({ nullable: true, resolve: (a) => orNull(a.logoutURL) }),
  }),
});

const SiteUrls = urlsType('SiteUrls', 'a site', ['location', 'app', 'preview'], ['published', 'login', 'logout']);

Site.implement({
  description:
    'A published documentation site of an organization. Opened with a share key (root `site(shareKey:)`), only `sections` and `redirectLookup` are readable without a token.',
  // The fields read from the site's JSON are nullable: a site opened by a share key is a reference,
  // so they make a REST call that may fail (no token) while `sections` and `redirectLookup` resolve.
  fields: (t) => ({
    title: t.string({ nullable: true, resolve: (j) => j.title }),
    type: t.field({ type: SiteType, nullable: true, resolve: (j) => j.type as never }),
    appliedType: t.field({ type: SiteType, nullable: true, resolve: (j) => j.appliedType as never }),
    visibility: t.field({ type: SiteVisibility, nullable: true, resolve: (j) => j.visibility as never }),
    defaultLevel: t.field({
      type: Role,
      nullable: true,
      description: 'Default role on the content for members of the organization; null when inherited (REST `inherit`).',
      resolve: (j) => (j.defaultLevel === 'inherit' ? null : (j.defaultLevel ?? null)) as never,
    }),
    published: t.boolean({ nullable: true, resolve: (j) => j.published }),
    siteSpacesCount: t.int({
      nullable: true,
      description: 'How many site spaces the site publishes (REST `siteSpaces`; the objects are `SiteSection.siteSpaces`).',
      resolve: (j) => j.siteSpaces,
    }),
    createdAt: t.field({ type: 'DateTime', nullable: true, resolve: (j) => j.createdAt }),
    features: t.field({ type: 'JSON', nullable: true, resolve: (j) => j.features ?? [] }),
    permissions: t.field({ type: SitePermissions, nullable: true, resolve: (j) => j.permissions }),
    urls: t.field({ type: SiteUrls, nullable: true, resolve: (j) => j.urls as never }),
    organization: edge(t, 'Organization', (s) => [s.organizationId]),
    publishingAuth: t.field({
      type: SitePublishingAuth,
      nullable: true,
      description: 'Visitor-authentication settings (`GET …/publishing/auth`); organization admins only.',
      // A REST call of its own (cost.ts prices a field without arguments at 0).
      extensions: { cost: { weight: 1 } },
      resolve: (s, _args, ctx) => ctx.rest.load<RestPublishingAuth>(fillPath('/orgs/{organizationId}/sites/{siteId}/publishing/auth', s)!),
    }),
  }),
});
