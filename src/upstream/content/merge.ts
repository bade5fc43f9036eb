/**
 * Change request content: edits (a new revision of the change request), updates from the main
 * content and merges into it. Both update and merge are three-way merges against the change
 * request's base (the space revision it was created from or last updated from): pages the change
 * request changed since its base win, pages only the main content changed are kept, and pages
 * the change request deleted are removed.
 */
import type { Db } from '../db/index.js';
import { conflict } from '../errors.js';
import { createRevision, pagesOf, type PageInput, type PageRow } from './revisions.js';

export interface ChangeRequestRow {
  id: string;
  space_id: string;
  number: number;
  status: 'draft' | 'open' | 'archived' | 'merged';
  subject: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  revision_id: string;
  revision_initial: string;
  revision_merged_ancestor: string | null;
  revision_merged: string | null;
}

/** One change to the pages of a change request: a page id that exists edits (or deletes) it; otherwise a page is added. */
export interface PageEdit {
  page_id?: string;
  title?: string;
  emoji?: string | null;
  markdown?: string;
  delete?: boolean;
}

/** The space revision the change request's content is based on. */
export const baseRevision = (cr: ChangeRequestRow) => cr.revision_merged_ancestor ?? cr.revision_initial;

/** True while the change request's base is behind the space's current revision (never once merged). */
export const isOutdated = (cr: ChangeRequestRow, spaceRevision: string) => cr.status !== 'merged' && baseRevision(cr) !== spaceRevision;

const toInput = (p: PageRow): PageInput => ({
  page_id: p.page_id,
  title: p.title,
  emoji: p.emoji,
  path: p.path,
  markdown: p.markdown,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

function samePage(a: PageRow | undefined, b: PageRow | undefined): boolean {
  if (!a || !b) return a === b;
  return a.title === b.title && a.emoji === b.emoji && a.path === b.path && a.markdown === b.markdown;
}

/** Three-way merge of pages: `theirs` (main content) plus every change `ours` made since `base`. */
export function mergePages(base: PageRow[], ours: PageRow[], theirs: PageRow[]): PageInput[] {
  const inBase = new Map(base.map((p) => [p.page_id, p]));
  const inOurs = new Map(ours.map((p) => [p.page_id, p]));
  const inTheirs = new Set(theirs.map((p) => p.page_id));
  const changed = (id: string) => !samePage(inBase.get(id), inOurs.get(id));
  const result: PageRow[] = [];
  for (const page of theirs) {
    if (!changed(page.page_id)) result.push(page);
    else if (inOurs.has(page.page_id)) result.push(inOurs.get(page.page_id)!);
  }
  ours.forEach((page, i) => {
    if (inTheirs.has(page.page_id) || !changed(page.page_id)) return;
    result.splice(insertionPoint(result, ours, i), 0, page);
  });
  return result.map(toInput);
}

/** Just after the nearest page that precedes `ours[i]` in `ours` and is already placed (else first). */
function insertionPoint(result: PageRow[], ours: PageRow[], i: number): number {
  for (let j = i - 1; j >= 0; j--) {
    const at = result.findIndex((p) => p.page_id === ours[j].page_id);
    if (at >= 0) return at + 1;
  }
  return 0;
}

function spaceRevision(db: Db, spaceId: string): string {
  return (db.prepare('SELECT revision_id FROM spaces WHERE id = ?').get(spaceId) as { revision_id: string }).revision_id;
}

function mergedWithMain(db: Db, cr: ChangeRequestRow, main: string): PageInput[] {
  return mergePages(pagesOf(db, baseRevision(cr)), pagesOf(db, cr.revision_id), pagesOf(db, main));
}

/**
 * Writes the change request into the space as a new space revision; the change request becomes
 * merged. The seed's transition is "any → merged" (draft, open and archived alike); only a merged
 * change request cannot be merged again (409).
 */
export function mergeChangeRequest(db: Db, cr: ChangeRequestRow, now: string): string {
  if (cr.status === 'merged') throw conflict('The change request is already merged');
  return db.transaction(() => {
    const main = spaceRevision(db, cr.space_id);
    const revision = createRevision(db, cr.space_id, main, mergedWithMain(db, cr, main), now);
    db.prepare('UPDATE spaces SET revision_id = ?, updated_at = ? WHERE id = ?').run(revision, now, cr.space_id);
    db.prepare(`UPDATE change_requests SET status = 'merged', revision_merged = ?, updated_at = ? WHERE id = ?`).run(revision, now, cr.id);
    return revision;
  })();
}

/** Pulls the space's current content into the change request (its own changes win); a no-op when up to date. */
export function updateChangeRequest(db: Db, cr: ChangeRequestRow, now: string): string {
  if (cr.status === 'merged') throw conflict('A merged change request cannot be updated');
  return db.transaction(() => {
    const main = spaceRevision(db, cr.space_id);
    if (baseRevision(cr) === main) return cr.revision_id;
    const revision = createRevision(db, cr.space_id, cr.revision_id, mergedWithMain(db, cr, main), now);
    db.prepare('UPDATE change_requests SET revision_id = ?, revision_merged_ancestor = ?, updated_at = ? WHERE id = ?').run(
      revision,
      main,
      now,
      cr.id,
    );
    return revision;
  })();
}

function applyEdit(pages: PageInput[], edit: PageEdit, now: string): PageInput[] {
  const index = edit.page_id === undefined ? -1 : pages.findIndex((p) => p.page_id === edit.page_id);
  if (index < 0) {
    if (edit.delete) throw new Error(`No page ${edit.page_id} in the change request`);
    return [...pages, { page_id: edit.page_id, title: edit.title ?? 'Untitled', emoji: edit.emoji, markdown: edit.markdown ?? '' }];
  }
  if (edit.delete) return pages.filter((_, i) => i !== index);
  const old = pages[index];
  const page: PageInput = {
    ...old,
    title: edit.title ?? old.title,
    emoji: edit.emoji === undefined ? old.emoji : edit.emoji,
    markdown: edit.markdown ?? old.markdown,
    path: edit.title === undefined || edit.title === old.title ? old.path : undefined,
    updated_at: now,
  };
  return pages.map((p, i) => (i === index ? page : p));
}

/**
 * Edits the content of a change request (the seed has no content-write endpoint; used by tests
 * and the demo content): a new revision of the change request, `userId` recorded as contributor.
 */
export function editChangeRequestPages(db: Db, changeRequestId: string, userId: string, edits: PageEdit[], now: string): string {
  return db.transaction(() => {
    const cr = db.prepare('SELECT * FROM change_requests WHERE id = ?').get(changeRequestId) as ChangeRequestRow | undefined;
    if (!cr) throw new Error(`No change request ${changeRequestId}`);
    if (cr.status === 'merged') throw conflict('A merged change request cannot be edited');
    const pages = edits.reduce((acc, edit) => applyEdit(acc, edit, now), pagesOf(db, cr.revision_id).map(toInput));
    const revision = createRevision(db, cr.space_id, cr.revision_id, pages, now);
    db.prepare('UPDATE change_requests SET revision_id = ?, updated_at = ? WHERE id = ?').run(revision, now, cr.id);
    db.prepare('INSERT OR IGNORE INTO change_request_contributors (change_request_id, user_id) VALUES (?, ?)').run(cr.id, userId);
    return revision;
  })();
}
