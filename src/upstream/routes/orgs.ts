import { requireOrg, type OrgRow } from '../access.js';
import type { UpstreamServices } from '../context.js';
import { paginate } from '../pagination.js';
import type { Router } from '../router.js';
import { toOrganization, type Organization } from '../domain/orgs.js';

export function register(router: Router, _services: UpstreamServices) {
  router.get('/orgs', (ctx) => {
    const userId = ctx.user().id;
    return paginate<OrgRow, Organization>(ctx, {
      from: `organizations WHERE id IN (SELECT organization_id FROM members WHERE user_id = ? AND disabled = 0)`,
      params: [userId],
      orderBy: ['created_at', 'id'],
      map: (row) => toOrganization(ctx, row),
    });
  });

  router.get('/orgs/{organizationId}', (ctx) => toOrganization(ctx, requireOrg(ctx.db, ctx.params.organizationId, ctx.caller?.id).org));
}
