import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import { requireOrg } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { findOrg } from '../domain/orgs.js';
import {
  deleteProvider,
  findProvider,
  insertProvider,
  providersOf,
  ssoLogins,
  toSamlProvider,
  updateProvider,
  type SamlProviderRow,
} from '../domain/saml.js';
import { notFound } from '../errors.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';

/** The provider of the path, for an organization admin. */
function requireProvider(ctx: RequestContext): SamlProviderRow {
  const { organizationId, samlProviderId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id, 'admin');
  const row = findProvider(ctx.db, organizationId, samlProviderId);
  if (!row) throw notFound('SAML provider');
  return row;
}

function createProvider(ctx: RequestContext) {
  const { organizationId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id, 'admin');
  return new Reply(201, toSamlProvider(ctx, insertProvider(ctx, organizationId, ctx.body(bodies['samlProvider.create']))));
}

function patchProvider(ctx: RequestContext) {
  const row = requireProvider(ctx);
  return toSamlProvider(ctx, updateProvider(ctx, row, ctx.body(bodies['samlProvider.update'], { optional: true })));
}

export function register(router: Router, _services: UpstreamServices) {
  const provider = '/orgs/{organizationId}/saml/{samlProviderId}';

  router.get('/orgs/{organizationId}/saml', (ctx) => {
    const { organizationId } = ctx.params;
    requireOrg(ctx.db, organizationId, ctx.user().id, 'admin');
    return paginate(ctx, providersOf(ctx, organizationId));
  });
  router.post('/orgs/{organizationId}/saml', createProvider);
  router.get(provider, (ctx) => toSamlProvider(ctx, requireProvider(ctx)));
  router.patch(provider, patchProvider);
  router.delete(provider, (ctx) => {
    deleteProvider(ctx.db, requireProvider(ctx).id);
    return undefined;
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
