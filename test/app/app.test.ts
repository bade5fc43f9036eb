/**
 * The example frontend (examples/web) in a real browser: `npm run app`'s stack (scripts/app.mjs:
 * the app built when needed, the embedded upstream, a gateway with the app's manifest and
 * --persisted-only) on free loopback ports, driven in headless Chromium (Debian's, at
 * /usr/bin/chromium or CHROMIUM_PATH) by playwright-core. Each screen is checked against what the
 * REST API returns for the demo admin; every request the page makes is recorded and checked
 * (persisted ids only, nothing leaves the machine), and so are console errors. Screenshots of each
 * screen go to test-output/app/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHOTS = join(ROOT, 'test-output', 'app');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// The first run installs and builds the app (and the gateway's dist/): minutes on a loaded machine.
const FIRST_START_MS = 300_000;
const STEP_MS = 60_000;

interface Stack {
  app: string;
  graphql: string;
  rest: string;
  token: string;
}

interface Seen {
  method: string;
  url: string;
  body: string | null;
}

let child: ChildProcess;
let output = '';
let stack: Stack;
let browser: Browser;
let page: Page;
const seen: Seen[] = [];
const consoleErrors: string[] = [];

/** Starts `node scripts/app.mjs` on free ports and reads its `App:`, `GraphQL:`, `REST:` and `Demo token:` lines. */
function startApp(): Promise<Stack> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SETTINGS.some((s) => s.env === k)));
  child = spawn(process.execPath, ['scripts/app.mjs', '--port', '0', '--gateway-port', '0', '--upstream-port', '0', '--db', ':memory:'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const line = (re: RegExp) =>
    output
      .split('\n')
      .map((l) => l.match(re)?.[1])
      .find(Boolean);
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      const app = line(/^App: (\S+)/);
      if (app) resolve({ app, graphql: line(/^GraphQL: (\S+)/)!, rest: line(/^REST: (\S+)/)!, token: line(/^Demo token: (\S+)/)! });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => reject(new Error(`npm run app exited (${code}):\n${output}`)));
  });
}

async function rest<T = any>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`${stack.rest}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
  });
  expect(res.status, path).toBeLessThan(300);
  return (await res.json()) as T;
}

/** Every item of a REST list, following `next`. */
async function restList<T = any>(path: string): Promise<T[]> {
  const items: T[] = [];
  let page: string | undefined;
  do {
    const list = await rest<{ items: T[]; next?: { page: string } }>(
      `${path}${path.includes('?') ? '&' : '?'}limit=2${page ? `&page=${page}` : ''}`,
    );
    items.push(...list.items);
    page = list.next?.page;
  } while (page);
  return items;
}

/** A GET to the app server with node:http: the path as written (no `..` resolved) and any Host header. */
function raw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(stack.app);
  return new Promise((resolve, reject) =>
    get({ hostname: hostname === 'localhost' ? '127.0.0.1' : hostname, port, path, headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk)).on('end', () => resolve({ status: res.statusCode!, body }));
    }).on('error', reject),
  );
}

const texts = async (testId: string, selector: string) =>
  (await page.getByTestId(testId).locator(selector).allTextContents()).map((t) => t.trim());
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
const graphqlRequests = () => seen.filter((r) => new URL(r.url).pathname.startsWith('/graphql'));

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  stack = await startApp();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  page.setDefaultTimeout(STEP_MS);
  page.on('request', (r) => seen.push({ method: r.method(), url: r.url(), body: r.postData() }));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(e.message));
}, FIRST_START_MS);

afterAll(async () => {
  await browser?.close();
  child?.kill('SIGTERM');
});

describe('the example app (npm run app) in Chromium', { timeout: STEP_MS }, () => {
  let org: { id: string; title: string };

  it('is signed in as the demo admin and lists the organizations REST returns', async () => {
    await page.goto(stack.app);
    const user = await rest<{ displayName: string }>('/user');
    await expect.poll(() => page.getByTestId('viewer').textContent()).toContain(user.displayName);
    const orgs = await restList<{ id: string; title: string }>('/orgs');
    await page.getByTestId('organizations').locator('a').first().waitFor();
    expect(await texts('organizations', 'a')).toEqual(orgs.map((o) => o.title));
    org = orgs[0];
    await shot('1-organizations');
  });

  it('gives the demo token only to a page opened on this machine (not through a proxy, not another host)', async () => {
    const session = async (headers: Record<string, string>) =>
      (JSON.parse((await raw('/session.json', headers)).body) as { token: string | null }).token;
    expect(await session({})).toBe(stack.token);
    expect(await session({ 'x-forwarded-for': '203.0.113.7' })).toBeNull();
    expect(await session({ via: '1.1 proxy' })).toBeNull();
    expect(await session({ host: 'docs.example.com' })).toBeNull();
    expect(await session({ 'sec-fetch-site': 'cross-site' })).toBeNull();
  });

  it("runs nothing in another site's frame, which /session.json would give the demo token", async () => {
    // Another site (another loopback port: another origin) the visitor has open in the same browser.
    const site = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<iframe src="${stack.app}"></iframe>`));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const other = await browser.newPage();
    const asked: string[] = [];
    other.on('request', (r) => void (r.url().startsWith(stack.app) && asked.push(new URL(r.url()).pathname)));
    try {
      // `load` waits for the frame's, and so for its scripts and styles had it been shown.
      await other.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`, { waitUntil: 'load' });
      // Before: the frame ran the app (/assets/index-….js and .css), whose fetch of /session.json
      // is same-origin: the demo admin's token, a click from posting as admin under another site's
      // overlay. Now the page's frame-ancestors 'none' leaves the frame empty.
      expect(asked).toEqual(['/']);
    } finally {
      await other.close();
      site.close();
    }
  });

  it('serves the built app and nothing else from its folder', async () => {
    expect((await raw('/')).body).toContain('<div id="root">');
    for (const path of ['/../package.json', '/%2e%2e/package.json', '/assets/../../relay.config.json', '/%E0%A4%A', '/.built'])
      expect((await raw(path)).status, path).toBe(404);
  });

  it("pages through an organization's spaces with Load more, to the end", async () => {
    const spaces = await restList<{ title: string }>(`/orgs/${org.id}/spaces`);
    expect(spaces.length).toBeGreaterThan(4);
    await page.getByRole('link', { name: org.title }).click();
    await page.getByTestId('spaces').locator('a').first().waitFor();
    expect(await page.getByTestId('spaces').locator('li').count()).toBe(2);
    let pages = 1;
    while (await page.getByRole('button', { name: 'Load more' }).isVisible()) {
      const before = await page.getByTestId('spaces').locator('li').count();
      await page.getByRole('button', { name: 'Load more' }).click();
      await expect.poll(() => page.getByTestId('spaces').locator('li').count()).toBeGreaterThan(before);
      pages++;
    }
    expect(pages).toBe(Math.ceil(spaces.length / 2));
    expect(await texts('spaces', 'a')).toEqual(spaces.map((s) => expect.stringContaining(s.title)));
    await shot('2-organization');
  });

  it('streams a growing answer in the Ask box and shows its sources', async () => {
    const question = 'How do we plan?';
    const expected = await rest<{ answer?: { answer: { markdown: string }; sources: Array<{ space: string }> } }>(
      `/orgs/${org.id}/ask?format=markdown`,
      { method: 'POST', body: JSON.stringify({ query: question }) },
    );
    expect(expected.answer?.sources.length).toBeGreaterThan(0);
    const sourceTitles = await Promise.all(
      [...new Set(expected.answer!.sources.map((s) => s.space))].map(async (id) => (await rest<{ title: string }>(`/spaces/${id}`)).title),
    );
    // Every length the answer's text takes in the page, as it changes.
    await page.evaluate(() => {
      const lengths: number[] = ((window as any).answerLengths = []);
      new MutationObserver(() => {
        const text = document.querySelector('[data-testid=answer] .body')?.textContent ?? '';
        if (text !== 'Thinking…' && lengths.at(-1) !== text.length) lengths.push(text.length);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.getByLabel('Question').fill(question);
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('[data-testid=answer][data-state=done]').waitFor();
    const lengths = await page.evaluate(() => (window as any).answerLengths as number[]);
    expect(lengths.length).toBeGreaterThan(1);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    expect(await page.locator('[data-testid=answer] .body').textContent()).toBe(expected.answer!.answer.markdown);
    expect(await texts('sources', 'a')).toEqual(expect.arrayContaining(sourceTitles));
    await shot('3-ask');
  });

  it('says so when Load more fails (the gateway down), and loads on the next click', async () => {
    const [first] = await restList<{ id: string }>('/orgs');
    const other = await browser.newPage();
    try {
      await other.goto(`${stack.app}#/orgs/${encodeURIComponent(first.id)}`);
      const spaces = other.getByTestId('spaces').locator('a');
      await spaces.first().waitFor();
      const shown = await spaces.count();
      // The app server's own answer while the gateway is down.
      const down = JSON.stringify({ errors: [{ message: 'The gateway is not reachable', extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] });
      const gateway = (url: URL) => url.pathname === '/graphql';
      await other.route(gateway, (route) => route.fulfill({ status: 502, contentType: 'application/json', body: down }));
      await other.getByRole('button', { name: 'Load more' }).click();
      // Before: nothing said it; the button came back as if the click had not happened.
      await other.getByRole('alert').waitFor();
      expect(await other.getByRole('alert').textContent()).toContain('The gateway is not reachable');
      expect(await spaces.count()).toBe(shown);
      await other.unroute(gateway);
      await other.getByRole('button', { name: 'Load more' }).click();
      await expect.poll(() => spaces.count(), { timeout: STEP_MS / 2 }).toBeGreaterThan(shown);
      expect(await other.getByRole('alert').count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('shows who is signed in again, once the gateway is back, on the next screen', async () => {
    const other = await browser.newPage();
    try {
      const down = JSON.stringify({ errors: [{ message: 'The gateway is not reachable', extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] });
      const gateway = (url: URL) => url.pathname === '/graphql';
      await other.route(gateway, (route) => route.fulfill({ status: 502, contentType: 'application/json', body: down }));
      await other.goto(stack.app);
      // The header's and the screen's errors.
      await expect.poll(() => other.getByRole('alert').count(), { timeout: STEP_MS / 2 }).toBe(2);
      await other.unroute(gateway);
      await other.evaluate(() => (location.hash = '#/spaces/none'));
      await other.getByText('No such space.').waitFor();
      // Before: the header's error stayed, keyed by the token only, until a reload.
      await expect.poll(() => other.getByTestId('viewer').textContent()).toContain('Signed in as');
      expect(await other.getByRole('alert').count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it("shows a space's change requests by status", async () => {
    const spaces = await restList<{ id: string; title: string }>(`/orgs/${org.id}/spaces`);
    const counts = await Promise.all(spaces.map(async (s) => (await restList(`/spaces/${s.id}/change-requests?status=merged`)).length));
    const space = spaces[counts.findIndex((n) => n > 0)];
    await page.getByRole('link', { name: space.title }).click();
    for (const status of ['open', 'draft', 'merged', 'archived']) {
      const list = await restList<{ number: number; subject: string }>(`/spaces/${space.id}/change-requests?status=${status}`);
      if (status !== 'open') await page.getByRole('tab', { name: status }).click();
      await expect.poll(() => page.getByRole('tab', { name: status }).getAttribute('aria-selected')).toBe('true');
      await expect.poll(() => texts('change-requests', 'a')).toEqual(list.map((cr) => `#${cr.number} ${cr.subject}`));
      if (status === 'merged') await shot('4-space');
    }
    await page.getByRole('tab', { name: 'open' }).click();
    await expect.poll(() => page.getByRole('tab', { name: 'open' }).getAttribute('aria-selected')).toBe('true');
  });

  it("shows a change request's comments and replies; a new comment shows at once, and after a reload", async () => {
    const spaceId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    const [cr] = await restList<{ id: string; number: number; subject: string }>(`/spaces/${spaceId}/change-requests?status=open`);
    const path = `/spaces/${spaceId}/change-requests/${cr.id}/comments`;
    const comments = await restList<{ id: string; body: { markdown: string } }>(`${path}?format=markdown`);
    const replies = (
      await Promise.all(comments.map((c) => restList<{ body: { markdown: string } }>(`${path}/${c.id}/replies?format=markdown`)))
    ).flat();
    expect(replies.length).toBeGreaterThan(0);
    await page.getByRole('link', { name: `#${cr.number} ${cr.subject}` }).click();
    await page.getByTestId('comments').locator('.comment').first().waitFor();
    expect(await texts('comments', '.comment > .body')).toEqual(comments.map((c) => c.body.markdown.trim()));
    expect(await texts('comments', '.reply .body')).toEqual(replies.map((r) => r.body.markdown.trim()));

    const text = `Reviewed in the browser test (${Date.now()})`;
    const before = graphqlRequests().length;
    await page.getByLabel('New comment').fill(text);
    await page.getByRole('button', { name: 'Add a comment' }).click();
    // From the mutation's payload: at the top of the list (newest first), with no other request.
    await expect.poll(() => texts('comments', '.comment > .body')).toEqual([text, ...comments.map((c) => c.body.markdown.trim())]);
    const after = graphqlRequests().slice(before);
    expect(after.map((r) => r.method)).toEqual(['POST']);
    await shot('5-change-request');
    expect((await restList<{ body: { markdown: string } }>(`${path}?format=markdown`))[0].body.markdown.trim()).toBe(text);

    await page.reload();
    await page.getByTestId('comments').locator('.comment').first().waitFor();
    expect((await texts('comments', '.comment > .body'))[0]).toBe(text);
  });

  it('takes another token in the header, and goes back to the demo admin', async () => {
    const readToken = output.match(/^Demo token \(read\): (\S+)/m)![1];
    const reader = await (await fetch(`${stack.rest}/user`, { headers: { authorization: `Bearer ${readToken}` } })).json();
    await page.getByLabel('API token').fill(readToken);
    await page.getByRole('button', { name: 'Use', exact: true }).click();
    await expect.poll(() => page.getByTestId('viewer').textContent()).toContain(reader.displayName);
    await page.getByRole('button', { name: 'Demo' }).click();
    const admin = await rest<{ displayName: string }>('/user');
    await expect.poll(() => page.getByTestId('viewer').textContent()).toContain(admin.displayName);
  });

  it('shows a screen, not a blank page, for a link whose hash holds a malformed escape', async () => {
    const other = await browser.newPage();
    const errors: string[] = [];
    other.on('pageerror', (e) => errors.push(e.message));
    try {
      for (const hash of ['#/orgs/%E0%A4%A', '#/spaces/%', '#/spaces/x/change-requests/%ZZ']) {
        await other.goto('about:blank');
        await other.goto(`${stack.app}${hash}`);
        // Before: decodeURIComponent's "URI malformed", thrown outside any error boundary: an empty page.
        await expect
          .poll(() => other.evaluate(() => document.querySelector('main')?.textContent ?? 'no main'), { timeout: STEP_MS / 2 })
          .toMatch(/^No such (organization|space|change request)\.$/);
        await expect.poll(() => other.getByTestId('viewer').textContent()).toContain('Signed in as');
      }
      expect(errors).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('runs where the browser denies the page its storage (site data blocked), and still takes another token', async () => {
    const other = await browser.newPage();
    const errors: string[] = [];
    other.on('pageerror', (e) => errors.push(e.message));
    // What Chromium does when site data is blocked (and in a sandboxed frame): the getter throws.
    await other.addInitScript(() =>
      Object.defineProperty(window, 'sessionStorage', {
        get() {
          throw new DOMException(
            "Failed to read the 'sessionStorage' property from 'Window': Access is denied for this document.",
            'SecurityError',
          );
        },
      }),
    );
    try {
      await other.goto(stack.app);
      // Before: the SecurityError, thrown in App's first render outside any error boundary: an empty page.
      await expect
        .poll(
          () =>
            other.evaluate(() => document.querySelector('[data-testid=viewer]')?.textContent ?? `no viewer: ${document.body.innerText}`),
          {
            timeout: STEP_MS / 2,
          },
        )
        .toContain((await rest<{ displayName: string }>('/user')).displayName);
      const readToken = output.match(/^Demo token \(read\): (\S+)/m)![1];
      const reader = await (await fetch(`${stack.rest}/user`, { headers: { authorization: `Bearer ${readToken}` } })).json();
      await other.getByLabel('API token').fill(readToken);
      await other.getByRole('button', { name: 'Use', exact: true }).click();
      await expect.poll(() => other.getByTestId('viewer').textContent()).toContain(reader.displayName);
      expect(errors).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("keeps anyone's long words (a title, a subject, a comment) within the window", async () => {
    const orgs = await restList<{ id: string }>('/orgs');
    const space = await rest<{ id: string }>(`/orgs/${orgs.at(-1)!.id}/spaces`, {
      method: 'POST',
      body: JSON.stringify({ title: 'W'.repeat(50) }),
    });
    const changeRequest = await rest<{ id: string }>(`/spaces/${space.id}/change-requests`, {
      method: 'POST',
      body: JSON.stringify({ subject: 'S'.repeat(100) }),
    });
    await rest(`/spaces/${space.id}/change-requests/${changeRequest.id}/comments`, {
      method: 'POST',
      body: JSON.stringify({ body: { markdown: 'C'.repeat(20_000) } }),
    });
    await page.goto(`${stack.app}#/spaces/${space.id}/change-requests/${changeRequest.id}`);
    await page.getByTestId('comments').locator('.comment').first().waitFor();
    // Before: 223,541 px wide in a 1,200 px window (the comment's one word), the subject cut at the edge.
    expect(await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth])).toEqual([1200, 1200]);
    await page.goto(`${stack.app}#/spaces/${space.id}`);
    // The change request is a draft: the space's Open tab lists none, under the long title.
    await page.getByText('No open change requests.').waitFor();
    expect(await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth])).toEqual([1200, 1200]);
  });

  it('sent only persisted documents, all to this machine, and logged no error', async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'examples', 'web', 'persisted-documents.json'), 'utf8')) as Record<string, string>;
    const origin = new URL(stack.app).origin;
    expect(seen.filter((r) => new URL(r.url).origin !== origin)).toEqual([]);
    const ids = new Set<string>();
    for (const r of graphqlRequests()) {
      const url = new URL(r.url);
      if (url.pathname === '/graphql/stream') {
        const body = JSON.parse(r.body!);
        expect(body.query).toBe('');
        ids.add(body.extensions.persistedQuery.sha256Hash);
      } else if (r.method === 'GET') {
        expect(url.searchParams.has('query')).toBe(false);
        ids.add(url.searchParams.get('documentId')!);
      } else {
        const body = JSON.parse(r.body!);
        expect(body).not.toHaveProperty('query');
        ids.add(body.documentId);
      }
    }
    // Queries, pagination and refetch queries, the mutation and the subscription.
    expect(ids.size).toBeGreaterThan(8);
    for (const id of ids) expect(manifest).toHaveProperty([id]);
    expect(consoleErrors).toEqual([]);
  });

  it('runs on a gateway that refuses a raw query', async () => {
    const res = await fetch(stack.graphql, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.token}` },
      body: JSON.stringify({ query: '{ viewer { displayName } }' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: Array<{ message: string }> }).errors[0].message).toMatch(/Only persisted operations/);
  });
});

describe('npm run app stopped by Ctrl-C', { timeout: STEP_MS }, () => {
  it('drains the gateway: a request in flight is answered and the app exits 0', async () => {
    // An upstream that holds the caller's read until released (the readiness probe, without a token: 401 at once).
    let arrived!: () => void;
    const held = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const json = { 'content-type': 'application/json' };
    const upstream = createServer((req, res) => {
      if (!req.headers.authorization) return void res.writeHead(401, json).end('{"error":{"code":401,"message":"A token is required"}}');
      arrived();
      void released.then(() => res.writeHead(200, json).end('{"object":"user","id":"u1","displayName":"Held","email":"held@example.com"}'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SETTINGS.some((s) => s.env === k)));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
    // Its own process group, as a terminal's foreground job: Ctrl-C signals the whole group.
    const app = spawn(process.execPath, ['scripts/app.mjs', '--port', '0', '--gateway-port', '0', '--upstream-url', upstreamUrl], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    const seenLine = (re: RegExp) =>
      new Promise<string>((resolve) => {
        const check = () => {
          const match = out.match(re);
          if (match) resolve(match[1]);
        };
        app.stdout!.on('data', check);
        app.stderr!.on('data', check);
        check();
      });
    app.stdout!.on('data', (chunk) => (out += chunk));
    app.stderr!.on('data', (chunk) => (out += chunk));
    const exited = new Promise<number | null>((resolve) => app.on('exit', resolve));
    try {
      const appUrl = await seenLine(/^App: (\S+)/m);
      const manifest = JSON.parse(readFileSync(join(ROOT, 'examples', 'web', 'persisted-documents.json'), 'utf8')) as Record<
        string,
        string
      >;
      const documentId = Object.keys(manifest).find((id) => manifest[id].startsWith('query HeaderQuery'))!;
      const answer = fetch(`${appUrl}graphql?documentId=${documentId}`, { headers: { authorization: 'Bearer held-token' } }).then(
        async (res) => ({ status: res.status, body: await res.text() }),
        (error: unknown) => ({ status: 0, body: String(error) }),
      );
      await held;
      process.kill(-app.pid!, 'SIGINT');
      await seenLine(/(draining) open requests/);
      release();
      // Before: the gateway got the Ctrl-C twice (the terminal's, then the app's), exited at once
      // (1) and the request was cut; the app server closed its connections at the signal too.
      expect(await answer).toMatchObject({ status: 200, body: expect.stringContaining('"displayName":"Held"') });
      expect(await exited).toBe(0);
    } finally {
      if (app.exitCode === null) app.kill('SIGTERM');
      upstream.close();
    }
  });
});
