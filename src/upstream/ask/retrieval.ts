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

/**
 * The pages of `spaceIds`' current revisions matching any of `terms`, best first, at most
 * MAX_HITS: bm25 scores (positive, higher is better), raised by PREVIOUS_QUERY_WEIGHT times their
 * score for `previousTerms`. SQLite ranks them and reads the text of the best only: every match
 * read whole and sorted here took 2.5 s of the event loop (the gateway's under `npm start`) per
 * ask once a space of six pages had been duplicated 10,000 times (60,000 matches, 30 MB of text).
 */
function bestPages(db: Db, spaceIds: string[], terms: string[], previousTerms: string[]): PageHit[] {
  if (!terms.length || !spaceIds.length) return [];
  const scored = (name: string) =>
    `${name} AS MATERIALIZED (SELECT rowid, -bm25(pages_fts, ${TITLE_WEIGHT}, 1) AS score FROM pages_fts WHERE pages_fts MATCH ?)`;
  const previous = previousTerms.length > 0;
  return db
    .prepare(
      `WITH ${scored('main')}${previous ? `, ${scored('previous')}` : ''},
       best AS (
         SELECT main.rowid AS rowid, s.id AS spaceId,
                main.score${previous ? ` + ${PREVIOUS_QUERY_WEIGHT} * coalesce(previous.score, 0)` : ''} AS score
         FROM main
         JOIN pages p ON p.rowid = main.rowid
         JOIN spaces s ON s.revision_id = p.revision_id
         ${previous ? 'LEFT JOIN previous ON previous.rowid = main.rowid' : ''}
         WHERE s.id IN (SELECT value FROM json_each(?))
         ORDER BY score DESC, p.page_id
         LIMIT ${MAX_HITS}
       )
       SELECT best.spaceId AS spaceId, p.revision_id AS revisionId, p.page_id AS pageId, p.title AS title, p.markdown AS markdown,
              best.score AS score
       FROM best JOIN pages p ON p.rowid = best.rowid`,
    )
    .all(ftsQuery(terms), ...(previous ? [ftsQuery(previousTerms)] : []), JSON.stringify(spaceIds)) as PageHit[];
}

/**
 * Pages matching the question's terms, best first. Terms of previous queries do not find pages
 * on their own; they raise the pages that also match them.
 */
export function searchPages(db: Db, spaceIds: string[], terms: string[], previousTerms: string[]): PageHit[] {
  return bestPages(db, spaceIds, terms, previousTerms).sort((a, b) => b.score - a.score || a.pageId.localeCompare(b.pageId));
}
