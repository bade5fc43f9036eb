import type BetterSqlite3 from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrations } from './migrations/index.js';

/**
 * The SQLite driver for the running Node: better-sqlite3 13 is built on Node-API 10 (Node >= 22.14,
 * 24); Node 20 has Node-API 9, so it gets 12.x (the `better-sqlite3-12` alias, compiled for it at
 * install). 12.x is not used where 13 runs: on Node 24 it aborts when V8 collects a statement
 * (`Assertion failed: (env) != nullptr`). Import the driver from here, never the packages directly.
 */
export const Database: typeof BetterSqlite3 = (await import(Number(process.versions.napi) >= 10 ? 'better-sqlite3' : 'better-sqlite3-12'))
  .default;

export type Db = BetterSqlite3.Database;

/**
 * Opens (and creates) the SQLite database and brings its schema up to date. `maxBytes` (0: none)
 * caps its size: a write that needs more fails with SQLITE_FULL (answered 507, server.ts). Every
 * write a token allows may be repeated (a comment of 1 MB per request, with the `comment` role), and
 * `:memory:` keeps the database in the process: 200 such comments added 200 MB to `npm start`'s RSS
 * in six seconds, without bound.
 */
export function openDatabase(file: string, maxBytes = 0): Db {
  if (file !== ':memory:') makeDirectory(dirname(file));
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    // One process per file, held from the next read (the migration's) to the close. Two processes
    // on one file (an operator's mistake) shared it: one in sixteen writes answered 500 "database
    // is locked" (a transaction that read first cannot wait for the other's write), and the
    // others waited for it on the event loop. After WAL mode: set before it, a file that cannot
    // be written failed with "disk I/O error" instead of probeWrite's message.
    if (file !== ':memory:') db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // Not below what it holds: SQLite keeps the larger of the two.
    if (maxBytes > 0) db.pragma(`max_page_count = ${Math.ceil(maxBytes / (db.pragma('page_size', { simple: true }) as number))}`);
    migrate(db);
    checkPages(db);
    probeWrite(db);
  } catch (error) {
    db.close();
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY')
      throw new Error('the file is in use by another process (one process per database file)', { cause: error });
    throw error;
  }
  cacheStatements(db);
  return db;
}

/**
 * Reads every page once (`PRAGMA quick_check`: O(N), about a second for 320 MB) and throws
 * on a damaged file (a disk fault, a page overwritten, a copy taken mid-write): SQLite opens one
 * whose schema reads without a word, and the process started, `/ready` 200, and answered every
 * request that touched a damaged page (a token's lookup, for one) 500 "database disk image is
 * malformed", a stack trace logged for each.
 */
function checkPages(db: Db): void {
  const found = db.pragma('quick_check(1)', { simple: true });
  if (found !== 'ok')
    throw new Error(
      `the file is damaged (PRAGMA quick_check: ${String(found).replace(/\s+/g, ' ')}): restore a backup, or recover its rows with sqlite3's .recover`,
    );
}

/**
 * Writes and rolls back, so a database this process cannot write stops the start: SQLite opens a
 * file it may read but not write (its mode or owner, its `-wal` file's, a read-only mount)
 * read-only without a word, and a migrated one started, served reads, then answered every write
 * HTTP 500 with a stack trace in the log. Throws SQLite's "attempt to write a readonly database".
 * The write takes no new page: a database at its size cap (--db-max-bytes) must start, so that
 * what fills it can be deleted. A table made here did need one, and a database a token had filled
 * to its cap no longer started ("database or disk is full").
 */
function probeWrite(db: Db): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.pragma(`user_version = ${db.pragma('user_version', { simple: true }) as number}`);
  } finally {
    db.exec('ROLLBACK');
  }
}

/**
 * Creates `dir` and its missing parents, one at a time. `mkdirSync(dir, { recursive: true })`
 * never returned for a directory under /proc (`--db /proc/x/docs.db`), where mkdir answers ENOENT
 * although the parent exists: the start spun a core, printed nothing and ignored Ctrl-C.
 */
function makeDirectory(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) makeDirectory(parent);
  try {
    mkdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * better-sqlite3 compiles SQL on every `prepare`; the routes prepare the same few hundred
 * statements on each request, so keep them compiled. Statements are re-entrant-safe here: no route
 * iterates a statement (`.iterate()`) while running it again. Bounded, for the dynamic SQL of lists.
 */
function cacheStatements(db: Db, max = 1000): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, BetterSqlite3.Statement>();
  db.prepare = ((sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = prepare(sql);
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      cache.set(sql, stmt);
    }
    return stmt;
  }) as Db['prepare'];
}

/** Applies the migrations whose version is above `PRAGMA user_version`, each in a transaction. */
export function migrate(db: Db): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  // Written by a newer release (a rollback of the code, not of the data): its schema has what
  // this code does not know, so a write could fail or drop it. It was served without a word.
  if (current > schemaVersion())
    throw new Error(`its schema is version ${current}, newer than this release's ${schemaVersion()}: run the release that wrote it`);
  let applied = 0;
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
    applied++;
  }
  return applied;
}

/** Current schema version. */
export const schemaVersion = () => migrations[migrations.length - 1]?.version ?? 0;
