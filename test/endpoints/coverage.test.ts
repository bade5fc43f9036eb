import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { matchesTemplate, scanFiles, WILDCARD } from '../../scripts/endpointCoverage.js';

const dir = mkdtempSync(join(tmpdir(), 'coverage-'));
afterAll(() => rmSync(dir, { recursive: true }));

/** The traced calls of one source text, wildcards shown as `*`. */
function scan(source: string): string[] {
  const file = join(dir, `case${Math.random().toString(36).slice(2)}.test.ts`);
  writeFileSync(file, source);
  return scanFiles([file])
    .get(file)!
    .map((c) => `${c.method} ${c.path.replaceAll(WILDCARD, '*')}`);
}

describe('scanFiles', () => {
  it('traces literals, templates, assigned variables and client methods', () => {
    const calls = scan(`
      let base: string;
      beforeAll(() => { base = \`/orgs/\${t.world.orgId}/fonts\`; });
      it('x', async () => {
        await t.api.put(base, {});
        await as('read').delete(\`\${base}/\${font.id}?x=1\`);
        await t.api.all('/integrations');
        await t.api.request('PATCH', '/spaces/' + id);
        await map.get(key);
      });`);
    expect(calls).toEqual(['PUT /orgs/*/fonts', 'DELETE /orgs/*/fonts/*', 'GET /integrations', 'PATCH /spaces/*']);
  });

  it('follows helpers, destructured results, parameters, describe.each tables and fetch', () => {
    const calls = scan(`
      function siteWith(title: string) {
        const base = \`/orgs/\${orgId}/sites/\${siteId}\`;
        return { base, links: \`\${base}/share-links\` };
      }
      const targets = [{ base: (id: string) => \`/spaces/\${id}\` }, { base: (id: string) => \`/collections/\${id}\` }] as const;
      const list = (path: string) => t.api.all(path);
      describe.each(targets)('$type', (target) => {
        it('x', async () => {
          const { links } = siteWith('A');
          const site = siteWith('B');
          await t.api.patch(\`\${links}/\${id}\`, {});
          await t.api.post(\`\${site.base}/publish\`);
          await t.api.get(\`\${target.base(x)}/permissions/users\`);
          await list('/orgs');
          await fetch(\`\${t.url}/user\`, { method: 'GET' });
        });
      });`);
    expect(calls.sort()).toEqual(
      [
        'PATCH /orgs/*/sites/*/share-links/*',
        'POST /orgs/*/sites/*/publish',
        'GET /spaces/*/permissions/users',
        'GET /collections/*/permissions/users',
        'GET /orgs',
        'GET /user',
      ].sort(),
    );
  });

  it('does not invent paths it cannot trace', () => {
    expect(scan(`it('x', async () => { await t.api.get(unknownPath); await t.api.post(\`\${prefix}/move\`); });`)).toEqual([]);
  });
});

describe('matchesTemplate', () => {
  it('matches a parameter with any non-empty segment and a literal only with itself', () => {
    expect(matchesTemplate(`/spaces/${WILDCARD}/links`, '/spaces/{spaceId}/links')).toBe(true);
    expect(matchesTemplate('/spaces/abc/links', '/spaces/{spaceId}/links')).toBe(true);
    expect(matchesTemplate(`/spaces/${WILDCARD}/${WILDCARD}`, '/spaces/{spaceId}/links')).toBe(false);
    expect(matchesTemplate(`/spaces/${WILDCARD}`, '/spaces/{spaceId}/links')).toBe(false);
    expect(matchesTemplate('/spaces//links', '/spaces/{spaceId}/links')).toBe(false);
  });
});
