import type { Migration } from './index.js';

/** OpenAPI specs and their versions, translation settings, custom fonts. Timestamps are ISO strings. */
const sql = /* sql */ `
CREATE TABLE openapi_specs (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  source_url TEXT,
  source_text TEXT,
  processing_state TEXT NOT NULL DEFAULT 'pending',
  -- Incremented by each (re)processing; a run writes its result only while it is the latest.
  process_run INTEGER NOT NULL DEFAULT 0,
  last_version_id TEXT,
  last_processed_at TEXT,
  last_error_code TEXT,
  last_error_message TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (organization_id, slug)
);
CREATE INDEX openapi_specs_org ON openapi_specs(organization_id, created_at, id);

CREATE TABLE openapi_spec_versions (
  id TEXT PRIMARY KEY,
  spec_id TEXT NOT NULL REFERENCES openapi_specs(id) ON DELETE CASCADE,
  content TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX openapi_spec_versions_spec ON openapi_spec_versions(spec_id, created_at, id);

CREATE TABLE translation_settings (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  languages TEXT NOT NULL DEFAULT '["en"]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX translation_settings_org ON translation_settings(organization_id, created_at, id);

-- faces: JSON array of {weight, storageKey}, sorted by weight.
CREATE TABLE fonts (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  font_family TEXT NOT NULL,
  faces TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX fonts_org ON fonts(organization_id, created_at, id);
`;

const migration: Migration = { version: 4, name: 'org-settings', sql };
export default migration;
