/**
 * relay-compiler (from npm) against the committed schema.graphql: the app fixture in
 * fixtures/relay (a query, a pagination fragment with @connection and @refetchable, persistConfig)
 * compiles with no change to the schema file, and the persisted documents it writes run on the
 * gateway by `documentId`.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_FILE } from '../../scripts/print-schema.js';
import { buildGateway } from '../../src/gateway/app.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/relay', import.meta.url));
const RELAY_COMPILER = join(createRequire(import.meta.url).resolve('relay-compiler/package.json'), '..', 'cli.js');

let app: string;
let compiled: { stdout: string; stderr: string };
let t: TestStack;

beforeAll(async () => {
  // A copy of the app, as a team has it: relay.config.json names the schema file and an existing `{}` manifest.
  app = mkdtempSync(join(tmpdir(), 'relay-app-'));
  cpSync(FIXTURE, app, { recursive: true });
  const config = JSON.parse(readFileSync(join(app, 'relay.config.json'), 'utf8'));
  writeFileSync(join(app, 'relay.config.json'), JSON.stringify({ ...config, schema: SCHEMA_FILE }));
  writeFileSync(join(app, 'persisted-queries.json'), '{}');
  compiled = await promisify(execFile)(process.execPath, [RELAY_COMPILER], { cwd: app, timeout: 120_000 });
  t = await startStack();
  for (const title of ['One', 'Two', 'Three']) await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title });
}, 180_000);
afterAll(async () => {
  await t?.stop();
  rmSync(app, { recursive: true, force: true });
});

describe('relay-compiler with schema.graphql', () => {
  it('compiles the app and writes its artifacts', () => {
    expect(compiled.stdout).toContain('Compilation completed');
    for (const artifact of ['SpacesPageQuery', 'SpacesPagePaginationQuery', 'SpacesPage_organization'])
      expect(existsSync(join(app, 'src', '__generated__', `${artifact}.graphql.ts`)), artifact).toBe(true);
  });

  it('writes the persisted-query manifest, and the gateway runs its documents by documentId', async () => {
    const manifest: Record<string, string> = JSON.parse(readFileSync(join(app, 'persisted-queries.json'), 'utf8'));
    const ids: Record<string, string> = Object.fromEntries(
      Object.entries(manifest).map(([id, text]) => [/^query (\w+)/.exec(text)?.[1], id]),
    );
    expect(Object.keys(ids).sort()).toEqual(['SpacesPagePaginationQuery', 'SpacesPageQuery']);
    expect(Object.values(ids).every((id) => /^[0-9a-f]{64}$/.test(id))).toBe(true);

    // A gateway that runs only these documents, as `--persisted-operations persisted-queries.json --persisted-only`.
    const gateway = buildGateway({ upstreamUrl: t.url, persistedOperations: { documents: manifest, only: true } });
    try {
      const run = async (documentId: string, variables: Record<string, unknown>) => {
        const res = await gateway.yoga.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${t.world.users.admin.token}` },
          body: JSON.stringify({ documentId, variables }),
        });
        const body = await res.json();
        expect(body.errors).toBeUndefined();
        return body.data;
      };
      const first = await run(ids.SpacesPageQuery, { organizationId: t.world.orgId });
      const page = first.organization.spaces;
      expect(page.edges).toHaveLength(2);
      expect(page.pageInfo.hasNextPage).toBe(true);
      // The pagination query Relay's usePaginationFragment sends: the fragment refetched by node(id).
      const next = await run(ids.SpacesPagePaginationQuery, { id: first.organization.id, count: 2, cursor: page.pageInfo.endCursor });
      expect(next.node.id).toBe(first.organization.id);
      const seen = page.edges.map((e: { node: { id: string } }) => e.node.id);
      expect(next.node.spaces.edges.length).toBeGreaterThan(0);
      for (const edge of next.node.spaces.edges) expect(seen).not.toContain(edge.node.id);
    } finally {
      await gateway.stop();
    }
  });
});
