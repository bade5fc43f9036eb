import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { coverage, DOC_FILE, endpointKey, renderDoc } from '../../scripts/endpoints.js';

describe('docs/ENDPOINTS.md', () => {
  const rows = coverage();

  it('names an upstream test file for every endpoint', () => {
    const untested = rows.filter((r) => !r.tests.length).map(endpointKey);
    expect(untested, `endpoints no file under test/upstream calls:\n${untested.join('\n')}`).toEqual([]);
  });

  it('is up to date (run `npm run endpoints`)', () => {
    expect(readFileSync(DOC_FILE, 'utf8')).toBe(renderDoc(rows));
  });
});
