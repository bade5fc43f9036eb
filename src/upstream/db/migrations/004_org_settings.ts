import type { Migration } from './index.js';

// Filled in by the part-2 work on org-settings.
const migration: Migration = { version: 4, name: 'org-settings', sql: '' };
export default migration;
