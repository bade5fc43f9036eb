import type { SiteSpace as RestSiteSpace } from '@gitbook/api';
import { urlsType } from '../lib/fields.js';
import { embedded, resourceNode, shareQuery } from '../lib/resource.js';
import type { SiteKeys } from './Site.js';
import type { SiteSectionShape } from './SiteSection.js';
import { Space } from './Space.js';
import { EMBEDDED } from '../lib/cost.js';

/** A site space with the keys of its section, and that section (REST embeds site spaces in sections;
 * `section` is added in SiteSection.ts). */
export type SiteSpaceShape = RestSiteSpace & SiteKeys & { siteSectionId: string; siteSection: SiteSectionShape };

declare module '../lib/resource.js' {
  interface ResourceShapes {
    SiteSpace: SiteSpaceShape;
  }
}

export const SiteSpace = resourceNode('SiteSpace');

const SiteSpaceUrls = urlsType('SiteSpaceUrls', 'a site space', [], ['published']);

SiteSpace.implement({
  description: 'A space published by a site section (one variant of the section).',
  fields: (t) => ({
    path: t.exposeString('path'),
    title: t.exposeString('title'),
    default: t.boolean({ nullable: true, resolve: (s) => s.default ?? null }),
    condition: t.string({ nullable: true, resolve: (s) => s.condition ?? null }),
    hasAdvancedCustomizationFeature: t.boolean({ nullable: true, resolve: (s) => s.hasAdvancedCustomizationFeature ?? null }),
    urls: t.field({ type: SiteSpaceUrls, resolve: (s) => s.urls }),
    // The embedded space primes the loader (under the share key it was read with): a later
    // `space(spaceId:)` costs no call.
    space: t.field({
      type: Space,
      description: 'The published space (embedded by REST: no call).',
      extensions: EMBEDDED,
      resolve: (s, _args, ctx) => embedded(ctx, 'Space', s.space, {}, shareQuery(s)),
    }),
  }),
});
