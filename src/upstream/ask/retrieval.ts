/**
 * Retrieval for the ask: the spaces the caller may read, and the pages of their current
 * revisions that match the question, ranked with FTS5's bm25.
 */
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { spaceRoles, type SpaceRow } from '../domain/spaces.js';
import { ftsQuery } from './text.js';

export interface PageHit {
  spaceId: string;
  revisionId: string;
  pageId: string;
  title: string;
  markdown: string;
  /** Higher is better. */
  score: number;
}

/** Weight of the question's terms against those of previous queries. */
export const PREVIOUS_QUERY_WEIGHT = 0.5;
/** bm25 column weights: title, markdown. */
const TITLE_WEIGHT = 4;
const MAX_HITS = 20;

/** Non-deleted spaces of the organization the caller may read, in the organization's order. */
export function readableSpaces(ctx: RequestContext, organizationId: string): SpaceRow[] {
  const rows = ctx.db
    .prepare('SELECT * FROM spaces WHERE organization_id = ? AND deleted_at IS NULL ORDER BY position, id')
    .all(organizationId) as SpaceRow[];
  const roleOf = spaceRoles(ctx);
  return rows.filter((row) => roleOf(row) !== null);
}

/** bm25 scores (positive, higher is better) of the current pages of `spaceIds` matching any term. */
function scores(db: Db, spaceIds: string[], terms: string[]): Map<number, PageHit> {
  const hits = new Map<number, PageHit>();
  if (!terms.length || !spaceIds.length) return hits;
  const rows = db
    .prepare(
      `SELECT p.rowid AS rowid, s.id AS spaceId, p.revision_id AS revisionId, p.page_id AS pageId,
              p.title AS title, p.markdown AS markdown, -bm25(pages_fts, ${TITLE_WEIGHT}, 1) AS score
       FROM pages_fts
       JOIN pages p ON p.rowid = pages_fts.rowid
       JOIN spaces s ON s.revision_id = p.revision_id
       WHERE pages_fts MATCH ? AND s.id IN (SELECT value FROM json_each(?))`,
    )
    .all(ftsQuery(terms), JSON.stringify(spaceIds)) as Array<PageHit & { rowid: number }>;
  for (const { rowid, ...hit } of rows) hits.set(rowid, hit);
  return hits;
}

/**
 * Pages matching the question's terms, best first. Terms of previous queries do not find pages
 * on their own; they raise the pages that also match them.
 */
export function searchPages(db: Db, spaceIds: string[], terms: string[], previousTerms: string[]): PageHit[] {
  const main = scores(db, spaceIds, terms);
  const previous = scores(db, spaceIds, previousTerms);
  const hits = [...main].map(([rowid, hit]) => ({
    ...hit,
    score: hit.score + PREVIOUS_QUERY_WEIGHT * (previous.get(rowid)?.score ?? 0),
  }));
  return hits.sort((a, b) => b.score - a.score || a.pageId.localeCompare(b.pageId)).slice(0, MAX_HITS);
}
