/** Statements that several migrations write alike. A migration's SQL must not change once shipped (test/upstream/migrations.test.ts pins it). */

/** The row a child row belongs to: the child's column naming it, and the parent's table (keyed by `id`). */
export interface Parent {
  column: string;
  table: string;
}

export const ORGANIZATION: Parent = { column: 'organization_id', table: 'organizations' };
export const SPACE: Parent = { column: 'space_id', table: 'spaces' };
export const COMMENT: Parent = { column: 'comment_id', table: 'comments' };
export const SITE: Parent = { column: 'site_id', table: 'sites' };
export const OPENAPI_SPEC: Parent = { column: 'spec_id', table: 'openapi_specs' };

/**
 * `CREATE TABLE` of rows keyed by `id` that belong to a parent row and are deleted with it, then
 * the index `index` on (parent, `order`, id) that serves their keyset-paginated list
 * (src/upstream/pagination.ts). `columns` are the table's other lines, each after a line break,
 * as they stand in the statement.
 */
export function ownedTable(table: string, parent: Parent, index: string, order: string, columns: string): string {
  return `CREATE TABLE ${table} (
  id TEXT PRIMARY KEY,
  ${parent.column} TEXT NOT NULL REFERENCES ${parent.table}(id) ON DELETE CASCADE,${columns}
);
CREATE INDEX ${index} ON ${table}(${parent.column}, ${order}, id);`;
}
