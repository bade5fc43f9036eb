import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleQuery } from '../../src/gateway/example.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

const TOKEN = 'demo-token-123';
let t: TestStack;
let url: string;
beforeAll(async () => {
  t = await startStack({ graphiql: { token: TOKEN, query: exampleQuery('org-1') } });
  url = await t.gateway.start();
});
afterAll(() => t.stop());

/** GraphiQL as a browser asks for it, over real HTTP, with a `Host` and more headers of our choice (fetch would drop `Host`). */
async function page(headers: Record<string, string> = {}) {
  const res = await request(url, { headers: { accept: 'text/html', ...headers } });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/text\/html/);
  return res.body.text();
}

describe('GraphiQL', () => {
  it('is served at /graphql to browsers, self-contained, pre-filled with the demo token and the example query', async () => {
    const html = await page();
    // No asset from a CDN: GraphiQL must work on a machine without internet access.
    expect(html).not.toMatch(/<script[^>]+src=["']?https?:/);
    expect(html).not.toMatch(/<link[^>]+href=["']?https?:[^>]+stylesheet|stylesheet[^>]+href=["']?https?:/);
    expect(html.includes(`Bearer ${TOKEN}`)).toBe(true);
    expect(html.includes(JSON.stringify(exampleQuery('org-1')).slice(1, 60))).toBe(true);
    const port = new URL(url).port;
    for (const headers of <Record<string, string>[]>[{ host: `localhost:${port}` }, { host: `[::1]:${port}` }, { 'sec-fetch-site': 'same-origin' }, { origin: new URL(url).origin }])
      expect([headers, (await page(headers)).includes(`Bearer ${TOKEN}`)]).toEqual([headers, true]);
  });

  it('never embeds the token for another Host (DNS rebinding) or a cross-site request; the example query stays', async () => {
    const port = new URL(url).port;
    for (const headers of <Record<string, string>[]>[
      { host: `evil.example:${port}` },
      { host: `127.0.0.1.nip.io:${port}` },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
    ]) {
      const html = await page(headers);
      expect([headers, html.includes(TOKEN), html.includes(JSON.stringify(exampleQuery('org-1')).slice(1, 60))]).toEqual([headers, false, true]);
    }
  });

  it('never embeds the token for a request that came through a proxy (X-Forwarded-*, Forwarded, Via)', async () => {
    const port = new URL(url).port;
    for (const headers of <Record<string, string>[]>[
      { 'x-forwarded-host': 'graph.example.com' },
      { 'x-forwarded-for': '203.0.113.7' },
      { 'x-forwarded-proto': 'https' },
      { forwarded: 'for=203.0.113.7;host=graph.example.com' },
      { via: '1.1 proxy.example' },
      { host: `localhost:${port}`, 'x-forwarded-host': `localhost:${port}` },
    ]) {
      const html = await page(headers);
      expect([headers, html.includes(TOKEN), html.includes(JSON.stringify(exampleQuery('org-1')).slice(1, 60))]).toEqual([headers, false, true]);
    }
  });

  it('the example query runs against the demo-like data without errors', async () => {
    const res = await t.gql(exampleQuery(t.world.orgId));
    expect(res.errors).toBeUndefined();
    expect(res.data?.organization.title).toBe('Acme');
  });
});

describe('GraphiQL assets', () => {
  it('load on the first visit, not at start (a fresh gateway process)', async () => {
    const script = fileURLToPath(new URL('./fixtures/graphiqlLoad.mts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { timeout: 60_000 });
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(seen.modules).toBeGreaterThan(100);
    expect(seen.atStart).toBe(0);
    expect(seen.afterVisit).toBeGreaterThan(0);
    expect(seen.page).toBeGreaterThan(1_000_000);
  }, 90_000);
});
