/**
 * Site redirects (`/orgs/{organizationId}/sites/{siteId}/redirects`): a source path of the site
 * that redirects to a section; `GET …/redirect?source=` resolves one to its absolute target URL.
 */
import { redirectSource } from '../../api/bodies/sites.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { registerSiteList, sitePath } from '../crud.js';
import { insertRedirect, redirectFrom, SITE_REDIRECTS, toRedirect, updateRedirect, type RedirectRow } from '../domain/siteRedirects.js';
import { loadSection, sectionUrl, sectionView } from '../domain/siteSections.js';
import { loadSite, siteBody, type SiteAccess } from '../domain/sites.js';
import { Reply, type Router } from '../router.js';

function create(ctx: RequestContext, { site }: SiteAccess) {
  const body = siteBody(ctx, 'siteRedirect.create');
  return new Reply(201, toRedirect(insertRedirect(ctx.db, site.id, { source: body.source, destination: body.destination }, ctx.now())));
}

function update(ctx: RequestContext, _access: SiteAccess, redirect: RedirectRow) {
  const body = siteBody(ctx, 'siteRedirect.update');
  return toRedirect(updateRedirect(ctx.db, redirect, { source: body.source, destination: body.destination }, ctx.now()));
}

/** `{redirect, target}`: the redirect from `source` and the absolute URL of its destination. */
function lookupRedirect(ctx: RequestContext) {
  const access = loadSite(ctx, 'read', { shareKey: ctx.query.string('shareKey') });
  const source = ctx.query.requiredString('source', redirectSource);
  const row = redirectFrom(ctx.db, access.site.id, source);
  const section = loadSection(ctx.db, access.site, row.destination_section_id);
  return { redirect: toRedirect(row), target: sectionUrl(ctx, sectionView(ctx.db, access), section) };
}

export function register(router: Router, _services: UpstreamServices) {
  registerSiteList(router, {
    path: 'redirects',
    param: 'siteRedirectId',
    table: SITE_REDIRECTS,
    readRole: 'read',
    show: () => toRedirect,
    create: ['POST', create],
    update: ['PATCH', update],
  });
  router.get(sitePath('redirect'), lookupRedirect, { anonymous: true });
}
