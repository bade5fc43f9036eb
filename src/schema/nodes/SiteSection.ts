import type { SiteSection as RestSiteSection } from '@gitbook/api';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { orNull, urlsType } from '../lib/fields.js';
import { encodeKeys } from '../lib/node.js';
import { siteScoped, type SiteKeys, type SiteScoped } from '../lib/siteScoped.js';
import { Site } from './Site.js';
import { SiteSpace, siteSpacesOf } from './SiteSpace.js';

export type SiteSectionShape = SiteScoped<RestSiteSection>;

export const siteSections = siteScoped<RestSiteSection>('SiteSection', 'sections', 'Site section', true);
export const SiteSection = siteSections.ref;

/** The local id of a site (what a Site field resolves to, to load it). */
export const siteLocalId = (k: SiteKeys) => encodeKeys([k.organizationId, k.siteId]);

const SiteSectionUrls = urlsType('SiteSectionUrls', 'a site section', [], ['published']);

SiteSection.implement({
  description: 'A section of a site: publishes one or more site spaces (variants) under one path.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the site section.' }),
    title: t.exposeString('title'),
    description: t.string({ nullable: true, resolve: (s) => orNull(s.description) }),
    default: t.boolean({ nullable: true, description: 'Whether the default section of the site.', resolve: (s) => s.default ?? null }),
    path: t.exposeString('path'),
    condition: t.string({ nullable: true, resolve: (s) => orNull(s.condition) }),
    icon: t.string({ nullable: true, resolve: (s) => orNull(s.icon) }),
    urls: t.field({ type: SiteSectionUrls, resolve: (s) => s.urls }),
    siteSpaces: t.field({
      type: [SiteSpace],
      description: 'The site spaces of the section, embedded by REST (no call); each embeds its space.',
      resolve: (s, _args, ctx) => siteSpacesOf(ctx, s, s),
    }),
    site: t.field({ type: Site, nullable: true, resolve: (s) => siteLocalId(s) }),
  }),
});

builder.objectField(SiteSpace, 'section', (t) =>
  t.field({
    type: SiteSection,
    description: 'The section holding the site space (read with it: no call).',
    resolve: (s) => siteSections.attach(s.siteSection, s),
  }),
);

const SiteSectionConnection = builder.connectionObject(
  { type: SiteSection, name: 'SiteSectionConnection' },
  { name: 'SiteSectionEdge' },
);

/** The site's sections as connection options; the embedded spaces prime the loader. */
function sectionList(ctx: GatewayContext, k: SiteKeys) {
  const options = siteSections.list(k);
  return {
    ...options,
    node: (item: RestSiteSection) => {
      siteSpacesOf(ctx, item, k);
      return options.node!(item);
    },
  };
}

builder.objectField(Site, 'sections', (t) =>
  t.field({
    type: SiteSectionConnection,
    nullable: true,
    description:
      'Sections of the site, in site order (`GET …/sections`); `shareKey` opens those of a site published by share link (default: the key the site was opened with).',
    args: { ...forwardArgs, shareKey: t.arg.string() },
    resolve: (site, { shareKey, ...args }, ctx) =>
      resolveList(ctx, args, sectionList(ctx, { ...site, shareKey: shareKey ?? site.shareKey })),
  }),
);
