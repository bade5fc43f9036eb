/** Integrations: rows, the seed's shapes, lists, publishing, secrets and installations. */
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { containing, containsLike } from '../db/like.js';
import type { Clock } from '../clock.js';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { ListSpec } from '../pagination.js';
import { findOrg, orgMembership } from '../access.js';
import type { INTEGRATION_CATEGORIES, INTEGRATION_TARGETS } from '../../api/rules.js';
import type { INTEGRATION_SCOPES, integrationBodies } from '../../api/bodies/integrations.js';
import type { BodyOf } from '../../api/validate.js';
import { toOrganization } from './orgs.js';

export interface IntegrationRow {
  name: string;
  organization_id: string;
  version: number;
  title: string;
  description: string;
  summary: string | null;
  icon: string | null;
  preview_images: string;
  visibility: 'public' | 'private' | 'unlisted';
  target: (typeof INTEGRATION_TARGETS)[number];
  scopes: string;
  categories: string;
  blocks: string;
  content_sources: string;
  configurations: string;
  external_links: string;
  content_security_policy: string | null;
  created_at: string;
  updated_at: string;
}

export interface InstallationRow {
  id: string;
  integration_name: string;
  organization_id: string;
  status: 'active' | 'pending' | 'paused';
  configuration: string;
  external_ids: string;
  created_at: string;
  updated_at: string;
}

export const json = (text: string | null) => (text === null ? undefined : JSON.parse(text));

/** Where an integration's files (icon, preview images) are served from, per version. */
function assetsUrl(ctx: RequestContext, row: IntegrationRow): string {
  return `${ctx.services.origin()}/files/integrations/${row.name}/${row.version}`;
}

export const isOwnerAdmin = (ctx: RequestContext, row: IntegrationRow) =>
  orgMembership(ctx.db, row.organization_id, ctx.caller?.id)?.role === 'admin';

/** Admins of some organization may install integrations there. */
export function canInstall(ctx: RequestContext): boolean {
  const sql = `SELECT 1 FROM members WHERE user_id = ? AND role = 'admin' AND disabled = 0 LIMIT 1`;
  return Boolean(ctx.caller && ctx.db.prepare(sql).get(ctx.caller.id));
}

/** The seed's Integration shape; secrets and the script are never part of it. */
export function toIntegration(ctx: RequestContext, row: IntegrationRow) {
  const assets = assetsUrl(ctx, row);
  const origin = ctx.services.origin();
  return {
    object: 'integration' as const,
    name: row.name,
    version: row.version,
    title: row.title,
    description: row.description,
    ...(row.summary !== null ? { summary: row.summary } : {}),
    previewImages: (json(row.preview_images) as string[]).map((_, i) => `${assets}/preview-${i + 1}.png`),
    target: row.target,
    verified: false,
    visibility: row.visibility,
    scopes: json(row.scopes) as string[],
    categories: json(row.categories) as string[],
    blocks: json(row.blocks) as object[],
    contentSources: json(row.content_sources) as object[],
    configurations: json(row.configurations) as object,
    externalLinks: json(row.external_links) as Array<{ url: string; label: string }>,
    owner: toOrganization(ctx, findOrg(ctx.db, row.organization_id)!),
    urls: {
      location: `${ctx.apiBase}/integrations/${row.name}`,
      ...(row.icon !== null ? { icon: `${assets}/icon.png` } : {}),
      app: `${ctx.appBase}/integrations/${row.name}`,
      assets,
      publicEndpoint: `${origin}/integrations/${row.name}`,
      publicContentEndpoint: `${origin}/integrations/${row.name}/content`,
    },
    permissions: { admin: isOwnerAdmin(ctx, row), install: canInstall(ctx) },
    ...(row.content_security_policy !== null ? { contentSecurityPolicy: json(row.content_security_policy) } : {}),
  };
}

export type Integration = ReturnType<typeof toIntegration>;

/** The official installation shape (the seed does not show it). */
export function toInstallation(ctx: RequestContext, row: InstallationRow) {
  const base = `integrations/${row.integration_name}/installations/${row.id}`;
  const spaces = ctx.db
    .prepare('SELECT COUNT(*) AS n FROM spaces WHERE organization_id = ? AND deleted_at IS NULL')
    .get(row.organization_id) as { n: number };
  return {
    id: row.id,
    status: row.status,
    space_selection: 'all' as const,
    site_selection: 'all' as const,
    spaces: spaces.n,
    configuration: json(row.configuration) as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    urls: {
      location: `${ctx.apiBase}/${base}`,
      app: `${ctx.appBase}/o/${row.organization_id}/integrations/${row.integration_name}`,
      publicEndpoint: `${ctx.services.origin()}/${base}`,
      publicContentEndpoint: `${ctx.services.origin()}/${base}/content`,
    },
    externalIds: json(row.external_ids) as string[],
    target: { organization: row.organization_id },
  };
}

export function findIntegration(db: Db, name: string): IntegrationRow | undefined {
  return db.prepare('SELECT * FROM integrations WHERE name = ?').get(name) as IntegrationRow | undefined;
}

/** The integration `name`, if the caller may see it: public and unlisted ones, private ones for members of the owner (404 otherwise). */
export function visibleIntegration(ctx: RequestContext, name: string): IntegrationRow {
  const row = findIntegration(ctx.db, name);
  const visible = row && (row.visibility !== 'private' || orgMembership(ctx.db, row.organization_id, ctx.caller?.id));
  if (!row || !visible) throw notFound('Integration');
  return row;
}

export function deleteIntegration(db: Db, name: string): void {
  db.prepare('DELETE FROM integrations WHERE name = ?').run(name);
}

/** The query filters of `GET /integrations`. */
export interface IntegrationFilters {
  search?: string;
  category?: (typeof INTEGRATION_CATEGORIES)[number];
  /** Lower case. */
  blockDomain?: string;
  blocks?: boolean;
  contentSources?: boolean;
  owner?: string;
  scope?: (typeof INTEGRATION_SCOPES)[number];
  target?: (typeof INTEGRATION_TARGETS)[number];
}

/** The integrations the user may list (public ones and those of their organizations), by name. */
export function integrationsOf(ctx: RequestContext, userId: string, only: IntegrationFilters): ListSpec<IntegrationRow, Integration> {
  const where = [`(visibility = 'public' OR organization_id IN (SELECT organization_id FROM members WHERE user_id = ? AND disabled = 0))`];
  const params: unknown[] = [userId];
  const add = (sql: string, ...values: unknown[]) => (where.push(sql), params.push(...values));
  if (only.search) add(`(${containsLike('name')} OR ${containsLike('title')})`, ...Array(2).fill(containing(only.search)));
  if (only.category) add('EXISTS (SELECT 1 FROM json_each(integrations.categories) WHERE value = ?)', only.category);
  const domain = only.blockDomain;
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
  if (only.blocks !== undefined) add(`json_array_length(blocks) ${only.blocks ? '>' : '='} 0`);
  if (only.contentSources !== undefined) add(`json_array_length(content_sources) ${only.contentSources ? '>' : '='} 0`);
  if (only.owner !== undefined) add('organization_id = ?', only.owner);
  if (only.scope) add('EXISTS (SELECT 1 FROM json_each(integrations.scopes) WHERE value = ?)', only.scope);
  if (only.target) add(`(target = ? OR target = 'all')`, only.target);
  return { from: `integrations WHERE ${where.join(' AND ')}`, params, orderBy: ['name'], map: (row) => toIntegration(ctx, row) };
}

/**
 * The integration's installations with `externalId` (when given): all of them for an admin of its
 * owner, for others those in the organizations they administer.
 */
export function installationsOf(
  ctx: RequestContext,
  row: IntegrationRow,
  externalId: string | undefined,
): ListSpec<InstallationRow, ReturnType<typeof toInstallation>> {
  const where = ['integration_name = ?'];
  const params: unknown[] = [row.name];
  if (externalId !== undefined) {
    where.push('EXISTS (SELECT 1 FROM json_each(integration_installations.external_ids) WHERE value = ?)');
    params.push(externalId);
  }
  if (!isOwnerAdmin(ctx, row)) {
    where.push(`organization_id IN (SELECT organization_id FROM members WHERE user_id = ? AND role = 'admin' AND disabled = 0)`);
    params.push(ctx.user().id);
  }
  return {
    from: `integration_installations WHERE ${where.join(' AND ')}`,
    params,
    orderBy: ['created_at', 'id'],
    map: (r) => toInstallation(ctx, r),
  };
}

/**
 * Hostnames a block unfurls, from its `urlUnfurl` patterns (`https://*.example.com/watch/*` →
 * `example.com`), for the `blockDomain` filter.
 */
export function blockDomains(blocks: Array<{ urlUnfurl?: string[] }>): string[] {
  const domains = new Set<string>();
  for (const pattern of blocks.flatMap((b) => b.urlUnfurl ?? [])) {
    const host = pattern
      .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
      .split(/[/?#]/)[0]
      .replace(/:\d+$/, '')
      .replace(/^\*\./, '');
    if (host && !host.includes('*')) domains.add(host.toLowerCase());
  }
  return [...domains];
}

/** A validated publish body (src/api/bodies/integrations.ts). */
export type PublishBody = BodyOf<(typeof integrationBodies)['integration.publish']>;

export function publish(db: Db, clock: Clock, name: string, organizationId: string, body: PublishBody, existing?: IntegrationRow) {
  const now = clock.now().toISOString();
  const blocks = body.blocks ?? [];
  const values = {
    name,
    organization_id: organizationId,
    version: existing ? existing.version + 1 : 1,
    title: body.title,
    description: body.description,
    summary: body.summary ?? null,
    icon: body.icon ?? null,
    preview_images: JSON.stringify(body.previewImages ?? []),
    visibility: body.visibility ?? 'private',
    target: body.target ?? 'all',
    scopes: JSON.stringify(body.scopes),
    categories: JSON.stringify(body.categories ?? []),
    blocks: JSON.stringify(blocks),
    block_domains: JSON.stringify(blockDomains(blocks)),
    content_sources: JSON.stringify(body.contentSources ?? []),
    configurations: JSON.stringify(body.configurations ?? {}),
    external_links: JSON.stringify(body.externalLinks ?? []),
    content_security_policy: body.contentSecurityPolicy === undefined ? null : JSON.stringify(body.contentSecurityPolicy),
    script: body.script,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  const cols = Object.keys(values);
  db.transaction(() => {
    db.prepare(
      `INSERT INTO integrations (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})
       ON CONFLICT (name) DO UPDATE SET ${cols.map((c) => `${c} = excluded.${c}`).join(', ')}`,
    ).run(values);
    // Secrets are replaced when given; a publish without them keeps the stored ones.
    if (body.secrets) storeSecrets(db, name, body.secrets);
  })();
}

function storeSecrets(db: Db, name: string, secrets: Record<string, string>) {
  db.prepare('DELETE FROM integration_secrets WHERE integration_name = ?').run(name);
  const insert = db.prepare('INSERT INTO integration_secrets (integration_name, key, value) VALUES (?, ?, ?)');
  for (const [key, value] of Object.entries(secrets)) insert.run(name, key, value);
}

/** The secrets of an integration (for its runtime; never sent in a response). */
export function integrationSecrets(db: Db, name: string): Record<string, string> {
  const rows = db.prepare('SELECT key, value FROM integration_secrets WHERE integration_name = ?').all(name) as Array<{
    key: string;
    value: string;
  }>;
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/**
 * Installs an integration in an organization (or updates that installation). The seed shows no
 * installation operation but the list, so demo content and tests install through this.
 */
export function installIntegration(
  db: Db,
  clock: Clock,
  input: { integrationName: string; organizationId: string; externalIds?: string[]; configuration?: Record<string, unknown> },
): string {
  const now = clock.now().toISOString();
  const id = newId();
  db.prepare(
    `INSERT INTO integration_installations (id, integration_name, organization_id, configuration, external_ids, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (integration_name, organization_id) DO UPDATE SET
       configuration = excluded.configuration, external_ids = excluded.external_ids, updated_at = excluded.updated_at`,
  ).run(
    id,
    input.integrationName,
    input.organizationId,
    JSON.stringify(input.configuration ?? {}),
    JSON.stringify(input.externalIds ?? []),
    now,
    now,
  );
  const row = db
    .prepare('SELECT id FROM integration_installations WHERE integration_name = ? AND organization_id = ?')
    .get(input.integrationName, input.organizationId) as { id: string };
  return row.id;
}
