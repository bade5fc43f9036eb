import type { Migration } from './index.js';

// Filled in by the part-2 work on sites.
const migration: Migration = { version: 2, name: 'sites', sql: '' };
export default migration;
