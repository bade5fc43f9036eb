import type { Migration } from './index.js';

// Filled in by the part-2 work on integrations.
const migration: Migration = { version: 5, name: 'integrations', sql: '' };
export default migration;
