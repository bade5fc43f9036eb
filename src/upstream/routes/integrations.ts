/**
 * Integrations are global (named, not per organization) and owned by the organization that
 * published them. Public and unlisted ones can be read by anyone signed in, private ones only by
 * members of the owner; lists show public ones plus those of the caller's organizations. Admins
 * of the owner republish and unpublish. Secrets are stored apart and never returned.
 */
import { INTEGRATION_SCOPES, integrationBodies } from '../../api/bodies/integrations.js';
import { INTEGRATION_CATEGORIES, INTEGRATION_TARGETS, limits } from '../../api/rules.js';
import { orgMembership, requireOrg, type OrgRow } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import type { Db } from '../db/index.js';
import { conflict, forbidden, lookupField, notFound } from '../errors.js';
import { paginate } from '../pagination.js';
import type { Router } from '../router.js';
import { isOwnerAdmin, publish, toInstallation, toIntegration, type InstallationRow, type Integration, type IntegrationRow } from '../domain/integrations.js';

function findIntegration(db: Db, name: string): IntegrationRow | undefined {
  return db.prepare('SELECT * FROM integrations WHERE name = ?').get(name) as IntegrationRow | undefined;
}

/** The integration named in the path, if the caller may see it (404 otherwise). */
function visibleIntegration(ctx: RequestContext): IntegrationRow {
  const row = findIntegration(ctx.db, ctx.param('integrationName', limits.integrationName));
  const visible = row && (row.visibility !== 'private' || orgMembership(ctx.db, row.organization_id, ctx.caller?.id));
  if (!row || !visible) throw notFound('Integration');
  return row;
}

function requireOwnerAdmin(ctx: RequestContext, row: IntegrationRow) {
  if (!isOwnerAdmin(ctx, row)) throw forbidden('Only admins of the organization that owns the integration may change it');
}

// ---------------------------------------------------------------------------------------------
// List filters

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** SQL conditions and their parameters for the query filters of `GET /integrations`. */
function listFilters(ctx: RequestContext): { where: string[]; params: unknown[] } {
  const q = ctx.query;
  const where = [`(visibility = 'public' OR organization_id IN (SELECT organization_id FROM members WHERE user_id = ? AND disabled = 0))`];
  const params: unknown[] = [ctx.user().id];
  const add = (sql: string, ...values: unknown[]) => (where.push(sql), params.push(...values));
  const search = q.string('search');
  if (search) add(`(name LIKE ? ESCAPE '\\' OR title LIKE ? ESCAPE '\\')`, ...Array(2).fill(`%${escapeLike(search)}%`));
  const category = q.enum('category', INTEGRATION_CATEGORIES);
  if (category) add('EXISTS (SELECT 1 FROM json_each(integrations.categories) WHERE value = ?)', category);
  const domain = q.string('blockDomain', limits.blockDomain)?.toLowerCase();
  if (domain) {
    // the domain itself, or a subdomain of a domain the blocks unfurl
    add(
      `EXISTS (SELECT 1 FROM json_each(integrations.block_domains)
         WHERE value = ? OR (length(?) > length(value) AND substr(?, -length(value) - 1) = '.' || value))`,
      domain,
      domain,
      domain,
    );
  }
  const blocks = q.boolean('blocks');
  if (blocks !== undefined) add(`json_array_length(blocks) ${blocks ? '>' : '='} 0`);
  const sources = q.boolean('contentSources');
  if (sources !== undefined) add(`json_array_length(content_sources) ${sources ? '>' : '='} 0`);
  const owner = q.string('owner');
  if (owner !== undefined) add('organization_id = ?', owner);
  const scope = q.enum('scope', INTEGRATION_SCOPES);
  if (scope) add('EXISTS (SELECT 1 FROM json_each(integrations.scopes) WHERE value = ?)', scope);
  const target = q.enum('target', INTEGRATION_TARGETS);
  if (target) add(`(target = ? OR target = 'all')`, target);
  return { where, params };
}

/** The organization named by `organization` (id or hostname), where the caller must be admin. */
function publisher(ctx: RequestContext, organization: string): OrgRow {
  const found = ctx.db.prepare('SELECT id FROM organizations WHERE id = ? OR hostname = ?').get(organization, organization) as
    | { id: string }
    | undefined;
  return lookupField('organization', () => requireOrg(ctx.db, found?.id ?? organization, ctx.caller?.id, 'admin').org);
}

// ---------------------------------------------------------------------------------------------
// Routes

export function register(router: Router, services: UpstreamServices) {
  router.get('/integrations', (ctx) => {
    const { where, params } = listFilters(ctx);
    return paginate<IntegrationRow, Integration>(ctx, {
      from: `integrations WHERE ${where.join(' AND ')}`,
      params,
      orderBy: ['name'],
      map: (row) => toIntegration(ctx, row),
    });
  });

  router.get('/integrations/{integrationName}', (ctx) => toIntegration(ctx, visibleIntegration(ctx)));

  router.post('/integrations/{integrationName}', (ctx) => {
    const name = ctx.param('integrationName', limits.integrationName);
    const body = ctx.body(integrationBodies['integration.publish']);
    const org = publisher(ctx, body.organization);
    const existing = findIntegration(ctx.db, name);
    if (existing) {
      requireOwnerAdmin(ctx, existing);
      if (existing.organization_id !== org.id)
        throw conflict(`The integration ${name} is published by another organization`);
    }
    publish(ctx.db, services.clock, name, org.id, body, existing);
    return toIntegration(ctx, findIntegration(ctx.db, name)!);
  });

  router.delete('/integrations/{integrationName}', (ctx) => {
    const row = visibleIntegration(ctx);
    requireOwnerAdmin(ctx, row);
    ctx.db.prepare('DELETE FROM integrations WHERE name = ?').run(row.name);
  });

  router.get('/integrations/{integrationName}/installations', (ctx) => {
    const row = visibleIntegration(ctx);
    const where = ['integration_name = ?'];
    const params: unknown[] = [row.name];
    const externalId = ctx.query.string('externalId');
    if (externalId !== undefined) {
      where.push('EXISTS (SELECT 1 FROM json_each(integration_installations.external_ids) WHERE value = ?)');
      params.push(externalId);
    }
    if (!isOwnerAdmin(ctx, row)) {
      // others see the installations in the organizations they administer
      where.push(`organization_id IN (SELECT organization_id FROM members WHERE user_id = ? AND role = 'admin' AND disabled = 0)`);
      params.push(ctx.user().id);
    }
    return paginate<InstallationRow, ReturnType<typeof toInstallation>>(ctx, {
      from: `integration_installations WHERE ${where.join(' AND ')}`,
      params,
      orderBy: ['created_at', 'id'],
      map: (r) => toInstallation(ctx, r),
    });
  });
}
