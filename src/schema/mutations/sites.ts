/** Site mutations: settings, publish state, visitor authentication (organization admins). */
import type { Site as RestSite, SitePublishingAuth as RestPublishingAuth } from '@gitbook/api';
import { siteBodies } from '../../api/bodies/sites.js';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { PublishingAuthBackend, SiteVisibility } from '../lib/enums.js';
import { checkInput, restBody } from '../lib/mutation.js';
import { sitePath, siteWrite, type SiteKeys } from '../lib/siteScoped.js';
import { publishingAuthPath, Site, SitePublishingAuth, siteShape, type SiteShape } from '../nodes/Site.js';
import { SITE_KEYS, siteKeyFields, siteKeys, siteOutput, type OutputFields } from './siteInputs.js';

/** Writes to the site itself; the answer (the site) primes the loader. */
async function writeSite(ctx: GatewayContext, k: SiteKeys, method: 'PATCH' | 'POST', path: string, body?: unknown) {
  const json = await siteWrite<RestSite>(ctx, method, k, path, body);
  ctx.rest.prime(sitePath(k), json);
  return { site: siteShape(json, k.organizationId) };
}

/** Payload of a write answered by the site. */
const siteOnly = {
  outputFields: (t: OutputFields<{ site: SiteShape }>) => ({
    site: t.field({ type: Site, nullable: true, resolve: (p) => p.site }),
  }),
};

builder.relayMutationField(
  'updateSite',
  {
    inputFields: (t) => ({
      ...siteKeyFields(t),
      title: t.string(),
      visibility: t.field({ type: SiteVisibility }),
    }),
  },
  {
    description: 'Changes the title or visibility of a site (`PATCH /orgs/{organizationId}/sites/{siteId}`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, SITE_KEYS);
      checkInput(siteBodies['site.update'], body);
      return writeSite(ctx, siteKeys(input), 'PATCH', sitePath(siteKeys(input)), body);
    },
  },
  siteOnly,
);

builder.relayMutationField(
  'publishSite',
  { inputFields: (t) => siteKeyFields(t) },
  {
    description: 'Publishes a site to the audience of its visibility (`POST …/sites/{siteId}/publish`).',
    resolve: (_root, { input }, ctx) => writeSite(ctx, siteKeys(input), 'POST', `${sitePath(siteKeys(input))}/publish`),
  },
  siteOnly,
);

builder.relayMutationField(
  'unpublishSite',
  { inputFields: (t) => siteKeyFields(t) },
  {
    description: 'Takes a site offline (`POST …/sites/{siteId}/unpublish`).',
    resolve: (_root, { input }, ctx) => writeSite(ctx, siteKeys(input), 'POST', `${sitePath(siteKeys(input))}/unpublish`),
  },
  siteOnly,
);

builder.relayMutationField(
  'updateSitePublishingAuth',
  {
    inputFields: (t) => ({
      ...siteKeyFields(t),
      backend: t.field({ type: PublishingAuthBackend, required: true }),
      fallbackURL: t.string({ description: 'Absolute URL; null removes it.' }),
      logoutURL: t.string({ description: 'Absolute URL; null removes it.' }),
    }),
  },
  {
    description: 'Changes the visitor-authentication settings of a site (`PATCH …/sites/{siteId}/publishing/auth`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, SITE_KEYS);
      checkInput(siteBodies['sitePublishingAuth.update'], body);
      const keys = siteKeys(input);
      const publishingAuth = await siteWrite<RestPublishingAuth>(ctx, 'PATCH', keys, publishingAuthPath(keys), body);
      return { keys, publishingAuth };
    },
  },
  {
    outputFields: (t) => ({
      publishingAuth: t.field({ type: SitePublishingAuth, nullable: true, resolve: (p) => p.publishingAuth }),
      site: siteOutput(t),
    }),
  },
);
