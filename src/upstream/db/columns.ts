import type { Db } from './index.js';

/**
 * Updates the given columns of one row: an undefined value keeps the column, null clears it.
 * Table and column names are constants of the caller, never input.
 */
export function setColumns(db: Db, table: string, key: [string, string], values: Record<string, unknown>): void {
  const entries = Object.entries(values).filter(([, v]) => v !== undefined);
  if (!entries.length) return;
  const assignments = entries.map(([column]) => `${column} = ?`).join(', ');
  const params = entries.map(([, v]) => (typeof v === 'boolean' ? Number(v) : v));
  db.prepare(`UPDATE ${table} SET ${assignments} WHERE ${key[0]} = ?`).run(...params, key[1]);
}
