import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema, SCHEMA_FILE } from '../../scripts/print-schema.js';

describe('schema.graphql', () => {
  it('is the printed schema (run `npm run schema` after changing src/schema)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(printedSchema());
  });
});
