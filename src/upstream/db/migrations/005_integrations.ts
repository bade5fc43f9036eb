import type { Migration } from './index.js';

/**
 * Published integrations (global, named), their installations in organizations, and their
 * secrets (a table of their own, so no serializer of integration rows can ever see them).
 * JSON columns hold arrays/objects as published; `block_domains` is derived from the blocks'
 * `urlUnfurl` patterns for the `blockDomain` filter.
 */
const sql = /* sql */ `
CREATE TABLE integrations (
  name TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  title TEXT NOT NULL,
  description TEXT NOT NULL,
  summary TEXT,
  icon TEXT,
  preview_images TEXT NOT NULL DEFAULT '[]',
  visibility TEXT NOT NULL,
  target TEXT NOT NULL,
  scopes TEXT NOT NULL DEFAULT '[]',
  categories TEXT NOT NULL DEFAULT '[]',
  blocks TEXT NOT NULL DEFAULT '[]',
  block_domains TEXT NOT NULL DEFAULT '[]',
  content_sources TEXT NOT NULL DEFAULT '[]',
  configurations TEXT NOT NULL DEFAULT '{}',
  external_links TEXT NOT NULL DEFAULT '[]',
  content_security_policy TEXT,
  script TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX integrations_org ON integrations(organization_id, name);

CREATE TABLE integration_secrets (
  integration_name TEXT NOT NULL REFERENCES integrations(name) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (integration_name, key)
);

CREATE TABLE integration_installations (
  id TEXT PRIMARY KEY,
  integration_name TEXT NOT NULL REFERENCES integrations(name) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  status TEXT NOT NULL DEFAULT 'active',
  configuration TEXT NOT NULL DEFAULT '{}',
  external_ids TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (integration_name, organization_id)
);
CREATE INDEX integration_installations_list ON integration_installations(integration_name, created_at, id);
`;

const migration: Migration = { version: 5, name: 'integrations', sql };
export default migration;
