import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UNREACHABLE } from '../../src/upstream/openapi/fetchSource.js';
import { TOO_LARGE } from '../../src/upstream/openapi/parseInChild.js';
import { buildUpstream } from '../../src/upstream/server.js';
import { VALID_OPENAPI_YAML } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

const FETCH_TIMEOUT_MS = 300;

/** A public-looking name that resolves to loopback (as DNS rebinding would): only this file's resolver knows it. */
const REBOUND_NAME = 'specs.rebound.dev';
vi.mock('node:dns', async (importOriginal) => {
  const dns = await importOriginal<typeof import('node:dns')>();
  const lookup = (hostname: string, options: object, callback: (...args: unknown[]) => void) =>
    hostname === REBOUND_NAME
      ? callback(null, [{ address: '127.0.0.1', family: 4 }])
      : dns.lookup(hostname, options as never, callback as never);
  return { ...dns, default: { ...dns, lookup }, lookup };
});

/** Origins of the test's own spec servers: the only loopback URLs the upstream may fetch. */
const allowed = new Set<string>();
const openApiFetchAllow = (url: URL) => allowed.has(url.origin);

const VALID_JSON = JSON.stringify({ swagger: '2.0', info: { title: 'Old', version: '1' }, paths: {} });

/** Found by fuzzing: a 300 KB YAML flow sequence whose syntax tree outgrew the process's 128 MB heap. */
const FLOW_150K = `[${'a,'.repeat(150_000)}]`;
/** 530 KB of YAML whose unique-keys check took the yaml library 11 s (it compares each key with every earlier one). */
const PATHS_40K = `openapi: 3.0.0\ninfo: {title: t}\npaths:\n${Array.from({ length: 40_000 }, (_, i) => `  /p${i}: {}`).join('\n')}`;
/** 9 MB of JSON (served from a URL: up to 10 MB), 3 million empty objects: 150 MB of heap once parsed. */
const LARGE_JSON = `{"a":[${'{},'.repeat(3_000_000)}{}]}`;

/** A disposable HTTP server on a loopback port. */
async function serve(handler: RequestListener): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  allowed.add(`http://127.0.0.1:${port}`);
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A server whose answers wait until `release()` is called. */
async function gatedServer(body: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let requests = 0;
  const s = await serve(async (_req, res) => {
    requests++;
    await gate;
    res.writeHead(200, { 'content-type': 'application/yaml' }).end(body);
  });
  return { ...s, release, requests: () => requests };
}

let t: TestUpstream;
let base: string;
let specsServer: Awaited<ReturnType<typeof serve>>;

beforeAll(async () => {
  t = await startUpstream({ openApiFetchTimeoutMs: FETCH_TIMEOUT_MS, openApiFetchAllow });
  base = `/orgs/${t.world.orgId}/openapi`;
  specsServer = await serve((req, res) => {
    if (req.url === '/pets.yaml') return void res.writeHead(200, { 'content-type': 'application/yaml' }).end(VALID_OPENAPI_YAML);
    if (req.url === '/redirect') return void res.writeHead(302, { location: '/pets.yaml' }).end();
    if (req.url?.startsWith('/redirect-to/')) return void res.writeHead(302, { location: decodeURIComponent(req.url.slice(13)) }).end();
    if (req.url === '/garbage') return void res.writeHead(200).end('<html>not a spec</html>');
    if (req.url === '/large.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(LARGE_JSON);
    res.writeHead(404).end('missing');
  });
});
afterAll(async () => {
  await t.stop();
  await specsServer.close();
});

/** Creates a spec and waits until its processing is over; returns the POST and the final GET. */
async function createAndProcess(slug: string, source: object) {
  const created = await t.api.post(base, { slug, source });
  expect(created.status).toBe(201);
  await t.upstream.idle();
  const done = await t.api.get(`${base}/${slug}`);
  return { created: created.body, done: done.body };
}

describe('OpenAPI specs: create and processing', () => {
  it('creates from text: pending at once, complete with a version after processing', async () => {
    const { created, done } = await createAndProcess('pets', { text: VALID_OPENAPI_YAML });
    expect(created).toMatchObject({ object: 'openapi-spec', slug: 'pets', processingState: 'pending' });
    expect(created.lastVersion).toBeUndefined();
    expect(created.sourceURL).toBeUndefined();
    expect(created.urls.location).toBe(`${t.url}${base}/pets`);
    expect(created.permissions.edit).toBe(true);
    expect(done.processingState).toBe('complete');
    expect(done.lastVersion).toEqual(expect.any(String));
    expect(Date.parse(done.lastProcessedAt)).toBeGreaterThan(Date.parse(done.createdAt));
    expect(done.lastProcessErrorCode).toBeUndefined();
  });

  it('accepts JSON (swagger 2.0) as well as YAML', async () => {
    const { done } = await createAndProcess('legacy', { text: VALID_JSON });
    expect(done).toMatchObject({ processingState: 'complete', lastVersion: expect.any(String) });
    expect(done.lastProcessErrorCode).toBeUndefined();
  });

  it('text that is not an OpenAPI document ends complete with PARSE_ERROR and no version', async () => {
    for (const [slug, text] of [
      ['broken-yaml', 'openapi: [3.0.0'],
      ['not-openapi', 'hello: world\n'],
      ['no-info', JSON.stringify({ openapi: '3.0.0', paths: {} })],
      ['no-paths', JSON.stringify({ openapi: '3.0.0', info: { title: 'x', version: '1' } })],
      ['repeated-key', 'openapi: 3.0.0\ninfo: {title: t}\npaths:\n  /a: {}\n  /a: {}\n'],
    ]) {
      const { done } = await createAndProcess(slug, { text });
      expect(done.processingState).toBe('complete');
      expect(done.lastProcessErrorCode).toBe('PARSE_ERROR');
      expect(done.lastVersion).toBeUndefined();
      expect(done.lastProcessedErrorCount).toBe(1);
    }
  });

  it('a successful PUT after a failure clears the error code and adds a version', async () => {
    const res = await t.api.put(`${base}/not-openapi`, { source: { text: VALID_OPENAPI_YAML } });
    expect(res.status).toBe(200);
    expect(res.body.processingState).toBe('pending');
    expect(res.body.lastProcessErrorCode).toBe('PARSE_ERROR');
    await t.upstream.idle();
    const done = (await t.api.get(`${base}/not-openapi`)).body;
    expect(done.processingState).toBe('complete');
    expect(done.lastProcessErrorCode).toBeUndefined();
    expect(done.lastVersion).toEqual(expect.any(String));
  });

  it('409 when the slug exists', async () => {
    const res = await t.api.post(base, { slug: 'pets', source: { text: VALID_OPENAPI_YAML } });
    expect(res.body.error).toEqual({ code: 409, message: 'slug: an OpenAPI spec with the slug pets already exists' });
  });
});

describe('OpenAPI specs: URL sources', () => {
  it('fetches a loopback URL, shows sourceURL and stores a version', async () => {
    const url = `${specsServer.url}/pets.yaml`;
    const { created, done } = await createAndProcess('from-url', { url });
    expect(created.sourceURL).toBe(url);
    expect(done).toMatchObject({ processingState: 'complete', sourceURL: url, lastVersion: expect.any(String) });
    expect(done.lastProcessErrorCode).toBeUndefined();
  });

  it('follows a loopback redirect', async () => {
    const { done } = await createAndProcess('redirected', { url: `${specsServer.url}/redirect` });
    expect(done.lastVersion).toEqual(expect.any(String));
    expect(done.lastProcessErrorCode).toBeUndefined();
  });

  it('FETCH_ERROR for a non-2xx answer and a refused connection', async () => {
    const closed = await serve(() => undefined);
    await closed.close();
    for (const [slug, url] of [
      ['missing', `${specsServer.url}/nothing`],
      ['refused', `${closed.url}/spec.yaml`],
    ]) {
      const { done } = await createAndProcess(slug, { url });
      expect(done).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_ERROR' });
      expect(done.lastVersion).toBeUndefined();
    }
  });

  it('refuses loopback, private, link-local and unspecified addresses, local names and redirects to them: no request, one generic error', async () => {
    // A server on loopback that the upstream is not allowed to fetch from: it must never see a request.
    const probed = await serve((_req, res) => void res.writeHead(200).end(VALID_OPENAPI_YAML));
    allowed.delete(probed.url);
    let requests = 0;
    probed.server.on('request', () => requests++);
    const { port } = new URL(probed.url);
    const closed = await serve(() => undefined);
    allowed.delete(closed.url);
    await closed.close();
    const urls = [
      `${probed.url}/pets.yaml`,
      `${closed.url}/pets.yaml`,
      `http://localhost:${port}/pets.yaml`,
      `http://LOCALHOST.:${port}/pets.yaml`,
      `http://api.localhost:${port}/pets.yaml`,
      `http://[::1]:${port}/pets.yaml`,
      `http://[::ffff:127.0.0.1]:${port}/pets.yaml`,
      `http://0.0.0.0:${port}/pets.yaml`,
      `http://2130706433:${port}/pets.yaml`,
      `http://0x7f.1:${port}/pets.yaml`,
      `http://${REBOUND_NAME}:${port}/pets.yaml`,
      'http://10.1.2.3/spec.json',
      'http://172.16.0.1/spec.json',
      'http://192.168.1.1/spec.json',
      'http://100.64.0.1/spec.json',
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/spec',
      'http://[fd00::1]/spec',
      'http://[::]/spec',
      'http://metadata.google.internal/computeMetadata/v1',
      'http://printer.local/spec',
      `${specsServer.url}/redirect-to/${encodeURIComponent(`${probed.url}/pets.yaml`)}`,
      `${specsServer.url}/redirect-to/${encodeURIComponent('http://169.254.169.254/latest')}`,
    ];
    for (const [i, url] of urls.entries()) {
      const { done } = await createAndProcess(`refused-${i}`, { url });
      expect(done, url).toMatchObject({
        processingState: 'complete',
        lastProcessErrorCode: 'FETCH_ERROR',
        lastProcessedErrors: [{ code: 'FETCH_ERROR', message: UNREACHABLE }],
      });
      expect(done.lastVersion, url).toBeUndefined();
    }
    expect(requests).toBe(0);
    await probed.close();
  });

  it('refuses schemes other than http and https', async () => {
    const { done } = await createAndProcess('ftp', { url: 'ftp://127.0.0.1/x' });
    expect(done.lastProcessErrorCode).toBe('FETCH_ERROR');
  });

  it('PARSE_ERROR when the fetched text is not a spec', async () => {
    const { done } = await createAndProcess('garbage', { url: `${specsServer.url}/garbage` });
    expect(done.lastProcessErrorCode).toBe('PARSE_ERROR');
  });

  it('shows progress while fetching, and FETCH_TIMEOUT when the server is too slow', async () => {
    const slow = await gatedServer(VALID_OPENAPI_YAML);
    try {
      const created = await t.api.post(base, { slug: 'slow', source: { url: `${slow.url}/spec.yaml` } });
      expect(created.body.processingState).toBe('pending');
      await vi.waitFor(() => expect(slow.requests()).toBe(1));
      expect((await t.api.get(`${base}/slow`)).body.processingState).toBe('progress');
      await t.upstream.idle();
      const done = (await t.api.get(`${base}/slow`)).body;
      expect(done).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_TIMEOUT' });
    } finally {
      slow.release();
      await slow.close();
    }
  });

  it('a PUT during processing wins over the run it replaced', async () => {
    const gated = await gatedServer('not: [a spec');
    try {
      await t.api.post(base, { slug: 'raced', source: { url: `${gated.url}/spec.yaml` } });
      await vi.waitFor(() => expect(gated.requests()).toBe(1));
      await t.api.put(`${base}/raced`, { source: { text: VALID_OPENAPI_YAML } });
      gated.release();
      await t.upstream.idle();
      const done = (await t.api.get(`${base}/raced`)).body;
      expect(done.lastProcessErrorCode).toBeUndefined();
      expect(done.lastVersion).toEqual(expect.any(String));
      expect(done.sourceURL).toBeUndefined();
    } finally {
      await gated.close();
    }
  });

  it('stopping the server stops processing without waiting for the fetch timeout', async () => {
    const other = await startUpstream({ openApiFetchTimeoutMs: 60_000, openApiFetchAllow });
    const hanging = await gatedServer(VALID_OPENAPI_YAML);
    try {
      await other.api.post(`/orgs/${other.world.orgId}/openapi`, { slug: 'hang', source: { url: `${hanging.url}/x` } });
      await vi.waitFor(() => expect(hanging.requests()).toBe(1));
      // The fetch hangs until released below (after stop) and its timeout is a minute: a stop that
      // waited for either would not end within the test's timeout.
      await other.stop();
    } finally {
      hanging.release();
      await hanging.close();
    }
  });
});

describe('OpenAPI specs: parsing bounded in memory and time', () => {
  const tooLarge = { processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR', lastProcessedErrors: [{ code: 'PARSE_ERROR' }] };

  it('a 150,000-item YAML flow sequence ends PARSE_ERROR (too large), and specs are still processed after it', async () => {
    const { done } = await createAndProcess('flow-150k', { text: FLOW_150K });
    expect(done).toMatchObject(tooLarge);
    expect(done.lastProcessedErrors[0].message).toMatch(new RegExp(`^${TOO_LARGE} in \\d+ MB of memory$`));
    const after = await createAndProcess('after-flow', { text: VALID_OPENAPI_YAML });
    expect(after.done).toMatchObject({ processingState: 'complete', lastVersion: expect.any(String) });
  });

  it('9 MB of JSON from a URL, 3 million objects, ends PARSE_ERROR (too large)', async () => {
    const { done } = await createAndProcess('large-json', { url: `${specsServer.url}/large.json` });
    expect(done).toMatchObject(tooLarge);
    expect(done.lastProcessedErrors[0].message).toContain(TOO_LARGE);
  });

  it('40,000 paths: requests are answered while the spec is parsed, and it ends complete', async () => {
    expect((await t.api.post(base, { slug: 'paths-40k', source: { text: PATHS_40K } })).status).toBe(201);
    await vi.waitFor(async () => expect((await t.api.get(`${base}/paths-40k`)).body.processingState).toBe('progress'), { timeout: 10_000 });
    expect((await t.api.get('/user')).status).toBe(200);
    expect((await t.api.get(`${base}/paths-40k`)).body.processingState).toBe('progress');
    await t.upstream.idle();
    expect((await t.api.get(`${base}/paths-40k`)).body.processingState).toBe('complete');
  });

  it('a parse that outlasts openApiParseTimeoutMs is stopped: PARSE_ERROR', async () => {
    await using other = await startUpstream({ openApiParseTimeoutMs: 100 });
    const specs = `/orgs/${other.world.orgId}/openapi`;
    await other.api.post(specs, { slug: 'slow-parse', source: { text: PATHS_40K } });
    await other.upstream.idle();
    const done = (await other.api.get(`${specs}/slow-parse`)).body;
    expect(done).toMatchObject({ ...tooLarge, lastProcessedErrors: [{ code: 'PARSE_ERROR', message: `${TOO_LARGE} within 100 ms` }] });
  });

  it('specs written at once are all processed (a few at a time)', async () => {
    const slugs = Array.from({ length: 6 }, (_, i) => `burst-${i}`);
    await Promise.all(slugs.map((slug) => t.api.post(base, { slug, source: { text: VALID_OPENAPI_YAML } })));
    await t.upstream.idle();
    for (const slug of slugs)
      expect((await t.api.get(`${base}/${slug}`)).body, slug).toMatchObject({
        processingState: 'complete',
        lastVersion: expect.any(String),
      });
  });

  it('a spec a previous process left in progress is processed when a server starts', async () => {
    await using first = await startUpstream();
    const specs = `/orgs/${first.world.orgId}/openapi`;
    await first.api.post(specs, { slug: 'orphan', source: { text: VALID_OPENAPI_YAML } });
    await first.upstream.idle();
    first.upstream.db.prepare(`UPDATE openapi_specs SET processing_state = 'progress', last_version_id = NULL WHERE slug = 'orphan'`).run();
    const second = buildUpstream({ db: first.upstream.db, clock: first.clock });
    await second.start();
    await second.idle();
    await second.stop();
    const done = (await first.api.get(`${specs}/orphan`)).body;
    expect(done).toMatchObject({ processingState: 'complete', lastVersion: expect.any(String) });
  });
});

describe('OpenAPI specs: validation', () => {
  const create = (body: unknown) => t.api.post(base, body);

  it('slug: 1..100 characters, lowercase words joined by dashes', async () => {
    const ok = 'a'.repeat(100);
    expect((await create({ slug: ok, source: { text: VALID_OPENAPI_YAML } })).status).toBe(201);
    for (const slug of ['a'.repeat(101), '', 'Upper', 'two--dashes', '-lead', 'under_score']) {
      const res = await create({ slug, source: { text: VALID_OPENAPI_YAML } });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/^slug: /);
    }
    expect((await create({ source: { text: VALID_OPENAPI_YAML } })).body.error.message).toBe('slug: is required');
  });

  it('source: exactly one of url and text', async () => {
    const both = await create({ slug: 'both', source: { url: 'http://127.0.0.1/x', text: VALID_OPENAPI_YAML } });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toBe('source: must have exactly one of url, text');
    const neither = await create({ slug: 'neither', source: {} });
    expect(neither.body.error.message).toBe('source: must have exactly one of url, text');
    expect((await create({ slug: 'missing' })).body.error.message).toBe('source: is required');
    expect((await create({ slug: 'empty', source: { text: '' } })).body.error.message).toMatch(/^source\.text: /);
    expect((await create({ slug: 'nouri', source: { url: 'not a url' } })).body.error.message).toMatch(/^source\.url: /);
    expect((await create({ slug: 'other', source: { file: 'x' } })).body.error.message).toBe('source.file: is not a known field');
  });

  it('source url: at most 2048 characters', async () => {
    const prefix = 'http://127.0.0.1:9/';
    const at = prefix + 'a'.repeat(2048 - prefix.length);
    expect((await create({ slug: 'url-2048', source: { url: at } })).status).toBe(201);
    const over = await create({ slug: 'url-2049', source: { url: `${at}a` } });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toBe('source.url: must be at most 2048 characters long');
    await t.upstream.idle();
  });

  it('PUT checks the slug of the path', async () => {
    const res = await t.api.put(`${base}/Not_A_Slug`, { source: { text: VALID_OPENAPI_YAML } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^specSlug: /);
    expect((await t.api.put(`${base}/fine`, {})).body.error.message).toBe('source: is required');
  });
});

describe('OpenAPI specs: get, put, delete, list', () => {
  it('PUT creates (201) then updates (200) with a new version', async () => {
    const created = await t.api.put(`${base}/put-me`, { source: { text: VALID_OPENAPI_YAML } });
    expect(created.status).toBe(201);
    await t.upstream.idle();
    const first = (await t.api.get(`${base}/put-me`)).body;
    const updated = await t.api.put(`${base}/put-me`, { source: { url: `${specsServer.url}/pets.yaml` } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: first.id, processingState: 'pending', lastVersion: first.lastVersion });
    await t.upstream.idle();
    const second = (await t.api.get(`${base}/put-me`)).body;
    expect(second.lastVersion).not.toBe(first.lastVersion);
    expect(second.sourceURL).toBe(`${specsServer.url}/pets.yaml`);
    expect(Date.parse(second.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt));
  });

  it('GET of an unknown slug is 404; DELETE removes (204) then 404', async () => {
    expect((await t.api.get(`${base}/nope`)).status).toBe(404);
    await createAndProcess('doomed', { text: VALID_OPENAPI_YAML });
    const del = await t.api.delete(`${base}/doomed`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await t.api.get(`${base}/doomed`)).status).toBe(404);
    expect((await t.api.delete(`${base}/doomed`)).status).toBe(404);
  });

  it('lists every spec page by page, in creation order, without duplicate or gap', async () => {
    const walked = await t.api.all(base, { limit: 3 });
    const single = await t.api.get(base, { limit: 1000 });
    expect(walked.pages).toBe(Math.ceil(single.body.count / 3));
    expect(walked.items.map((s) => s.id)).toEqual(single.body.items.map((s: any) => s.id));
    expect(new Set(walked.items.map((s) => s.id)).size).toBe(walked.items.length);
    expect(walked.items[0].slug).toBe('pets');
    expect((await t.api.get(base, { limit: 1001 })).status).toBe(400);
  });

  it('specs of one organization are not visible from another', async () => {
    const other = await t.api.get(`/orgs/${t.world.otherOrgId}/openapi`);
    expect(other.body.items).toEqual([]);
    expect((await t.api.get(`/orgs/${t.world.otherOrgId}/openapi/pets`)).status).toBe(404);
  });
});

describe('OpenAPI specs: roles', () => {
  const as = (who: keyof TestUpstream['world']['users']) => t.api.as(t.world.users[who].token);

  it('members with a role read, with permissions.edit from create upward', async () => {
    for (const role of ['admin', 'create'] as const) {
      expect((await as(role).get(`${base}/pets`)).body.permissions).toEqual({ view: true, edit: true });
    }
    for (const role of ['edit', 'review', 'comment', 'read'] as const) {
      const res = await as(role).get(base);
      expect(res.status).toBe(200);
      expect(res.body.items[0].permissions).toEqual({ view: true, edit: false });
    }
  });

  it('create role writes; edit role and below get 403', async () => {
    const source = { text: VALID_OPENAPI_YAML };
    expect((await as('create').post(base, { slug: 'by-creator', source })).status).toBe(201);
    expect((await as('create').put(`${base}/by-creator`, { source })).status).toBe(200);
    expect((await as('create').delete(`${base}/by-creator`)).status).toBe(204);
    expect((await as('edit').post(base, { slug: 'by-editor', source })).status).toBe(403);
    expect((await as('edit').put(`${base}/pets`, { source })).status).toBe(403);
    expect((await as('read').delete(`${base}/pets`)).status).toBe(403);
    await t.upstream.idle();
  });

  it('guests get 403, outsiders and disabled members 404, no token 401', async () => {
    expect((await as('guest').get(base)).status).toBe(403);
    expect((await as('outsider').get(base)).status).toBe(404);
    expect((await as('disabled').get(`${base}/pets`)).status).toBe(404);
    expect((await t.api.as(undefined).get(base)).status).toBe(401);
  });
});
