/**
 * GraphiQL in a real headless Chromium (playwright-core driving the system's /usr/bin/chromium, no
 * browser download): the page renders from the gateway alone (no request leaves it), runs the
 * example query with the demo token, its assets compressed.
 * Skipped where no Chromium is installed.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { exampleQuery } from '../../src/gateway/example.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

describe.skipIf(!existsSync(CHROMIUM))('GraphiQL in Chromium', () => {
  let upstream: TestUpstream;
  let gateway: Gateway;
  let url: string;
  let browser: Browser;
  beforeAll(async () => {
    upstream = await startUpstream();
    const { world } = upstream;
    gateway = buildGateway({ upstreamUrl: upstream.url, graphiql: { token: world.users.admin.token, query: exampleQuery(world.orgId) } });
    url = await gateway.start();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await upstream?.stop();
  });

  it('renders offline from the gateway, runs the example query with the demo token', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // Each response's encoding is read as it comes, and all are awaited before the page closes (a
    // read still pending when it closed was an unhandled rejection).
    const pending: Promise<{ url: string; encoding?: string }>[] = [];
    page.on('response', (response) => {
      const url = response.url();
      pending.push(
        response.headerValue('content-encoding').then(
          (encoding) => ({ url, encoding: encoding ?? undefined }),
          () => ({ url, encoding: 'unreadable' }),
        ),
      );
    });
    await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
    const run = page.locator('.graphiql-execute-button');
    await run.waitFor({ timeout: 60_000 });
    await run.click();
    await page.getByText('"Acme"').first().waitFor({ timeout: 60_000 });
    const origin = new URL(url).origin;
    const requests = await Promise.all(pending);
    const elsewhere = requests.filter((r) => !r.url.startsWith(origin) && !/^(blob|data):/.test(r.url));
    expect(elsewhere).toEqual([]);
    const assets = requests.filter((r) => r.url.includes('/graphql/graphiql/'));
    expect(assets.map((r) => r.encoding).sort()).toEqual(['br', 'br', 'br']);
    await context.close();
  }, 120_000);
});
