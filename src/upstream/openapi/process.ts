/**
 * OpenAPI processing, in the background: `pending` (queued) → `progress` (fetching and parsing)
 * → `complete`. A success stores a new version; a failure leaves the last version and sets
 * `lastProcessErrorCode`. Each (re)start bumps `process_run`, and a run writes only while it is
 * still the latest, so a PUT during processing wins over the run it replaced. The parse runs in a
 * child process, bounded in memory and time (parseInChild.ts). Specs a server left unprocessed
 * (it stopped, or a process died, before they were) are queued again when a server starts.
 */
import type { UpstreamServices } from '../context.js';
import { newId } from '../ids.js';
import { fetchSourceText, FetchFailure } from './fetchSource.js';
import type { ParseResult } from './parse.js';
import { parseInChild } from './parseInChild.js';
import { turns } from './turns.js';

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

/** Queues processing of the specs left `pending` or in `progress` (by a server stopped or a process died since). */
export function resumeProcessing(services: UpstreamServices): void {
  const rows = services.db.prepare(`SELECT id, process_run FROM openapi_specs WHERE processing_state != 'complete'`).all() as Array<{
    id: string;
    process_run: number;
  }>;
  for (const row of rows) services.track(run(services, row.id, row.process_run));
}

/**
 * Specs processed at once in this process: each holds its text (a fetched one up to 10 MB) and a
 * parse process (up to its HEAP_MB); the others wait, in order and with their text unread,
 * so that many specs written at once cost neither memory nor processes.
 */
const MAX_RUNNING = 2;
const takeTurn = turns(MAX_RUNNING);

async function run(services: UpstreamServices, specId: string, runNo: number): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  const release = await takeTurn(services.shutdown);
  if (!release) return;
  try {
    await processSpec(services, specId, runNo);
  } finally {
    release();
  }
}

async function processSpec(services: UpstreamServices, specId: string, runNo: number): Promise<void> {
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
  let parsed: ParseResult;
  try {
    parsed = await parseInChild(text, { timeoutMs: services.openApiParseTimeoutMs, signal: services.shutdown });
  } catch {
    return; // the server is stopping
  }
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
