import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { exampleQuery } from '../../src/gateway/example.js';
import { buildGraphiqlAssets, readGraphiqlAssets, writeGraphiqlAssets } from '../../src/gateway/lib/graphiqlAssets.js';
import { renderGraphiQL } from '../../src/gateway/lib/graphiqlOptions.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { sendRaw } from '../helpers/httpStack.js';
import { PROXY_HEADER_NAMES } from '../helpers/proxyHeaders.js';

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
    for (const headers of <Record<string, string>[]>[
      { host: `localhost:${port}` },
      { host: `[::1]:${port}` },
      { 'sec-fetch-site': 'same-origin' },
      { origin: new URL(url).origin },
    ])
      expect([headers, (await page(headers)).includes(`Bearer ${TOKEN}`)]).toEqual([headers, true]);
  });

  it('may not be framed by another site, sniffed or kept (it may hold the demo token)', async () => {
    const res = await request(url, { headers: { accept: 'text/html' } });
    await res.body.text();
    expect(res.headers).toMatchObject({
      'content-security-policy': "frame-ancestors 'none'",
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
  });

  it('is served only when the client prefers HTML to JSON (Accept q-values), JSON otherwise', async () => {
    const typename = `${url}?query=${encodeURIComponent('{ __typename }')}`;
    const answer = async (accept: string) => {
      const res = await request(typename, { headers: { accept, 'x-graphql-yoga-csrf': '1' } });
      const body = await res.body.text();
      return `${res.statusCode} ${String(res.headers['content-type']).split(';')[0]}${body.includes('<!doctype html>') ? ' page' : ''}`;
    };
    const json = '200 application/json';
    // A client that asks for JSON first got the page.
    expect(await answer('text/html;q=0.1, application/json')).toBe(json);
    expect(await answer('application/json, text/html;q=0.5')).toBe(json);
    expect(await answer('text/html;q=0, */*')).toBe(json);
    expect(await answer('application/graphql-response+json, text/html;q=0.9')).toBe('200 application/graphql-response+json');
    expect(await answer('*/*')).toBe(json);
    // Browsers (Chrome's and Firefox's navigation headers), and HTML preferred or equal.
    const page = '200 text/html page';
    expect(await answer('text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8')).toBe(page);
    expect(await answer('text/html')).toBe(page);
    expect(await answer('application/json;q=0.5, text/html')).toBe(page);
    expect(await answer('text/html, application/json')).toBe(page);
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
      expect([headers, html.includes(TOKEN), html.includes(JSON.stringify(exampleQuery('org-1')).slice(1, 60))]).toEqual([
        headers,
        false,
        true,
      ]);
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
      expect([headers, html.includes(TOKEN), html.includes(JSON.stringify(exampleQuery('org-1')).slice(1, 60))]).toEqual([
        headers,
        false,
        true,
      ]);
    }
  });

  it('never embeds the token for a request carrying a client-address header of other proxies and CDNs', async () => {
    const port = new URL(url).port;
    for (const name of PROXY_HEADER_NAMES) {
      const html = await page({ host: `localhost:${port}`, [name]: '203.0.113.7' });
      expect([name, html.includes(TOKEN), html.includes(JSON.stringify(exampleQuery('org-1')).slice(1, 60))]).toEqual([name, false, true]);
    }
  });

  it("never embeds the token over HTTP/1.0: nginx's default proxy_pass (Host 127.0.0.1:port, no proxy header)", async () => {
    const port = Number(new URL(url).port);
    const get = (version: string) =>
      sendRaw(port, `GET /graphql HTTP/${version}\r\nHost: 127.0.0.1:${port}\r\nAccept: text/html\r\nConnection: close\r\n\r\n`);
    const [old, current] = await Promise.all([get('1.0'), get('1.1')]);
    expect([old.match(/^HTTP\/1\.1 (\d+)/)?.[1], old.includes(TOKEN), old.includes('<div id="root">')]).toEqual(['200', false, true]);
    // The same request over HTTP/1.1, as a browser sends it, gets the token.
    expect([current.match(/^HTTP\/1\.1 (\d+)/)?.[1], current.includes(`Bearer ${TOKEN}`)]).toEqual(['200', true]);
  });

  it('the example query runs against the demo-like data without errors', async () => {
    const res = await t.gql(exampleQuery(t.world.orgId));
    expect(res.errors).toBeUndefined();
    expect(res.data?.organization.title).toBe('Acme');
  });
});

/** GET `path` of the gateway as undici sends it (no decompression): status, headers and the bytes on the wire. */
async function raw(path: string, headers: Record<string, string> = {}) {
  const res = await request(new URL(path, url), { headers });
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
}

/** The page's assets: its icon, style sheet and script, by their paths in the page. */
async function assets() {
  const html = await page();
  return [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]);
}

describe('GraphiQL assets', () => {
  it("are made on the first visit, not at start, read from dist/ or built by a worker: the renderer never loads in the gateway's heap (a fresh gateway process)", async () => {
    const script = fileURLToPath(new URL('./fixtures/graphiqlLoad.mts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', script], { timeout: 60_000 });
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(seen.modules).toBeGreaterThan(100);
    expect(seen.atStart).toBe(0);
    // The renderer runs in a worker thread of its own (graphiqlAssets.ts), never in the gateway's.
    expect(seen.afterVisit).toBe(0);
    expect(seen.assets).toBeGreaterThan(1_000_000);
    // Loaded, its source (9 MB, two-byte) and strings take over 30 MB of heap (Node 24 kept them
    // even once dropped from the module cache): they must not stay.
    expect(seen.heapGrowth).toBeLessThan(8_000_000);
  }, 90_000);

  it('are cut, encoded, hashed and compressed in the worker too: no 9 MB string becomes bytes on the event loop', async () => {
    const from = vi.spyOn(Buffer, 'from');
    try {
      const assets = await buildGraphiqlAssets();
      const lengths = from.mock.calls.map(([value]) => (typeof value === 'string' ? value.length : 0));
      expect(lengths.filter((length) => length > 100_000)).toEqual([]);
      for (const asset of [assets.script, assets.style, assets.icon]) {
        expect(createHash('sha256').update(asset.identity).digest('base64url').slice(0, 16)).toBe(asset.hash);
        expect(gunzipSync(asset.gzip).equals(asset.identity)).toBe(true);
        expect(brotliDecompressSync(asset.br).equals(asset.identity)).toBe(true);
      }
      expect(assets.script.identity.length).toBeGreaterThan(1_000_000);
      expect(assets.icon.type).toMatch(/^image\//);
    } finally {
      from.mockRestore();
    }
  });

  it('`npm run build` writes them to dist/ once; a process reads them back, the same, when made from its renderer and whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docs-graph-graphiql-'));
    try {
      await writeGraphiqlAssets(dir);
      const [read, built] = await Promise.all([readGraphiqlAssets(dir), buildGraphiqlAssets()]);
      expect(read).toBeDefined();
      for (const name of ['script', 'style', 'icon'] as const) {
        const { identity, gzip, br, ...rest } = read![name];
        const { identity: i, gzip: g, br: b, ...expected } = built[name];
        expect(rest).toEqual(expected);
        expect([identity.equals(i), brotliDecompressSync(br).equals(i), gunzipSync(gzip).equals(i)]).toEqual([true, true, true]);
      }
      expect(read!.start('{}')).toBe(built.start('{}'));
      // Made from another renderer (or another build of this module): built instead.
      const manifest = join(dir, 'manifest.json');
      const text = readFileSync(manifest, 'utf8');
      writeFileSync(manifest, text.replace(/"key": "[^"]+"/, '"key": "0.0.0:other"'));
      expect(await readGraphiqlAssets(dir)).toBeUndefined();
      // A hash or a type the build would not write (they go into the page and a header): built instead.
      writeFileSync(manifest, text.replace(/"hash": "[^"]+"/, '"hash": "x\\"><script>"'));
      expect(await readGraphiqlAssets(dir)).toBeUndefined();
      writeFileSync(manifest, text.replace(/"type": "[^"]+"/, '"type": "text/html\\r\\nx: y"'));
      expect(await readGraphiqlAssets(dir)).toBeUndefined();
      // A file cut short (a disk full, a copy interrupted): built instead, never served as immutable.
      writeFileSync(manifest, text);
      expect(await readGraphiqlAssets(dir)).toBeDefined();
      writeFileSync(join(dir, 'graphiql.js.br'), built.script.br.subarray(0, 1000));
      expect(await readGraphiqlAssets(dir)).toBeUndefined();
      expect(await readGraphiqlAssets(join(dir, 'missing'))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cost under 3 MB on the wire with br or gzip, each asset precompressed, immutable and validated (304)', async () => {
    const paths = await assets();
    expect(paths.map((p) => p.replace(/\.[\w-]{16}\./, '.<hash>.'))).toEqual([
      '/graphql/graphiql/favicon.<hash>.ico',
      '/graphql/graphiql/graphiql.<hash>.css',
      '/graphql/graphiql/graphiql.<hash>.js',
    ]);
    for (const [encoding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      let wire = (await raw('/graphql', { accept: 'text/html', 'accept-encoding': encoding })).body.length;
      for (const path of paths) {
        const plain = await raw(path);
        const got = await raw(path, { 'accept-encoding': `${encoding}, deflate` });
        expect([path, got.status, got.headers['content-encoding'], got.headers['cache-control'], got.headers.vary]).toEqual([
          path,
          200,
          encoding,
          'public, max-age=31536000, immutable',
          'Accept-Encoding',
        ]);
        expect(Number(got.headers['content-length'])).toBe(got.body.length);
        expect(decode(got.body).equals(plain.body)).toBe(true);
        expect(plain.headers['content-encoding']).toBeUndefined();
        const etag = String(got.headers.etag);
        expect(etag).toMatch(/^"[\w-]+"$/);
        const again = await raw(path, { 'accept-encoding': encoding, 'if-none-match': etag });
        expect([again.status, again.body.length, again.headers.etag]).toEqual([304, 0, etag]);
        // `*`: any current copy (before: the whole asset again).
        expect((await raw(path, { 'accept-encoding': encoding, 'if-none-match': '*' })).status).toBe(304);
        wire += got.body.length;
      }
      expect([encoding, wire < 3_000_000]).toEqual([encoding, true]);
    }
  });

  it('unknown asset names answer 404; the options of the page cannot close its script', async () => {
    expect((await raw('/graphql/graphiql/graphiql.0000000000000000.js')).status).toBe(404);
    const html = await renderGraphiQL({ title: 'a</title><b>', defaultQuery: '# </script><script>alert(1)</script>' });
    expect(html).not.toContain('</script><script>alert');
    expect(html).not.toContain('</title><b>');
    expect(html.length).toBeLessThan(10_000);
  });

  it("survives simultaneous first visits and clients that never read, under npm start's heap flags (a fresh gateway process)", async () => {
    const script = fileURLToPath(new URL('./fixtures/graphiqlFlood.mts', import.meta.url));
    const flags = [...npmStartNodeFlags(), '--expose-gc', '--import', 'tsx', script];
    const { stdout } = await promisify(execFile)(process.execPath, flags, { timeout: 120_000 });
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(seen).toMatchObject({ pages: 5, assets: 3, query: { data: { __typename: 'Query' } } });
  }, 150_000);
});

/** The node flags of package.json's `start` script (`node <flags> scripts/start.mjs start`). */
function npmStartNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as {
    scripts: { start: string };
  };
  const words = pkg.scripts.start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('scripts/start.mjs'));
}
