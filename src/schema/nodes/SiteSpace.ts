import type { SiteSection as RestSiteSection, SiteSpace as RestSiteSpace } from '@gitbook/api';
import type { GatewayContext } from '../context.js';
import { notFoundError } from '../lib/errors.js';
import { urlsType } from '../lib/fields.js';
import { findListed, listedNodeRef, shareQuery, siteListPath, type SiteKeys, type SiteScoped } from '../lib/siteScoped.js';
import { Space, spacePath } from './Space.js';

/** A site space with the keys of its site and section (REST `section`), and that section's JSON. */
export type SiteSpaceShape = SiteScoped<RestSiteSpace> & { siteSectionId: string; siteSection: RestSiteSection };

/** The REST list that carries sections and, embedded in them, their site spaces. */
export const sectionsPath = (k: SiteKeys) => siteListPath(k, 'sections');

/**
 * The site spaces of a section, with their keys. Each embeds its full Space: the loader is primed
 * with it (under the share key it was read with), so `space { … }` and a later `space(spaceId:)`
 * cost no call.
 */
export function siteSpacesOf(ctx: GatewayContext, section: RestSiteSection, k: SiteKeys): SiteSpaceShape[] {
  return section.siteSpaces.map((s) => {
    ctx.rest.prime(spacePath(s.space.id), s.space, shareQuery(k));
    return {
      ...s,
      organizationId: k.organizationId,
      siteId: k.siteId,
      siteSectionId: section.id,
      siteSection: section,
      ...(k.shareKey ? { shareKey: k.shareKey } : {}),
    };
  });
}

/**
 * REST has no GET for one site space (nor for one section): a site space is refetched through
 * its site's section list, then found in its section.
 */
async function findSiteSpace(ctx: GatewayContext, [organizationId, siteId, siteSectionId, siteSpaceId]: string[]) {
  const k = { organizationId, siteId };
  const section = await findListed<RestSiteSection>(ctx, sectionsPath(k), siteSectionId, 'Site section');
  const found = siteSpacesOf(ctx, section, k).find((s) => s.id === siteSpaceId);
  if (!found) throw notFoundError('Site space not found');
  return found;
}

export const SiteSpace = listedNodeRef<SiteSpaceShape>('SiteSpace', {
  arity: 4,
  keys: (s) => [s.organizationId, s.siteId, s.siteSectionId, s.id],
  find: (keys, ctx) => findSiteSpace(ctx, keys),
});

const SiteSpaceUrls = urlsType('SiteSpaceUrls', 'a site space', [], ['published']);

SiteSpace.implement({
  description: 'A space published by a site section (one variant of the section).',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the site space.' }),
    path: t.exposeString('path'),
    title: t.exposeString('title'),
    default: t.boolean({ nullable: true, resolve: (s) => s.default ?? null }),
    condition: t.string({ nullable: true, resolve: (s) => s.condition ?? null }),
    hasAdvancedCustomizationFeature: t.boolean({ nullable: true, resolve: (s) => s.hasAdvancedCustomizationFeature ?? null }),
    urls: t.field({ type: SiteSpaceUrls, resolve: (s) => s.urls }),
    space: t.field({ type: Space, description: 'The published space (embedded by REST: no call).', resolve: (s) => s.space }),
  }),
});
