/**
 * The content tree: spaces and collections of an organization share one order (`position`, REAL):
 * "the end" is past everything in the organization, and moving before/after a sibling takes the
 * midpoint between two neighbours.
 */
import type { Db } from '../db/index.js';
import { badRequest } from '../errors.js';

// ---------------------------------------------------------------------------------------------
// The content tree

/** A position past every space and collection of the organization. */
export function endPosition(db: Db, organizationId: string): number {
  const { max } = db
    .prepare(
      `SELECT MAX(position) AS max FROM (
         SELECT position FROM spaces WHERE organization_id = @org
         UNION ALL SELECT position FROM collections WHERE organization_id = @org)`,
    )
    .get({ org: organizationId }) as { max: number | null };
  return (max ?? 0) + 1;
}

/** Spaces (not deleted) and collections directly in `parentId` (null: the organization root), with their table. */
const SIBLINGS = `(
  SELECT 'spaces' AS tbl, id, position FROM spaces WHERE organization_id = @org AND parent_id IS @parent AND deleted_at IS NULL
  UNION ALL SELECT 'collections', id, position FROM collections WHERE organization_id = @org AND parent_id IS @parent)`;

export interface ContentPointer {
  type: 'space' | 'collection';
  space?: string;
  collection?: string;
}

export interface ContentPosition {
  before?: ContentPointer;
  after?: ContentPointer;
}

/** The space or collection a position points at, checked to be in the organization. */
function pointed(db: Db, organizationId: string, pointer: ContentPointer, field: string) {
  const id = pointer[pointer.type]!;
  const row = db
    .prepare(
      pointer.type === 'space'
        ? 'SELECT id, parent_id, position FROM spaces WHERE id = ? AND organization_id = ? AND deleted_at IS NULL'
        : 'SELECT id, parent_id, position FROM collections WHERE id = ? AND organization_id = ?',
    )
    .get(id, organizationId) as { id: string; parent_id: string | null; position: number } | undefined;
  if (!row) throw badRequest(`${field}: no ${pointer.type} ${id} in this organization`);
  return row;
}

/** The sibling a position refers to, with its field name (for messages). */
function anchorOf(position: ContentPosition | undefined) {
  if (position?.before) return { pointer: position.before, field: 'position.before', side: 'before' as const };
  if (position?.after) return { pointer: position.after, field: 'position.after', side: 'after' as const };
  return null;
}

/**
 * Where a moved item lands: its parent (`parent` when given, else the parent of the sibling
 * the position names, else where it is) and its position (between neighbours, default the end).
 * Whether the caller may create content in a new parent is checked by the caller (placeIn).
 */
export function placement(
  db: Db,
  item: { id: string; organization_id: string; parent_id: string | null },
  body: { parent?: string | null; position?: ContentPosition },
): { parentId: string | null; position: number } {
  const anchor = anchorOf(body.position);
  const target = anchor && pointed(db, item.organization_id, anchor.pointer, anchor.field);
  if (target?.id === item.id) throw badRequest(`${anchor!.field}: cannot place an item next to itself`);
  const parentId = body.parent !== undefined ? body.parent : target ? target.parent_id : item.parent_id;
  if (target && target.parent_id !== parentId)
    throw badRequest(`${anchor!.field}: is not in the destination ${parentId ? `collection ${parentId}` : 'root'}`);
  if (!target) return { parentId, position: endPosition(db, item.organization_id) };
  const cmp = anchor!.side === 'before' ? '<' : '>';
  const agg = anchor!.side === 'before' ? 'MAX' : 'MIN';
  const { near } = db
    .prepare(`SELECT ${agg}(position) AS near FROM ${SIBLINGS} WHERE position ${cmp} @at AND id != @id`)
    .get({ org: item.organization_id, parent: parentId, at: target.position, id: item.id }) as { near: number | null };
  const step = anchor!.side === 'before' ? -1 : 1;
  const position = near === null ? target.position + step : (near + target.position) / 2;
  // Each move next to a sibling halves a gap: after 52 moves after one sibling no double was left
  // between it and the last one moved, and the midpoint was the sibling's own position (7 of 60
  // concurrent moves "after A" were listed before A). Spread the siblings out and place it again.
  if (position === near || position === target.position) {
    respace(db, item.organization_id, parentId);
    return placement(db, item, body);
  }
  return { parentId, position };
}

/** Gives the siblings in `parentId` the positions 1, 2, 3… in their order (as listed: position, then id). */
function respace(db: Db, organizationId: string, parentId: string | null): void {
  const siblings = db
    .prepare(`SELECT tbl, id FROM ${SIBLINGS} ORDER BY position, id`)
    .all({ org: organizationId, parent: parentId }) as Array<{
    tbl: string;
    id: string;
  }>;
  db.transaction(() => {
    siblings.forEach((sibling, i) => db.prepare(`UPDATE ${sibling.tbl} SET position = ? WHERE id = ?`).run(i + 1, sibling.id));
  })();
}

/** The ids of every collection nested (at any depth) in `collectionId`. */
export function nestedCollectionIds(db: Db, collectionId: string): string[] {
  const rows = db
    .prepare(
      `WITH RECURSIVE nested(id) AS (
         SELECT id FROM collections WHERE parent_id = ?
         UNION SELECT c.id FROM collections c JOIN nested n ON c.parent_id = n.id)
       SELECT id FROM nested`,
    )
    .all(collectionId) as Array<{ id: string }>;
  return rows.map((r) => r.id);
}

/**
 * How deep collections nest: a collection at an organization's root is at level 1. Each read of
 * a space or collection walks its ancestors (access: one condition per ancestor), so a chain of
 * a thousand made a nested listing block the process for a minute, reads past SQLite's expression
 * depth fail, and a delete past its trigger depth fail. 32 levels is far more than a docs tree uses.
 */
export const MAX_COLLECTION_DEPTH = 32;

/** The level of collection `collectionId` (1 at the root), counted up to MAX_COLLECTION_DEPTH + 1. */
export function collectionLevel(db: Db, collectionId: string): number {
  const row = db
    .prepare(
      `WITH RECURSIVE up(id, level) AS (
         SELECT parent_id, 1 FROM collections WHERE id = ?
         UNION SELECT c.parent_id, up.level + 1 FROM collections c JOIN up ON c.id = up.id WHERE up.level <= ${MAX_COLLECTION_DEPTH})
       SELECT MAX(level) AS level FROM up`,
    )
    .get(collectionId) as { level: number | null };
  return row.level ?? 0;
}

/** The levels of collection `collectionId` and those nested in it (1 for one with none), counted up to MAX_COLLECTION_DEPTH + 1. */
export function collectionHeight(db: Db, collectionId: string): number {
  const row = db
    .prepare(
      `WITH RECURSIVE down(id, level) AS (
         SELECT ?, 1
         UNION SELECT c.id, down.level + 1 FROM collections c JOIN down ON c.parent_id = down.id WHERE down.level <= ${MAX_COLLECTION_DEPTH})
       SELECT MAX(level) AS level FROM down`,
    )
    .get(collectionId) as { level: number };
  return row.level;
}

/** `in-collection` is only for spaces in a collection: spaces leaving one become `private`. */
export function detachSpaces(db: Db, collectionIds: string[], now: string): void {
  const update = db.prepare(
    `UPDATE spaces SET parent_id = NULL, updated_at = ?,
       visibility = CASE visibility WHEN 'in-collection' THEN 'private' ELSE visibility END
     WHERE parent_id = ?`,
  );
  for (const id of collectionIds) update.run(now, id);
}
