import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import { findOrg, requireOrg } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { registerOwnedRoutes } from '../crud.js';
import { insertProvider, SAML_PROVIDERS, ssoLogins, toSamlProvider, updateProvider, type SamlProviderRow } from '../domain/saml.js';
import { notFound } from '../errors.js';
import { Reply, type Router } from '../router.js';

/** Every operation on SAML providers needs the organization role admin. */
const orgAdmin = (ctx: RequestContext) => requireOrg(ctx.db, ctx.params.organizationId, ctx.user().id, 'admin');
type OrgAdmin = ReturnType<typeof orgAdmin>;

export function register(router: Router, _services: UpstreamServices) {
  registerOwnedRoutes(router, {
    base: '/orgs/{organizationId}/saml',
    param: 'samlProviderId',
    table: SAML_PROVIDERS,
    access: orgAdmin,
    ownerId: ({ org }) => org.id,
    show: (ctx) => (row: SamlProviderRow) => toSamlProvider(ctx, row),
    read: true,
    create: [
      'POST',
      (ctx, { org }: OrgAdmin) => new Reply(201, toSamlProvider(ctx, insertProvider(ctx, org.id, ctx.body(bodies['samlProvider.create'])))),
    ],
    update: [
      'PATCH',
      (ctx, _access, row) => toSamlProvider(ctx, updateProvider(ctx, row, ctx.body(bodies['samlProvider.update'], { optional: true }))),
    ],
  });

  // SSO login information is what a sign-in page shows before anyone is known to the
  // organization, so any authenticated caller may read it (as with the hosted API).
  router.get('/orgs/{organizationId}/sso', (ctx) => {
    ctx.user();
    const { organizationId } = ctx.params;
    if (!findOrg(ctx.db, organizationId)) throw notFound('Organization');
    return ssoLogins(ctx, organizationId);
  });
}
