import type { Migration } from './index.js';

// Filled in by the part-2 work on organizations.
const migration: Migration = { version: 3, name: 'organizations', sql: '' };
export default migration;
