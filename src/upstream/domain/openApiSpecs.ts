/** OpenAPI specs of an organization: rows, the seed's shape, sources (processing: src/upstream/openapi). */
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { conflict } from '../errors.js';
import { newId } from '../ids.js';
import type { ProcessErrorCode } from '../openapi/process.js';
import { findOwned, loadOwned, type OwnedTable } from './owned.js';

export interface SpecRow {
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

export type Source = { url: string; text?: undefined } | { url?: undefined; text: string };

/** Specs are named by their slug in paths. */
export const OPENAPI_SPECS: OwnedTable = {
  table: 'openapi_specs',
  owner: 'organization_id',
  key: 'slug',
  what: 'OpenAPI spec',
  orderBy: ['created_at', 'id'],
};

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

const findSpec = (db: Db, organizationId: string, slug: string) => findOwned<SpecRow>(db, OPENAPI_SPECS, organizationId, slug);
const loadSpec = (db: Db, organizationId: string, slug: string) => loadOwned<SpecRow>(db, OPENAPI_SPECS, organizationId, slug);

/** A spec with its source, queued for processing (run 1). */
function insertSpec(db: Db, organizationId: string, slug: string, source: Source, now: string): SpecRow {
  db.prepare(
    `INSERT INTO openapi_specs (id, organization_id, slug, source_url, source_text, processing_state, process_run, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 1, ?, ?)`,
  ).run(newId(), organizationId, slug, source.url ?? null, source.text ?? null, now, now);
  return loadSpec(db, organizationId, slug);
}

/** Replaces the source and queues processing again (the last version stays until it succeeds). */
function updateSource(db: Db, row: SpecRow, source: Source, now: string): SpecRow {
  db.prepare(
    `UPDATE openapi_specs SET source_url = ?, source_text = ?, processing_state = 'pending',
       process_run = process_run + 1, updated_at = ? WHERE id = ?`,
  ).run(source.url ?? null, source.text ?? null, now, row.id);
  return loadSpec(db, row.organization_id, row.slug);
}

/** A new spec named `slug` (409 when the organization has one). */
export function createSpec(db: Db, organizationId: string, slug: string, source: Source, now: string): SpecRow {
  if (findSpec(db, organizationId, slug)) throw conflict(`slug: an OpenAPI spec with the slug ${slug} already exists`);
  return insertSpec(db, organizationId, slug, source, now);
}

/** The spec named `slug` with this source: created, or its source replaced. */
export function putSpec(db: Db, organizationId: string, slug: string, source: Source, now: string): { row: SpecRow; created: boolean } {
  const existing = findSpec(db, organizationId, slug);
  if (existing) return { row: updateSource(db, existing, source, now), created: false };
  return { row: insertSpec(db, organizationId, slug, source, now), created: true };
}
