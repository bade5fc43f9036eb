import { orgSettingsBodies } from '../../api/bodies/orgSettings.js';
import { limits } from '../../api/rules.js';
import { requireOrgSettings } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { startProcessing, type ProcessErrorCode } from '../openapi/process.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';

interface SpecRow {
  id: string;
  organization_id: string;
  slug: string;
  source_url: string | null;
  source_text: string | null;
  processing_state: 'pending' | 'progress' | 'complete';
  process_run: number;
  last_version_id: string | null;
  last_processed_at: string | null;
  last_error_code: ProcessErrorCode | null;
  last_error_message: string | null;
  created_at: string;
  updated_at: string;
}

type Source = { url: string; text?: undefined } | { url?: undefined; text: string };

/** The seed's OpenAPI spec shape. */
export function toOpenApiSpec(ctx: RequestContext, row: SpecRow, canEdit: boolean) {
  const error = row.last_error_code;
  return {
    object: 'openapi-spec' as const,
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    slug: row.slug,
    ...(row.source_url ? { sourceURL: row.source_url } : {}),
    processingState: row.processing_state,
    ...(row.last_version_id ? { lastVersion: row.last_version_id } : {}),
    ...(row.last_processed_at ? { lastProcessedAt: row.last_processed_at } : {}),
    ...(error ? { lastProcessErrorCode: error, lastProcessedErrors: [{ code: error, message: row.last_error_message ?? error }] } : {}),
    lastProcessedErrorCount: error ? 1 : 0,
    permissions: { view: true, edit: canEdit },
    urls: {
      location: `${ctx.apiBase}/orgs/${row.organization_id}/openapi/${row.slug}`,
      app: `${ctx.appBase}/o/${row.organization_id}/openapi/${row.slug}`,
    },
  };
}

function findSpec(ctx: RequestContext, organizationId: string, slug: string): SpecRow | undefined {
  return ctx.db.prepare('SELECT * FROM openapi_specs WHERE organization_id = ? AND slug = ?').get(organizationId, slug) as
    | SpecRow
    | undefined;
}

function getSpec(ctx: RequestContext, organizationId: string, slug: string): SpecRow {
  const row = findSpec(ctx, organizationId, slug);
  if (!row) throw notFound('OpenAPI spec');
  return row;
}

function insertSpec(ctx: RequestContext, organizationId: string, slug: string, source: Source): SpecRow {
  const now = ctx.now();
  ctx.db
    .prepare(
      `INSERT INTO openapi_specs (id, organization_id, slug, source_url, source_text, processing_state, process_run, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', 1, ?, ?)`,
    )
    .run(newId(), organizationId, slug, source.url ?? null, source.text ?? null, now, now);
  return getSpec(ctx, organizationId, slug);
}

/** Replaces the source and queues processing again (the last version stays until it succeeds). */
function updateSource(ctx: RequestContext, row: SpecRow, source: Source): SpecRow {
  ctx.db
    .prepare(
      `UPDATE openapi_specs SET source_url = ?, source_text = ?, processing_state = 'pending',
         process_run = process_run + 1, updated_at = ? WHERE id = ?`,
    )
    .run(source.url ?? null, source.text ?? null, ctx.now(), row.id);
  return getSpec(ctx, row.organization_id, row.slug);
}

export function register(router: Router, services: UpstreamServices) {
  const base = '/orgs/{organizationId}/openapi';

  router.get(base, (ctx) => {
    const { org, canEdit } = requireOrgSettings(ctx.db, ctx.params.organizationId, ctx.caller?.id);
    return paginate<SpecRow, ReturnType<typeof toOpenApiSpec>>(ctx, {
      from: 'openapi_specs WHERE organization_id = ?',
      params: [org.id],
      orderBy: ['created_at', 'id'],
      map: (row) => toOpenApiSpec(ctx, row, canEdit),
    });
  });

  router.post(base, (ctx) => {
    const { org, canEdit } = requireOrgSettings(ctx.db, ctx.params.organizationId, ctx.caller?.id, true);
    const body = ctx.body(orgSettingsBodies['openApiSpec.create']);
    if (findSpec(ctx, org.id, body.slug)) throw conflict(`slug: an OpenAPI spec with the slug ${body.slug} already exists`);
    const row = insertSpec(ctx, org.id, body.slug, body.source);
    startProcessing(services, row.id);
    return new Reply(201, toOpenApiSpec(ctx, row, canEdit));
  });

  router.get(`${base}/{specSlug}`, (ctx) => {
    const { org, canEdit } = requireOrgSettings(ctx.db, ctx.params.organizationId, ctx.caller?.id);
    return toOpenApiSpec(ctx, getSpec(ctx, org.id, ctx.params.specSlug), canEdit);
  });

  router.put(`${base}/{specSlug}`, (ctx) => {
    const { org, canEdit } = requireOrgSettings(ctx.db, ctx.params.organizationId, ctx.caller?.id, true);
    const slug = ctx.param('specSlug', limits.openApiSlug);
    const body = ctx.body(orgSettingsBodies['openApiSpec.put']);
    const existing = findSpec(ctx, org.id, slug);
    const row = existing ? updateSource(ctx, existing, body.source) : insertSpec(ctx, org.id, slug, body.source);
    startProcessing(services, row.id);
    return new Reply(existing ? 200 : 201, toOpenApiSpec(ctx, row, canEdit));
  });

  router.delete(`${base}/{specSlug}`, (ctx) => {
    const { org } = requireOrgSettings(ctx.db, ctx.params.organizationId, ctx.caller?.id, true);
    const row = getSpec(ctx, org.id, ctx.params.specSlug);
    ctx.db.prepare('DELETE FROM openapi_specs WHERE id = ?').run(row.id);
  });
}
