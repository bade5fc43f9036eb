/**
 * Content: a revision is an immutable set of pages of a space. The space points at its current
 * revision; a change request works on a revision of its own.
 */
import type { Db } from '../db/index.js';
import { newId } from '../ids.js';

export interface PageRow {
  revision_id: string;
  page_id: string;
  title: string;
  emoji: string | null;
  path: string;
  markdown: string;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface PageInput {
  /** Keeps the page's identity across revisions; a new id when absent. */
  page_id?: string;
  title: string;
  emoji?: string | null;
  path?: string;
  markdown: string;
  created_at?: string;
  /** Kept when the page is carried over unchanged (merges); `now` when absent. */
  updated_at?: string;
}

/** `Getting started!` → `getting-started`. */
export function slugify(title: string): string {
  return (
    title
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'page'
  );
}

/** Creates a revision of `spaceId` holding exactly `pages` (in order). */
export function createRevision(db: Db, spaceId: string, parentId: string | null, pages: PageInput[], now: string): string {
  const id = newId();
  db.prepare('INSERT INTO revisions (id, space_id, parent_id, created_at) VALUES (?, ?, ?, ?)').run(id, spaceId, parentId, now);
  const insert = db.prepare(
    `INSERT INTO pages (revision_id, page_id, title, emoji, path, markdown, position, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const used = new Set<string>();
  pages.forEach((p, i) => {
    let path = p.path ?? slugify(p.title);
    for (let n = 2; used.has(path); n++) path = `${p.path ?? slugify(p.title)}-${n}`;
    used.add(path);
    insert.run(id, p.page_id ?? newId(), p.title, p.emoji ?? null, path, p.markdown, i, p.created_at ?? now, p.updated_at ?? now);
  });
  return id;
}

/** Pages of a revision, in order. */
export function pagesOf(db: Db, revisionId: string): PageRow[] {
  return db.prepare('SELECT * FROM pages WHERE revision_id = ? ORDER BY position').all(revisionId) as PageRow[];
}

/** A new revision with the same pages as `revisionId` (page ids and timestamps kept). */
export function copyRevision(db: Db, revisionId: string, spaceId: string, now: string): string {
  const id = newId();
  db.prepare('INSERT INTO revisions (id, space_id, parent_id, created_at) VALUES (?, ?, ?, ?)').run(id, spaceId, revisionId, now);
  const insert = db.prepare(
    `INSERT INTO pages (revision_id, page_id, title, emoji, path, markdown, position, created_at, updated_at)
     SELECT ?, page_id, title, emoji, path, markdown, position, created_at, updated_at FROM pages WHERE revision_id = ?`,
  );
  insert.run(id, revisionId);
  return id;
}
