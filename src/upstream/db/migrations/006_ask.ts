import type { Migration } from './index.js';

/**
 * Full-text index of pages for the AI ask: an external-content FTS5 table over `pages` (title
 * weighted above the body at query time), kept in sync by triggers. Every revision's pages are
 * indexed; the ask joins `spaces.revision_id` so only each space's current revision counts.
 */
const sql = `
CREATE VIRTUAL TABLE pages_fts USING fts5(
  title, markdown,
  content = 'pages', content_rowid = 'rowid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER pages_fts_insert AFTER INSERT ON pages BEGIN
  INSERT INTO pages_fts (rowid, title, markdown) VALUES (new.rowid, new.title, new.markdown);
END;

CREATE TRIGGER pages_fts_delete AFTER DELETE ON pages BEGIN
  INSERT INTO pages_fts (pages_fts, rowid, title, markdown) VALUES ('delete', old.rowid, old.title, old.markdown);
END;

CREATE TRIGGER pages_fts_update AFTER UPDATE ON pages BEGIN
  INSERT INTO pages_fts (pages_fts, rowid, title, markdown) VALUES ('delete', old.rowid, old.title, old.markdown);
  INSERT INTO pages_fts (rowid, title, markdown) VALUES (new.rowid, new.title, new.markdown);
END;

-- Pages written before this migration.
INSERT INTO pages_fts (pages_fts) VALUES ('rebuild');

CREATE INDEX spaces_revision ON spaces(revision_id);
`;

const migration: Migration = { version: 6, name: 'ask', sql };
export default migration;
