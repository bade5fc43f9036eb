import type { ShareLink as RestShareLink } from '@gitbook/api';
import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { orNull, urlsType } from '../lib/fields.js';
import { siteScoped } from '../lib/siteScoped.js';
import { Site } from './Site.js';
import { siteLocalId } from './SiteSection.js';

export const shareLinks = siteScoped<RestShareLink>('ShareLink', 'share-links', 'Share link');
export const ShareLink = shareLinks.ref;

const ShareLinkUrls = urlsType('ShareLinkUrls', 'a share link (`published` holds its secret key)', [], ['published']);

ShareLink.implement({
  description: 'A share link of a site: while active, its secret key (in `urls.published`) opens the site published by share link.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the share link.' }),
    name: t.string({ nullable: true, resolve: (l) => orNull(l.name) }),
    active: t.boolean({ nullable: true, resolve: (l) => orNull(l.active) }),
    createdAt: t.field({ type: 'DateTime', resolve: (l) => l.createdAt }),
    urls: t.field({ type: ShareLinkUrls, resolve: (l) => l.urls }),
    site: t.field({ type: Site, nullable: true, resolve: (l) => siteLocalId(l) }),
  }),
});

const ShareLinkConnection = builder.connectionObject({ type: ShareLink, name: 'ShareLinkConnection' }, { name: 'ShareLinkEdge' });

builder.objectField(Site, 'shareLinks', (t) =>
  t.field({
    type: ShareLinkConnection,
    nullable: true,
    description: 'Share links of the site, oldest first (`GET …/share-links`); organization admins only (they reveal keys).',
    args: forwardArgs,
    resolve: (site, args, ctx) => resolveList(ctx, args, shareLinks.list(site)),
  }),
);
