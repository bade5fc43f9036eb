import type { Migration } from './index.js';
import { ORGANIZATION, SITE, ownedTable } from './tables.js';

/**
 * Docs sites: sites, their sections (each with site spaces, the space variants of a section),
 * section groups, redirects, share links and visitor-authentication settings.
 * Sections and section groups share one `position` sequence per site, so a group can be placed
 * before or after a section.
 */
const sql = /* sql */ `
${ownedTable(
  'sites',
  ORGANIZATION,
  'sites_org',
  'created_at',
  `
  title TEXT NOT NULL,
  visibility TEXT NOT NULL DEFAULT 'public',
  published INTEGER NOT NULL DEFAULT 0,
  -- The section served at the root of the site; when null, the first section by position.
  default_section_id TEXT REFERENCES site_sections(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL`,
)}

${ownedTable(
  'site_section_groups',
  SITE,
  'site_section_groups_site',
  'position',
  `
  title TEXT NOT NULL,
  icon TEXT,
  position INTEGER NOT NULL,
  created_at TEXT NOT NULL`,
)}

${ownedTable(
  'site_sections',
  SITE,
  'site_sections_site',
  'position',
  `
  section_group_id TEXT REFERENCES site_section_groups(id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  description TEXT,
  path TEXT NOT NULL,
  condition TEXT,
  icon TEXT,
  -- The site space shown by default; when null, the first site space by position.
  default_site_space_id TEXT REFERENCES site_spaces(id) ON DELETE SET NULL,
  position INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (site_id, path)`,
)}
CREATE INDEX site_sections_group ON site_sections(section_group_id, position, id);

CREATE TABLE site_spaces (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  section_id TEXT NOT NULL REFERENCES site_sections(id) ON DELETE CASCADE,
  space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  path TEXT NOT NULL,
  condition TEXT,
  position INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (section_id, path)
);
CREATE INDEX site_spaces_section ON site_spaces(section_id, position, id);
CREATE INDEX site_spaces_space ON site_spaces(space_id);

${ownedTable(
  'site_redirects',
  SITE,
  'site_redirects_site',
  'created_at',
  `
  source TEXT NOT NULL,
  destination_section_id TEXT NOT NULL REFERENCES site_sections(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  updated_at TEXT,
  UNIQUE (site_id, source)`,
)}

-- A share link's key is the secret that opens a share-link site (query shareKey).
${ownedTable(
  'share_links',
  SITE,
  'share_links_site',
  'created_at',
  `
  name TEXT NOT NULL,
  key TEXT NOT NULL UNIQUE,
  active INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL`,
)}

-- Visitor authentication settings (created with a fresh private key on first read).
CREATE TABLE site_publishing_auth (
  site_id TEXT PRIMARY KEY REFERENCES sites(id) ON DELETE CASCADE,
  backend TEXT NOT NULL DEFAULT 'custom',
  private_key TEXT NOT NULL,
  fallback_url TEXT,
  logout_url TEXT
);
`;

const migration: Migration = { version: 2, name: 'sites', sql };
export default migration;
