import type { Site as RestSite, SitePublishingAuth as RestPublishingAuth } from '@gitbook/api';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { PublishingAuthBackend, Role, SiteType, SiteVisibility } from '../lib/enums.js';
import { orNull, urlsType } from '../lib/fields.js';
import { restNodeRef } from '../lib/node.js';
import { sitePath, sitesPath, type SiteKeys } from '../lib/siteScoped.js';
import { Organization } from './Organization.js';

/**
 * A site by its keys, with its REST JSON when read. A site opened by a share key carries none:
 * REST serves no site object for a key (only its sections and redirect lookups), so the site's
 * own fields load it on demand, with the caller's token.
 */
export interface SiteShape extends SiteKeys {
  json?: RestSite;
}

export const siteShape = (json: RestSite, organizationId: string): SiteShape => ({ organizationId, siteId: json.id, json });

export const Site = restNodeRef<SiteShape>('Site', {
  arity: 2,
  keys: (s) => [s.organizationId, s.siteId],
  path: ([organizationId, siteId]) => sitePath({ organizationId, siteId }),
  wrap: (json: RestSite, [organizationId]) => siteShape(json, organizationId),
});

/** The site as REST has it now (a fresh read after a write in the same operation). */
export async function loadSite(ctx: GatewayContext, k: SiteKeys): Promise<SiteShape> {
  return siteShape(await ctx.rest.load<RestSite>(sitePath(k)), k.organizationId);
}

/** A resolver of a field of the site's REST JSON. */
const fromJson =
  <R>(pick: (json: RestSite) => R) =>
  async (site: SiteShape, _args: object, ctx: GatewayContext): Promise<R> =>
    pick(site.json ?? (await ctx.rest.load<RestSite>(sitePath(site))));

const SitePermissions = builder.objectRef<RestSite['permissions']>('SitePermissions').implement({
  description: 'What the caller may do with the site (REST `permissions`).',
  fields: (t) => ({
    view: t.exposeBoolean('view'),
    access: t.exposeBoolean('access'),
    edit: t.exposeBoolean('edit'),
    create: t.exposeBoolean('create'),
    admin: t.exposeBoolean('admin'),
    installIntegration: t.exposeBoolean('installIntegration'),
    viewAdaptiveSchema: t.exposeBoolean('viewAdaptiveSchema'),
    editAdaptiveSchema: t.exposeBoolean('editAdaptiveSchema'),
  }),
});

export const SitePublishingAuth = builder.objectRef<RestPublishingAuth>('SitePublishingAuth').implement({
  description: 'Visitor-authentication settings of a site (organization admins only).',
  fields: (t) => ({
    backend: t.field({ type: PublishingAuthBackend, resolve: (a) => a.backend as never }),
    privateKey: t.exposeString('privateKey'),
    fallbackURL: t.string({ nullable: true, resolve: (a) => orNull(a.fallbackURL) }),
    logoutURL: t.string({ nullable: true, resolve: (a) => orNull(a.logoutURL) }),
  }),
});

export const publishingAuthPath = (k: SiteKeys) => `${sitePath(k)}/publishing/auth`;

const SiteUrls = urlsType('SiteUrls', 'a site', ['location', 'app', 'preview'], ['published', 'login', 'logout']);

Site.implement({
  description:
    'A published documentation site of an organization. Opened with a share key (root `site(shareKey:)`), only `sections` and `redirectLookup` are readable without a token.',
  // The fields read from the site's JSON are nullable: a site opened by a share key has none, so
  // they make a REST call that may fail (no token) while `sections` and `redirectLookup` resolve.
  fields: (t) => ({
    restId: t.string({ description: 'The REST id of the site.', resolve: (s) => s.siteId }),
    title: t.string({ nullable: true, resolve: fromJson((j) => j.title) }),
    type: t.field({ type: SiteType, nullable: true, resolve: fromJson((j) => j.type as never) }),
    appliedType: t.field({ type: SiteType, nullable: true, resolve: fromJson((j) => j.appliedType as never) }),
    visibility: t.field({ type: SiteVisibility, nullable: true, resolve: fromJson((j) => j.visibility as never) }),
    defaultLevel: t.field({
      type: Role,
      nullable: true,
      description: 'Default role on the content for members of the organization; null when inherited (REST `inherit`).',
      resolve: fromJson((j) => (j.defaultLevel === 'inherit' ? null : (j.defaultLevel ?? null)) as never),
    }),
    published: t.boolean({ nullable: true, resolve: fromJson((j) => j.published) }),
    siteSpacesCount: t.int({
      nullable: true,
      description: 'How many site spaces the site publishes (REST `siteSpaces`; the objects are `SiteSection.siteSpaces`).',
      resolve: fromJson((j) => j.siteSpaces),
    }),
    createdAt: t.field({ type: 'DateTime', nullable: true, resolve: fromJson((j) => j.createdAt) }),
    features: t.field({ type: 'JSON', nullable: true, resolve: fromJson((j) => j.features ?? []) }),
    permissions: t.field({ type: SitePermissions, nullable: true, resolve: fromJson((j) => j.permissions) }),
    urls: t.field({ type: SiteUrls, nullable: true, resolve: fromJson((j) => j.urls as never) }),
    organization: t.field({ type: Organization, nullable: true, resolve: (s) => s.organizationId }),
    publishingAuth: t.field({
      type: SitePublishingAuth,
      nullable: true,
      description: 'Visitor-authentication settings (`GET …/publishing/auth`); organization admins only.',
      resolve: (s, _args, ctx) => ctx.rest.load<RestPublishingAuth>(publishingAuthPath(s)),
    }),
  }),
});

const SiteConnection = builder.connectionObject({ type: Site, name: 'SiteConnection' }, { name: 'SiteEdge' });

builder.objectField(Organization, 'sites', (t) =>
  t.field({
    type: SiteConnection,
    nullable: true,
    description: 'Sites of the organization (`GET /orgs/{organizationId}/sites`).',
    args: {
      ...forwardArgs,
      published: t.arg.boolean({ description: 'Only published (true) or unpublished (false) sites.' }),
      title: t.arg.string({ description: 'Only sites whose title contains this text.' }),
      space: t.arg.string({ description: 'Only sites publishing the space with this REST id.' }),
    },
    resolve: (org, { published, title, space, ...args }, ctx) =>
      resolveList(ctx, args, {
        path: sitesPath(org.id),
        query: { published: published ?? undefined, title: title ?? undefined, space: space ?? undefined },
        itemPath: (s: RestSite) => sitePath({ organizationId: org.id, siteId: s.id }),
        node: (s) => siteShape(s, org.id),
      }),
  }),
);

builder.queryFields((t) => ({
  site: t.field({
    type: Site,
    nullable: true,
    description:
      'A site by REST ids (`GET /orgs/{organizationId}/sites/{siteId}`). With `shareKey` nothing is read up front: the key opens the site’s `sections` and `redirectLookup` without a token.',
    args: {
      organizationId: t.arg.string({ required: true }),
      siteId: t.arg.string({ required: true }),
      shareKey: t.arg.string(),
    },
    resolve: (_root, { organizationId, siteId, shareKey }, ctx) =>
      shareKey ? { organizationId, siteId, shareKey } : loadSite(ctx, { organizationId, siteId }),
  }),
}));
