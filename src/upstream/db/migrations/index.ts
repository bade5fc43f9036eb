import core from './001_core.js';
import sites from './002_sites.js';
import organizations from './003_organizations.js';
import orgSettings from './004_org_settings.js';
import integrations from './005_integrations.js';
import ask from './006_ask.js';
import memberSpaces from './007_member_spaces.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Versioned migrations, applied in order; never edit one that has shipped, add a new one. */
export const migrations: Migration[] = [core, sites, organizations, orgSettings, integrations, ask, memberSpaces];
