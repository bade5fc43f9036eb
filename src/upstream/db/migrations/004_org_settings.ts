import type { Migration } from './index.js';
import { OPENAPI_SPEC, ORGANIZATION, ownedTable } from './tables.js';

/** OpenAPI specs and their versions, translation settings, custom fonts. Timestamps are ISO strings. */
const sql = /* sql */ `
${ownedTable(
  'openapi_specs',
  ORGANIZATION,
  'openapi_specs_org',
  'created_at',
  `
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
  UNIQUE (organization_id, slug)`,
)}

${ownedTable(
  'openapi_spec_versions',
  OPENAPI_SPEC,
  'openapi_spec_versions_spec',
  'created_at',
  `
  content TEXT NOT NULL,
  created_at TEXT NOT NULL`,
)}

${ownedTable(
  'translation_settings',
  ORGANIZATION,
  'translation_settings_org',
  'created_at',
  `
  title TEXT NOT NULL,
  languages TEXT NOT NULL DEFAULT '["en"]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL`,
)}

-- faces: JSON array of {weight, storageKey}, sorted by weight.
${ownedTable(
  'fonts',
  ORGANIZATION,
  'fonts_org',
  'created_at',
  `
  font_family TEXT NOT NULL,
  faces TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL`,
)}
`;

const migration: Migration = { version: 4, name: 'org-settings', sql };
export default migration;
