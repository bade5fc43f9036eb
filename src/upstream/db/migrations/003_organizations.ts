import type { Migration } from './index.js';
import { ORGANIZATION, ownedTable } from './tables.js';

/** Pending invites by email, link invites and SAML providers (members and teams are in 001). */
const sql = /* sql */ `
-- An invitation sent to an email that has no user yet; joining consumes it.
CREATE TABLE invites (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  role TEXT,
  sso INTEGER NOT NULL DEFAULT 0,
  invited_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  UNIQUE (organization_id, email)
);

-- A reusable invite link: anyone holding its id may join with its role.
${ownedTable(
  'link_invites',
  ORGANIZATION,
  'link_invites_org',
  'created_at',
  `
  role TEXT,
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL`,
)}

${ownedTable(
  'saml_providers',
  ORGANIZATION,
  'saml_providers_org',
  'created_at',
  `
  label TEXT NOT NULL,
  entity_id TEXT,
  certificate TEXT,
  sso_url TEXT,
  default_team_id TEXT REFERENCES teams(id) ON DELETE SET NULL,
  default_role TEXT,
  created_at TEXT NOT NULL`,
)}

CREATE INDEX team_members_user ON team_members(user_id);
`;

const migration: Migration = { version: 3, name: 'organizations', sql };
export default migration;
