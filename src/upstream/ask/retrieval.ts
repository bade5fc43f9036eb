/**
 * Retrieval for the ask: the spaces the caller may read, and the pages of their current
 * revisions that match the question, ranked with FTS5's bm25.
 */
import type { RequestContext } from '../context.js';
import { spaceRoles, visibleSpacesFilter, type SpaceRow } from '../domain/spaces.js';
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

/**
 * Non-deleted spaces of the organization the caller may read, in the organization's order, read
 * one at a time: an organization may hold 300,000 spaces (100 MB of database), and all of them
 * read at once ran `npm start` out of heap on one request for the recommended questions.
 */
export function* readableSpaces(ctx: RequestContext, organizationId: string): Generator<SpaceRow> {
  const roleOf = spaceRoles(ctx);
  const visible = visibleSpacesFilter(ctx, organizationId);
  const rows = ctx.db
    .prepare(`SELECT * FROM spaces WHERE organization_id = ? AND deleted_at IS NULL${visible.sql} ORDER BY position, id`)
    .iterate(organizationId, ...visible.params) as IterableIterator<SpaceRow>;
  for (const row of rows) if (roleOf(row) !== null) yield row;
}

/** A match of the question on a current page of a live space, without its text (SpaceRow: the columns spaceRoles reads). */
type Match = Pick<SpaceRow, 'id' | 'organization_id' | 'parent_id' | 'default_level' | 'visibility'> & {
  rowid: number;
  revisionId: string;
  pageId: string;
  score: number;
};

/**
 * The current pages of the organization's spaces that the caller may read and that match any of
 * `terms`, best first, at most MAX_HITS: bm25 scores (positive, higher is better), raised by
 * PREVIOUS_QUERY_WEIGHT times their score for `previousTerms`. SQLite ranks the matches; they are
 * read one at a time until MAX_HITS are readable, and the text of those only. Every match read
 * whole and sorted here took 2.5 s of the event loop (the gateway's under `npm start`) per ask once
 * a space of six pages had been duplicated 10,000 times (60,000 matches, 30 MB of text).
 */
export function searchPages(ctx: RequestContext, organizationId: string, terms: string[], previousTerms: string[]): PageHit[] {
  if (!terms.length) return [];
  const scored = (name: string) =>
    `${name} AS MATERIALIZED (SELECT rowid, -bm25(pages_fts, ${TITLE_WEIGHT}, 1) AS score FROM pages_fts WHERE pages_fts MATCH ?)`;
  const previous = previousTerms.length > 0;
  const matches = ctx.db
    .prepare(
      `WITH ${scored('main')}${previous ? `, ${scored('previous')}` : ''}
       SELECT s.id, s.organization_id, s.parent_id, s.default_level, s.visibility,
              p.rowid AS rowid, p.revision_id AS revisionId, p.page_id AS pageId,
              main.score${previous ? ` + ${PREVIOUS_QUERY_WEIGHT} * coalesce(previous.score, 0)` : ''} AS score
       FROM main
       JOIN pages p ON p.rowid = main.rowid
       JOIN spaces s ON s.revision_id = p.revision_id
       ${previous ? 'LEFT JOIN previous ON previous.rowid = main.rowid' : ''}
       WHERE s.organization_id = ? AND s.deleted_at IS NULL
       ORDER BY score DESC, p.page_id`,
    )
    .iterate(ftsQuery(terms), ...(previous ? [ftsQuery(previousTerms)] : []), organizationId) as IterableIterator<Match>;
  const roleOf = spaceRoles(ctx);
  const best: Match[] = [];
  for (const match of matches) {
    if (roleOf(match as unknown as SpaceRow) === null) continue;
    best.push(match);
    if (best.length === MAX_HITS) break;
  }
  const page = ctx.db.prepare('SELECT title, markdown FROM pages WHERE rowid = ?');
  return best
    .map(({ id, revisionId, pageId, score, rowid }) => {
      const { title, markdown } = page.get(rowid) as { title: string; markdown: string };
      return { spaceId: id, revisionId, pageId, title, markdown, score };
    })
    .sort((a, b) => b.score - a.score || a.pageId.localeCompare(b.pageId));
}
