import type { SiteRedirect as RestSiteRedirect } from '@gitbook/api';
import { builder } from '../builder.js';
import { SiteRedirectDestinationKind } from '../lib/enums.js';
import { orNull } from '../lib/fields.js';
import { fillPath, resourceInfo, resourceNode, shareQuery, edge } from '../lib/resource.js';
import { Site, type SiteKeys } from './Site.js';
import { SiteSection } from './SiteSection.js';
import { EMBEDDED } from '../lib/cost.js';

type RedirectShape = RestSiteRedirect & SiteKeys;

declare module '../lib/resource.js' {
  interface ResourceShapes {
    SiteRedirect: RedirectShape;
  }
}

export const SiteRedirect = resourceNode('SiteRedirect');

/** A destination with the keys of its site, so its section edge can load. */
type Destination = RestSiteRedirect['destination'] & SiteKeys;

const SiteRedirectDestination = builder.objectRef<Destination>('SiteRedirectDestination').implement({
  description:
    'Where a redirect leads: a section of the site (kind SITE_SECTION), a site space (SITE_SPACE), a page of a site space (SITE_PAGE) or a URL (EXTERNAL).',
  fields: (t) => ({
    kind: t.field({ type: SiteRedirectDestinationKind, resolve: (d) => d.kind }),
    siteSectionId: t.string({ nullable: true, resolve: (d) => (d.kind === 'site-section' ? d.siteSectionId : null) }),
    siteSpaceId: t.string({
      nullable: true,
      description: 'The REST id of the site space (kinds SITE_SPACE and SITE_PAGE).',
      resolve: (d) => (d.kind === 'site-space' || d.kind === 'site-page' ? d.siteSpaceId : null),
    }),
    pageId: t.string({
      nullable: true,
      description: 'The REST id of the page (kind SITE_PAGE).',
      resolve: (d) => (d.kind === 'site-page' ? d.pageId : null),
    }),
    url: t.string({ nullable: true, description: 'The URL (kind EXTERNAL).', resolve: (d) => (d.kind === 'external' ? d.url : null) }),
    siteSection: t.field({
      type: SiteSection,
      nullable: true,
      // Walked with the share key the redirect was read with.
      resolve: (d, _args, ctx) =>
        d.kind === 'site-section' ? resourceInfo('SiteSection').find(ctx, [d.organizationId, d.siteId, d.siteSectionId], d) : null,
    }),
  }),
});

SiteRedirect.implement({
  description: 'A redirect from a source path of a site to a destination.',
  fields: (t) => ({
    source: t.exposeString('source'),
    destination: t.field({
      type: SiteRedirectDestination,
      resolve: (r) => ({ ...r.destination, organizationId: r.organizationId, siteId: r.siteId, shareKey: r.shareKey }),
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (r) => r.createdAt }),
    updatedAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => orNull(r.updatedAt) }),
    site: edge(t, 'Site', (r) => [r.organizationId, r.siteId]),
  }),
});

interface Lookup {
  redirect: RedirectShape;
  target: string;
}

const SiteRedirectLookup = builder.objectRef<Lookup>('SiteRedirectLookup').implement({
  description: 'A redirect found by its source, and the absolute URL it leads to.',
  fields: (t) => ({
    redirect: t.field({ type: SiteRedirect, extensions: EMBEDDED, resolve: (l) => l.redirect }),
    target: t.exposeString('target', { description: 'Absolute URL of the destination.' }),
  }),
});

builder.objectFields(Site, (t) => ({
  redirectLookup: t.field({
    type: SiteRedirectLookup,
    nullable: true,
    description:
      'The redirect from `source` and its target URL (`GET …/redirect`); `shareKey` opens a site published by share link (default: the key the site was opened with).',
    args: { source: t.arg.string({ required: true }), shareKey: t.arg.string() },
    resolve: async (site, { source, shareKey }, ctx) => {
      const k: SiteKeys = { organizationId: site.organizationId, siteId: site.siteId, shareKey: shareKey ?? site.shareKey };
      const res = await ctx.rest.load<{ redirect: RestSiteRedirect; target: string }>(
        fillPath('/orgs/{organizationId}/sites/{siteId}/redirect', k)!,
        {
          source,
          ...shareQuery(k),
        },
      );
      return { redirect: resourceInfo('SiteRedirect').attach(res.redirect, k), target: res.target };
    },
  }),
}));
