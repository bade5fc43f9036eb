/**
 * Site share links (`/orgs/{organizationId}/sites/{siteId}/share-links`). Listing links reveals
 * their keys, so every operation here needs the organization role admin.
 */
import type { RequestContext, UpstreamServices } from '../context.js';
import { registerSiteList } from '../crud.js';
import { insertShareLink, SHARE_LINKS, toShareLink, updateShareLink, type ShareLinkRow } from '../domain/shareLinks.js';
import { siteBody, type SiteAccess } from '../domain/sites.js';
import { Reply, type Router } from '../router.js';

function create(ctx: RequestContext, { site }: SiteAccess) {
  const body = siteBody(ctx, 'shareLink.create');
  return new Reply(201, toShareLink(ctx, site, insertShareLink(ctx.db, site.id, body.name, ctx.now())));
}

function update(ctx: RequestContext, { site }: SiteAccess, link: ShareLinkRow) {
  const body = siteBody(ctx, 'shareLink.update');
  return toShareLink(ctx, site, updateShareLink(ctx.db, link, { active: body.active, name: body.name }));
}

export function register(router: Router, _services: UpstreamServices) {
  registerSiteList(router, {
    path: 'share-links',
    param: 'shareLinkId',
    table: SHARE_LINKS,
    readRole: 'admin',
    show:
      (ctx, { site }) =>
      (row: ShareLinkRow) =>
        toShareLink(ctx, site, row),
    create: ['POST', create],
    update: ['PATCH', update],
  });
}
