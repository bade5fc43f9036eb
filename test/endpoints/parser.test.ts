import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { endpointKey, EXTRAS_SECTION, loadEndpoints, normalizePath, parseSeed, seedFile, templateShape } from '../../scripts/endpoints.js';

/** Rows per section, counted by hand in the seed (a `base` row of a two-base section counts twice). */
const SECTION_COUNTS: Record<string, number> = {
  'Change request comments': 10,
  'Site section groups': 7,
  'Site sections': 5,
  Spaces: 10,
  Collections: 8,
  'Organization invites': 7,
  'Organization members': 8,
  Teams: 5,
  'Change requests': 7,
  'Space and collection user permissions': 10,
  Integrations: 5,
  'SAML and SSO': 6,
  'OpenAPI specs': 5,
  'Site redirects': 5,
  'Site share links': 4,
  'Translation settings': 5,
  'Custom fonts': 5,
  'Organization AI ask': 4,
  'Site operations named only in the changelog': 5,
  [EXTRAS_SECTION]: 6,
};

describe('the seed endpoint list', () => {
  const endpoints = loadEndpoints();
  const keys = endpoints.map(endpointKey);

  it('has the hand-counted number of endpoints in each section', () => {
    const counts: Record<string, number> = {};
    for (const e of endpoints) counts[e.section] = (counts[e.section] ?? 0) + 1;
    expect(counts).toEqual(SECTION_COUNTS);
    expect(endpoints).toHaveLength(127);
  });

  it('parses each endpoint once, as a full path with {name} parameters', () => {
    const seedKeys = parseSeed(readFileSync(seedFile(), 'utf8')).map(endpointKey);
    expect(new Set(seedKeys).size).toBe(seedKeys.length);
    for (const e of endpoints) expect(e.path).toMatch(/^(\/([a-z-]+|\{[a-zA-Z]+\}))+$/);
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

  it("reads the changelog's `any` row as GET and PATCH of publishing/auth, and adds the official extras", () => {
    const auth = endpoints.filter((e) => e.path.endsWith('/publishing/auth')).map((e) => e.method);
    expect(auth).toEqual(['GET', 'PATCH']);
    expect(endpoints.filter((e) => e.section === EXTRAS_SECTION).map(endpointKey)).toEqual([
      'GET /user',
      'GET /users/{userId}',
      'GET /orgs',
      'GET /orgs/{organizationId}',
      'GET /orgs/{organizationId}/sites',
      'GET /orgs/{organizationId}/sites/{siteId}',
    ]);
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
      writeFileSync(join(dir, 'a.txt'), '');
      writeFileSync(join(dir, 'b.txt'), '');
      expect(() => seedFile(`${dir}/`)).toThrow(/found a\.txt, b\.txt/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
