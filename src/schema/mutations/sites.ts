/** Site visitor-authentication settings (organization admins); the site's own writes come from src/schema/resources.ts. */
import type { SitePublishingAuth as RestPublishingAuth } from '@gitbook/api';
import { siteBodies } from '../../api/bodies/sites.js';
import { builder } from '../builder.js';
import { PublishingAuthBackend } from '../lib/enums.js';
import { checkInput, restBody } from '../lib/mutation.js';
import { siteWrite } from '../lib/siteScoped.js';
import { publishingAuthPath, SitePublishingAuth } from '../nodes/Site.js';
import { SITE_KEYS, siteKeyFields, siteKeys, siteOutput } from './siteInputs.js';

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
