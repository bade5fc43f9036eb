import type { SiteSection as RestSiteSection } from '@gitbook/api';
import { builder } from '../builder.js';
import { orNull, urlsType } from '../lib/fields.js';
import { edge, resourceNode, within } from '../lib/resource.js';
import type { SiteKeys } from './Site.js';
import { SiteSpace } from './SiteSpace.js';
import { EMBEDDED } from '../lib/cost.js';

export type SiteSectionShape = RestSiteSection & SiteKeys & { siteSectionId: string };

declare module '../lib/resource.js' {
  interface ResourceShapes {
    SiteSection: SiteSectionShape;
  }
}

export const SiteSection = resourceNode('SiteSection');

const SiteSectionUrls = urlsType('SiteSectionUrls', 'a site section', [], ['published']);

SiteSection.implement({
  description: 'A section of a site: publishes one or more site spaces (variants) under one path.',
  fields: (t) => ({
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
      extensions: EMBEDDED,
      resolve: (s) => within('SiteSpace', s),
    }),
    site: edge(t, 'Site', (s) => [s.organizationId, s.siteId]),
    sectionGroup: edge(t, 'SiteSectionGroup', (s) => [s.organizationId, s.siteId, s.sectionGroup], {
      description: 'The group holding the section (REST `sectionGroup`), if any.',
    }),
  }),
});

builder.objectField(SiteSpace, 'section', (t) =>
  t.field({
    type: SiteSection,
    description: 'The section holding the site space (read with it: no call).',
    extensions: EMBEDDED,
    resolve: (s) => s.siteSection,
  }),
);
