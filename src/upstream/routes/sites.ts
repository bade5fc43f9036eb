/**
 * Sites (official extras `GET /orgs/{organizationId}/sites[/{siteId}]`) and the four site
 * operations the seed names in its changelog: PATCH site (title, visibility), publish,
 * unpublish, and visitor-authentication settings (`publishing/auth`).
 *
 * Who may do what: a site belongs to its organization. Members with an organization role read
 * sites and everything in them; every write (site settings, sections, groups, redirects, share
 * links) needs the organization role `admin`. Non-members get 404, guests and lower roles 403.
 * An active share link's key opens a published share-link site for reading without a token.
 */
import { requireOrg } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { paginate } from '../pagination.js';
import type { Router } from '../router.js';
import {
  loadSite,
  publishingAuth,
  siteBody,
  sitesOf,
  toPublishingAuth,
  toSite,
  updatePublishingAuth,
  updateSite,
} from '../domain/sites.js';

function listSites(ctx: RequestContext) {
  const { member } = requireOrg(ctx.db, ctx.params.organizationId, ctx.user().id, 'read');
  const filters = { published: ctx.query.boolean('published'), title: ctx.query.string('title'), spaceId: ctx.query.string('space') };
  return paginate(ctx, sitesOf(ctx, ctx.params.organizationId, filters, member.role));
}

function patchSite(ctx: RequestContext) {
  const { site, role } = loadSite(ctx, 'admin');
  const body = siteBody(ctx, 'site.update');
  return toSite(ctx, updateSite(ctx.db, site.id, { title: body.title, visibility: body.visibility }, ctx.now()), role);
}

function setPublished(ctx: RequestContext, published: boolean) {
  const { site, role } = loadSite(ctx, 'admin');
  return toSite(ctx, updateSite(ctx.db, site.id, { published }, ctx.now()), role);
}

function patchPublishingAuth(ctx: RequestContext) {
  const { site } = loadSite(ctx, 'admin');
  const body = siteBody(ctx, 'sitePublishingAuth.update');
  return toPublishingAuth(updatePublishingAuth(ctx.db, site.id, body));
}

export function register(router: Router, _services: UpstreamServices) {
  const base = '/orgs/{organizationId}/sites/{siteId}';
  router.get('/orgs/{organizationId}/sites', listSites);
  router.get(base, (ctx) => {
    const { site, role } = loadSite(ctx, 'read');
    return toSite(ctx, site, role);
  });
  router.patch(base, patchSite);
  router.post(`${base}/publish`, (ctx) => setPublished(ctx, true));
  router.post(`${base}/unpublish`, (ctx) => setPublished(ctx, false));
  router.get(`${base}/publishing/auth`, (ctx) => toPublishingAuth(publishingAuth(ctx.db, loadSite(ctx, 'admin').site.id)));
  router.patch(`${base}/publishing/auth`, patchPublishingAuth);
}
