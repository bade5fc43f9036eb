import type { ShareLink as RestShareLink } from '@gitbook/api';
import { orNull, urlsType } from '../lib/fields.js';
import { edge, resourceNode } from '../lib/resource.js';
import type { SiteKeys } from './Site.js';

declare module '../lib/resource.js' {
  interface ResourceShapes {
    ShareLink: RestShareLink & SiteKeys;
  }
}

export const ShareLink = resourceNode('ShareLink');

const ShareLinkUrls = urlsType('ShareLinkUrls', 'a share link (`published` holds its secret key)', [], ['published']);

ShareLink.implement({
  description: 'A share link of a site: while active, its secret key (in `urls.published`) opens the site published by share link.',
  fields: (t) => ({
    name: t.string({ nullable: true, resolve: (l) => orNull(l.name) }),
    active: t.boolean({ nullable: true, resolve: (l) => orNull(l.active) }),
    createdAt: t.field({ type: 'DateTime', resolve: (l) => l.createdAt }),
    urls: t.field({ type: ShareLinkUrls, resolve: (l) => l.urls }),
    site: edge(t, 'Site', (l) => [l.organizationId, l.siteId]),
  }),
});
