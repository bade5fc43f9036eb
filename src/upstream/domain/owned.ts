/**
 * Tables of rows that belong to one parent row (an organization's fonts, translation settings,
 * OpenAPI specs and SAML providers; a site's share links, redirects and section groups): one
 * declaration per table serves its list, its lookups and its delete.
 */
import type { Db } from '../db/index.js';
import { notFound } from '../errors.js';
import type { ListSpec } from '../pagination.js';

export interface OwnedTable {
  table: string;
  /** The column naming the parent row, e.g. `organization_id`. */
  owner: string;
  /** The column a path names a row by (default `id`; OpenAPI specs: `slug`). */
  key?: string;
  /** What the 404 names: `${what} not found`. */
  what: string;
  /** The list order (see ListSpec.orderBy). */
  orderBy: string[];
}

/** The parent's rows, in the table's order. */
export function ownedRows<Row, Item>(t: OwnedTable, ownerId: string, map: (row: Row) => Item): ListSpec<Row, Item> {
  return { from: `${t.table} WHERE ${t.owner} = ?`, params: [ownerId], orderBy: t.orderBy, map };
}

/** All the parent's rows, in the table's order (unpaginated: for short lists). */
export function allOwned<Row>(db: Db, t: OwnedTable, ownerId: string): Row[] {
  return db.prepare(`SELECT * FROM ${t.table} WHERE ${t.owner} = ? ORDER BY ${t.orderBy.join(', ')}`).all(ownerId) as Row[];
}

/** The parent's row named `key`, or undefined. */
export function findOwned<Row>(db: Db, t: OwnedTable, ownerId: string, key: string): Row | undefined {
  return db.prepare(`SELECT * FROM ${t.table} WHERE ${t.owner} = ? AND ${t.key ?? 'id'} = ?`).get(ownerId, key) as Row | undefined;
}

/** The parent's row named `key` (404 otherwise). */
export function loadOwned<Row>(db: Db, t: OwnedTable, ownerId: string, key: string): Row {
  const row = findOwned<Row>(db, t, ownerId, key);
  if (!row) throw notFound(t.what);
  return row;
}

export function deleteOwned(db: Db, t: OwnedTable, id: string): void {
  db.prepare(`DELETE FROM ${t.table} WHERE id = ?`).run(id);
}
