import type { Migration } from './index.js';

// Filled in by the part-2 work on ask.
const migration: Migration = { version: 6, name: 'ask', sql: '' };
export default migration;
