/**
 * OpenAPI processing, in the background: `pending` (queued) → `progress` (fetching and parsing)
 * → `complete`. A success stores a new version; a failure leaves the last version and sets
 * `lastProcessErrorCode`. Each (re)start bumps `process_run`, and a run writes only while it is
 * still the latest, so a PUT during processing wins over the run it replaced.
 */
import type { UpstreamServices } from '../context.js';
import { newId } from '../ids.js';
import { fetchSourceText, FetchFailure } from './fetchSource.js';
import { parseOpenApi } from './parse.js';

export type ProcessErrorCode = 'FETCH_TIMEOUT' | 'FETCH_ERROR' | 'PARSE_ERROR';

interface SpecSource {
  source_url: string | null;
  source_text: string | null;
  process_run: number;
}

/** Queues processing of the spec (its row was just written with `pending` and a bumped run). */
export function startProcessing(services: UpstreamServices, specId: string): void {
  const row = services.db.prepare('SELECT process_run FROM openapi_specs WHERE id = ?').get(specId) as { process_run: number };
  services.track(run(services, specId, row.process_run));
}

async function run(services: UpstreamServices, specId: string, runNo: number): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  const spec = current(services, specId, runNo);
  if (!spec || services.shutdown.aborted) return;
  services.db.prepare(`UPDATE openapi_specs SET processing_state = 'progress' WHERE id = ?`).run(specId);
  let text: string;
  try {
    text =
      spec.source_text ??
      (await fetchSourceText(spec.source_url ?? '', {
        timeoutMs: services.openApiFetchTimeoutMs,
        signal: services.shutdown,
        allow: services.openApiFetchAllow,
      }));
  } catch (e) {
    if (!(e instanceof FetchFailure)) return; // the server is stopping
    return fail(services, specId, runNo, e.code, e.message);
  }
  const parsed = parseOpenApi(text);
  if (!parsed.ok) return fail(services, specId, runNo, 'PARSE_ERROR', parsed.message);
  succeed(services, specId, runNo, text);
}

function current(services: UpstreamServices, specId: string, runNo: number): SpecSource | undefined {
  const row = services.db.prepare('SELECT source_url, source_text, process_run FROM openapi_specs WHERE id = ?').get(specId) as
    SpecSource | undefined;
  return row && row.process_run === runNo ? row : undefined;
}

function succeed(services: UpstreamServices, specId: string, runNo: number, content: string) {
  const { db, clock } = services;
  db.transaction(() => {
    if (!current(services, specId, runNo)) return;
    const now = clock.now().toISOString();
    const versionId = newId();
    db.prepare('INSERT INTO openapi_spec_versions (id, spec_id, content, created_at) VALUES (?, ?, ?, ?)').run(
      versionId,
      specId,
      content,
      now,
    );
    db.prepare(
      `UPDATE openapi_specs SET processing_state = 'complete', last_version_id = ?, last_processed_at = ?,
         last_error_code = NULL, last_error_message = NULL WHERE id = ?`,
    ).run(versionId, now, specId);
  })();
}

function fail(services: UpstreamServices, specId: string, runNo: number, code: ProcessErrorCode, message: string) {
  const { db, clock } = services;
  db.transaction(() => {
    if (!current(services, specId, runNo)) return;
    db.prepare(
      `UPDATE openapi_specs SET processing_state = 'complete', last_processed_at = ?,
         last_error_code = ?, last_error_message = ? WHERE id = ?`,
    ).run(clock.now().toISOString(), code, message, specId);
  })();
}
