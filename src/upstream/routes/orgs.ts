import { requireOrg } from '../access.js';
import type { UpstreamServices } from '../context.js';
import { orgsOf, toOrganization } from '../domain/orgs.js';
import { paginate } from '../pagination.js';
import type { Router } from '../router.js';

export function register(router: Router, _services: UpstreamServices) {
  router.get('/orgs', (ctx) => paginate(ctx, orgsOf(ctx, ctx.user().id)));

  router.get('/orgs/{organizationId}', (ctx) => toOrganization(ctx, requireOrg(ctx.db, ctx.params.organizationId, ctx.caller?.id).org));
}
