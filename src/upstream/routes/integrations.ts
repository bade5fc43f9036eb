/**
 * Integrations are global (named, not per organization) and owned by the organization that
 * published them. Public and unlisted ones can be read by anyone signed in, private ones only by
 * members of the owner; lists show public ones plus those of the caller's organizations. Admins
 * of the owner republish and unpublish. Secrets are stored apart and never returned.
 */
import { INTEGRATION_SCOPES, integrationBodies } from '../../api/bodies/integrations.js';
import { INTEGRATION_CATEGORIES, INTEGRATION_TARGETS, limits } from '../../api/rules.js';
import { requireOrg, type OrgRow } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import {
  deleteIntegration,
  findIntegration,
  installationsOf,
  integrationsOf,
  isOwnerAdmin,
  publish,
  toIntegration,
  visibleIntegration,
  type IntegrationFilters,
  type IntegrationRow,
} from '../domain/integrations.js';
import { orgIdByIdOrHostname } from '../domain/orgs.js';
import { conflict, forbidden, lookupField } from '../errors.js';
import { paginate } from '../pagination.js';
import type { Router } from '../router.js';

/** The integration named in the path, if the caller may see it (404 otherwise). */
const integrationOfPath = (ctx: RequestContext) => visibleIntegration(ctx, ctx.param('integrationName', limits.integrationName));

function requireOwnerAdmin(ctx: RequestContext, row: IntegrationRow) {
  if (!isOwnerAdmin(ctx, row)) throw forbidden('Only admins of the organization that owns the integration may change it');
}

/** The query filters of `GET /integrations`, checked in this order. */
function listFilters(ctx: RequestContext): IntegrationFilters {
  const q = ctx.query;
  return {
    search: q.string('search'),
    category: q.enum('category', INTEGRATION_CATEGORIES),
    blockDomain: q.string('blockDomain', limits.blockDomain)?.toLowerCase(),
    blocks: q.boolean('blocks'),
    contentSources: q.boolean('contentSources'),
    owner: q.string('owner'),
    scope: q.enum('scope', INTEGRATION_SCOPES),
    target: q.enum('target', INTEGRATION_TARGETS),
  };
}

/** The organization named by `organization` (id or hostname), where the caller must be admin. */
function publisher(ctx: RequestContext, organization: string): OrgRow {
  const id = orgIdByIdOrHostname(ctx.db, organization);
  return lookupField('organization', () => requireOrg(ctx.db, id ?? organization, ctx.caller?.id, 'admin').org);
}

export function register(router: Router, services: UpstreamServices) {
  router.get('/integrations', (ctx) => {
    const userId = ctx.user().id;
    return paginate(ctx, integrationsOf(ctx, userId, listFilters(ctx)));
  });

  router.get('/integrations/{integrationName}', (ctx) => toIntegration(ctx, integrationOfPath(ctx)));

  router.post('/integrations/{integrationName}', (ctx) => {
    const name = ctx.param('integrationName', limits.integrationName);
    const body = ctx.body(integrationBodies['integration.publish']);
    const org = publisher(ctx, body.organization);
    const existing = findIntegration(ctx.db, name);
    if (existing) {
      requireOwnerAdmin(ctx, existing);
      if (existing.organization_id !== org.id) throw conflict(`The integration ${name} is published by another organization`);
    }
    publish(ctx.db, services.clock, name, org.id, body, existing);
    return toIntegration(ctx, findIntegration(ctx.db, name)!);
  });

  router.delete('/integrations/{integrationName}', (ctx) => {
    const row = integrationOfPath(ctx);
    requireOwnerAdmin(ctx, row);
    deleteIntegration(ctx.db, row.name);
  });

  router.get('/integrations/{integrationName}/installations', (ctx) => {
    const row = integrationOfPath(ctx);
    return paginate(ctx, installationsOf(ctx, row, ctx.query.string('externalId')));
  });
}
