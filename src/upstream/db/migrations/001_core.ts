import type { Migration } from './index.js';
import { COMMENT, ORGANIZATION, SPACE, ownedTable } from './tables.js';

/** Users, tokens, organizations, members, teams, content (collections, spaces, revisions, pages),
 * change requests, comments, replies, reactions and content permissions. Timestamps are ISO strings. */
const sql = /* sql */ `
-- Key/value settings of this database (e.g. the demo tokens printed on start).
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  display_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  photo_url TEXT,
  created_at TEXT NOT NULL
);

CREATE TABLE tokens (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  label TEXT,
  created_at TEXT NOT NULL
);

CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  hostname TEXT NOT NULL UNIQUE,
  default_role TEXT,
  email_domains TEXT NOT NULL DEFAULT '[]',
  invite_links INTEGER NOT NULL DEFAULT 1,
  sso INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);

CREATE TABLE members (
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT,
  disabled INTEGER NOT NULL DEFAULT 0,
  sso INTEGER NOT NULL DEFAULT 0,
  joined_at TEXT NOT NULL,
  last_seen_at TEXT,
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX members_user ON members(user_id);

${ownedTable(
  'teams',
  ORGANIZATION,
  'teams_org',
  'created_at',
  `
  title TEXT NOT NULL,
  created_at TEXT NOT NULL`,
)}

CREATE TABLE team_members (
  team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL DEFAULT 'member',
  PRIMARY KEY (team_id, user_id)
);

${ownedTable(
  'collections',
  ORGANIZATION,
  'collections_org',
  'position',
  `
  parent_id TEXT REFERENCES collections(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  description TEXT,
  default_level TEXT NOT NULL DEFAULT 'read',
  position REAL NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL`,
)}

${ownedTable(
  'spaces',
  ORGANIZATION,
  'spaces_org',
  'position',
  `
  parent_id TEXT REFERENCES collections(id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  emoji TEXT NOT NULL DEFAULT '',
  visibility TEXT NOT NULL DEFAULT 'private',
  edit_mode TEXT NOT NULL DEFAULT 'live',
  default_level TEXT NOT NULL DEFAULT 'read',
  revision_id TEXT NOT NULL,
  position REAL NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT`,
)}
CREATE INDEX spaces_parent ON spaces(parent_id, position, id);

CREATE TABLE revisions (
  id TEXT PRIMARY KEY,
  space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  parent_id TEXT,
  created_at TEXT NOT NULL
);

-- A page as it stands in one revision; page_id is stable across revisions.
CREATE TABLE pages (
  revision_id TEXT NOT NULL REFERENCES revisions(id) ON DELETE CASCADE,
  page_id TEXT NOT NULL,
  title TEXT NOT NULL,
  emoji TEXT,
  path TEXT NOT NULL,
  markdown TEXT NOT NULL,
  position INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (revision_id, page_id)
);

${ownedTable(
  'change_requests',
  SPACE,
  'change_requests_space',
  'created_at',
  `
  number INTEGER NOT NULL,
  status TEXT NOT NULL,
  subject TEXT NOT NULL DEFAULT '',
  created_by TEXT NOT NULL REFERENCES users(id),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  revision_id TEXT NOT NULL,
  revision_initial TEXT NOT NULL,
  revision_merged_ancestor TEXT,
  revision_merged TEXT,
  UNIQUE (space_id, number)`,
)}

-- Users who wrote to a change request (the creator and editors): the contributor filter.
CREATE TABLE change_request_contributors (
  change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (change_request_id, user_id)
);

CREATE TABLE comments (
  id TEXT PRIMARY KEY,
  space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
  posted_by TEXT NOT NULL REFERENCES users(id),
  posted_at TEXT NOT NULL,
  edited_at TEXT,
  markdown TEXT NOT NULL,
  node_id TEXT,
  page_id TEXT,
  status TEXT NOT NULL DEFAULT 'open',
  resolved_at TEXT,
  resolved_by TEXT REFERENCES users(id)
);
CREATE INDEX comments_cr ON comments(change_request_id, posted_at, id);

${ownedTable(
  'comment_replies',
  COMMENT,
  'replies_comment',
  'posted_at',
  `
  posted_by TEXT NOT NULL REFERENCES users(id),
  posted_at TEXT NOT NULL,
  edited_at TEXT,
  markdown TEXT NOT NULL`,
)}

-- target_id is a comment id or a reply id (both are unique ids).
CREATE TABLE reactions (
  target_id TEXT NOT NULL,
  emoji TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  reacted_at TEXT NOT NULL,
  PRIMARY KEY (target_id, emoji, user_id)
);

-- Roles granted on a space or a collection to a user or a team.
CREATE TABLE content_permissions (
  target_type TEXT NOT NULL CHECK (target_type IN ('space', 'collection')),
  target_id TEXT NOT NULL,
  principal_type TEXT NOT NULL CHECK (principal_type IN ('user', 'team')),
  principal_id TEXT NOT NULL,
  role TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (target_type, target_id, principal_type, principal_id)
);
CREATE INDEX content_permissions_principal ON content_permissions(principal_type, principal_id);
`;

const migration: Migration = { version: 1, name: 'core', sql };
export default migration;
