import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  committedSeedEndpoints,
  endpointKey,
  EXTRAS_SECTION,
  loadEndpoints,
  normalizePath,
  OFFICIAL_EXTRAS,
  parseSeed,
  seedFile,
  seedPresent,
  templateShape,
  type Endpoint,
} from '../../scripts/endpoints.js';

const METHOD_ROW = /^\|\s*(GET|POST|PUT|PATCH|DELETE|any)\s*\|\s*([^|]*?)\s*\|/;

/**
 * How many endpoints each `###` section of a seed text should give, counted from its rows without
 * the parser: a row gives one endpoint per method (`any`: GET and PATCH) and, when its path starts
 * with `base`, one per path of the section's Base line.
 */
function expectedCounts(text: string): Record<string, number> {
  const chapter = text.slice(text.indexOf('\n## Endpoints')).split(/^## (?!Endpoints)/m)[0];
  const counts: Record<string, number> = {};
  for (const block of chapter.split(/^### /m).slice(1)) {
    const [title, ...lines] = block.split('\n');
    const bases = (lines.find((l) => /^Bases?\b/.test(l.trim()))?.match(/`\/[^`]*`/g) ?? []).length;
    for (const line of lines) {
      const row = METHOD_ROW.exec(line.trim());
      if (row) counts[title.trim()] = (counts[title.trim()] ?? 0) + (row[1] === 'any' ? 2 : 1) * (row[2].startsWith('base') ? bases : 1);
    }
  }
  return counts;
}

const countBySection = (endpoints: Endpoint[]) => {
  const counts: Record<string, number> = {};
  for (const e of endpoints) counts[e.section] = (counts[e.section] ?? 0) + 1;
  return counts;
};

describe.skipIf(!seedPresent())('the seed, when at hand (../shared/seed, or SEED_DIR)', () => {
  const text = seedPresent() ? readFileSync(seedFile(), 'utf8') : '';

  it('parses to the committed list (`npm run endpoints` refreshes it)', () => {
    expect(committedSeedEndpoints()).toEqual(parseSeed(text));
  });

  it('gives each section one endpoint per method row and base, and no endpoint twice', () => {
    const parsed = parseSeed(text);
    expect(countBySection(parsed)).toEqual(expectedCounts(text));
    expect(new Set(parsed.map(endpointKey)).size).toBe(parsed.length);
  });
});

describe('the endpoint list', () => {
  const endpoints = loadEndpoints();
  const keys = endpoints.map(endpointKey);

  it('holds each endpoint once, as a full path with {name} parameters', () => {
    expect(new Set(keys).size).toBe(keys.length);
    for (const e of endpoints) expect(e.path).toMatch(/^(\/([a-z-]+|\{[a-zA-Z]+\}))+$/);
  });

  it('keeps each section together, in seed order, with the official extras last', () => {
    const runs = endpoints.map((e) => e.section).filter((section, i, all) => section !== all[i - 1]);
    expect(new Set(runs).size).toBe(runs.length);
    expect(runs.at(-1)).toBe(EXTRAS_SECTION);
    expect(runs.length).toBeGreaterThan(1);
  });

  it('expands base rows with the section base, drops parentheticals, reads both bases', () => {
    expect(keys).toContain('DELETE /spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}');
    expect(keys).toContain('PUT /orgs/{organizationId}/teams');
    expect(keys).toContain('POST /integrations/{integrationName}');
    expect(keys).toContain('PUT /orgs/{organizationId}/openapi/{specSlug}');
    expect(keys).toContain('POST /orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections');
    expect(keys).toContain('GET /spaces/{spaceId}/permissions/aggregate');
    expect(keys).toContain('GET /collections/{collectionId}/permissions/aggregate');
  });

  it("reads the changelog's `any` row as GET and PATCH of publishing/auth, and adds each official extra once", () => {
    const auth = endpoints.filter((e) => e.path.endsWith('/publishing/auth')).map((e) => e.method);
    expect(auth).toEqual(['GET', 'PATCH']);
    const seedKeys = new Set(committedSeedEndpoints().map(endpointKey));
    const extras = OFFICIAL_EXTRAS.map(([method, path]) => endpointKey({ method, path }));
    expect(
      extras.filter((k) => seedKeys.has(k)),
      'extras the seed already names',
    ).toEqual([]);
    expect(endpoints.filter((e) => e.section === EXTRAS_SECTION).map(endpointKey)).toEqual(extras);
  });
});

describe('parseSeed', () => {
  const seed = [
    '## Resources',
    '| GET | /not/an/endpoint | |',
    '## Endpoints',
    '### One',
    'Base `/orgs/{organizationId}`. Something.',
    '| Method | Path | Body |',
    '|---|---|---|',
    '| GET | base | |',
    '| PUT | base/things (creates a thing) | `title` |',
    '| any | /things/:thingId | |',
    '### Two',
    'Bases: `/a/{aId}/p` and `/b/{bId}/p`; both behave the same.',
    '| DELETE | base/users/{ userId } | |',
    '## Authentication',
    '| GET | /after | |',
  ].join('\n');

  it('reads only the Endpoints chapter, with every base wording, parenthetical and `any`', () => {
    expect(countBySection(parseSeed(seed))).toEqual(expectedCounts(seed));
    expect(parseSeed(seed).map((e) => `${e.section}: ${endpointKey(e)}`)).toEqual([
      'One: GET /orgs/{organizationId}',
      'One: PUT /orgs/{organizationId}/things',
      'One: GET /things/{thingId}',
      'One: PATCH /things/{thingId}',
      'Two: DELETE /a/{aId}/p/users/{userId}',
      'Two: DELETE /b/{bId}/p/users/{userId}',
    ]);
  });

  it('fails clearly on a base row without a Base line, or without an Endpoints chapter', () => {
    expect(() => parseSeed('## Endpoints\n### X\n| GET | base/x | |\n')).toThrow('Seed section "X": "base/x" needs a Base line');
    expect(() => parseSeed('# nothing')).toThrow('The seed has no "## Endpoints" chapter');
  });

  it('normalizes templates and compares them with parameter names ignored', () => {
    expect(normalizePath('/a/:id/b/')).toBe('/a/{id}/b');
    expect(templateShape('/spaces/{spaceId}/x')).toBe(templateShape('/spaces/{id}/x'));
  });
});

describe('seedFile', () => {
  it('fails with a clear message when the seed is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'seed-'));
    try {
      expect(() => seedFile(`${dir}/`)).toThrow(/Expected exactly one seed \.txt file in .* found none/);
      expect(() => loadEndpoints(`${dir}/`)).toThrow(/Expected exactly one seed/);
      expect(seedPresent(`${dir}/`)).toBe(false);
      writeFileSync(join(dir, 'a.txt'), '');
      writeFileSync(join(dir, 'b.txt'), '');
      expect(() => seedFile(`${dir}/`)).toThrow(/found a\.txt, b\.txt/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
