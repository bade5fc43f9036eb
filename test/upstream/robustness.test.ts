/**
 * Malformed requests against EVERY route of the router: no token, a bad token, garbage JSON, bodies
 * of the wrong shape and type, bad `limit` and `page` values, bad enum and boolean query
 * parameters, odd path parameters. Each answer must be a 4xx `{error: {code, message}}`, never a
 * 500. Path parameters are ids of real objects (a fresh fixture per route), so each request gets
 * as far as the handler's own checks.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Agent, get as httpGet, request, type IncomingMessage } from 'node:http';
import { queryObjects, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/upstream/clock.js';
import { createSite } from '../../src/upstream/domain/sites.js';
import { buildUpstream } from '../../src/upstream/server.js';
import { checkResponse } from '../helpers/conformance.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';
import { createWorld } from '../helpers/world.js';
import { until } from '../helpers/clock.js';
import { sendRaw } from '../helpers/httpStack.js';

const routes = (() => {
  const u = buildUpstream();
  const list = u.router.list();
  u.db.close();
  return list;
})();
const key = (r: { method: string; pattern: string }) => `${r.method} ${r.pattern}`;

let t: TestUpstream;
let serial = 0;
beforeAll(async () => {
  t = await startUpstream();
});
afterAll(() => t.stop());

/** Ids of real objects for every path parameter the router knows, made fresh for each route. */
async function fixture(): Promise<Record<string, string>> {
  const n = ++serial;
  const api = t.api;
  const organizationId = t.world.orgId;
  const ok = <T>(res: { status: number; body: T }, what: string): T => {
    if (res.status >= 300) throw new Error(`fixture ${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const org = `/orgs/${organizationId}`;
  const spaceId = ok(await api.post(`${org}/spaces`, { title: 'Robust' }), 'space').id;
  const collectionId = ok(await api.post(`${org}/collections`, { title: 'Robust' }), 'collection').id;
  const cr = `/spaces/${spaceId}/change-requests`;
  const changeRequestId = ok(await api.post(cr, { subject: 'Robust' }), 'change request').id;
  const comments = `${cr}/${changeRequestId}/comments`;
  const commentId = ok(await api.post(comments, { body: { markdown: 'Hi' } }), 'comment').id;
  const commentReplyId = ok(await api.post(`${comments}/${commentId}/replies`, { body: { markdown: 'Yo' } }), 'reply').id;
  const teamId = ok(await api.put(`${org}/teams`, { title: `Team ${n}` }), 'team').id;
  const now = t.clock.now().toISOString();
  const site = createSite(t.upstream.db, now, {
    organizationId,
    title: 'Robust site',
    visibility: 'share-link',
    published: true,
    spaceIds: [spaceId],
  });
  const sites = `${org}/sites/${site.id}`;
  const siteSectionId = ok(await api.get(`${sites}/sections`), 'sections').items[0].id;
  const siteSectionGroupId = ok(await api.post(`${sites}/section-groups`, { title: 'Group' }), 'group').id;
  const siteRedirectId = ok(
    await api.post(`${sites}/redirects`, { source: '/old', destination: { kind: 'site-section', siteSectionId } }),
    'redirect',
  ).id;
  const shareLinkId = ok(await api.post(`${sites}/share-links`, { name: 'Link' }), 'share link').id;
  const inviteId = ok(await api.post(`${org}/link-invites`, { role: 'read' }), 'link invite').id;
  const samlProviderId = ok(await api.post(`${org}/saml`, { label: 'IdP' }), 'saml').id;
  const specSlug = `spec-${n}`;
  ok(await api.post(`${org}/openapi`, { slug: specSlug, source: { text: 'openapi: 3.0.0\ninfo: {title: t}\npaths: {}\n' } }), 'spec');
  const translationSettingsId = ok(await api.post(`${org}/translations`, { title: 'Translate' }), 'translations').id;
  const fontId = ok(
    await api.put(`${org}/fonts`, { fontFamily: 'Robust', fontFaces: [{ weight: 400, storageKey: 'r.woff2' }] }),
    'font',
  ).id;
  const integrationName = `robust-${n}`;
  ok(
    await api.post(`/integrations/${integrationName}`, {
      title: 'Robust',
      description: 'Robust',
      scopes: ['site:views:read'],
      script: 'export default {}',
      organization: organizationId,
    }),
    'integration',
  );
  await t.upstream.idle();
  return {
    organizationId,
    spaceId,
    collectionId,
    changeRequestId,
    commentId,
    commentReplyId,
    userId: t.world.users.read.id,
    teamId,
    siteId: site.id,
    siteSectionId,
    siteSectionGroupId,
    siteRedirectId,
    shareLinkId,
    inviteId,
    samlProviderId,
    specSlug,
    translationSettingsId,
    fontId,
    integrationName,
  };
}

function fill(pattern: string, ids: Record<string, string>, odd?: { param: string; value: string }): string {
  return pattern.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (odd?.param === name) return odd.value;
    if (!(name in ids)) throw new Error(`no fixture id for {${name}}`);
    return encodeURIComponent(ids[name]);
  });
}

interface Sent {
  token?: string | null;
  body?: string | Buffer;
  contentType?: string;
  query?: Record<string, string>;
}

/** One raw request (node:http, so GET may carry a body); the status and the parsed JSON. */
function send(method: string, path: string, sent: Sent = {}): Promise<{ status: number; json: any; text: string }> {
  const url = new URL(t.url + path);
  for (const [k, v] of Object.entries(sent.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = {};
  const token = sent.token === undefined ? t.world.users.admin.token : sent.token;
  if (token !== null) headers.authorization = token.startsWith('Basic ') ? token : `Bearer ${token}`;
  if (sent.body !== undefined) {
    headers['content-type'] = sent.contentType ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(sent.body));
  }
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const isJson = (res.headers['content-type'] ?? '').includes('application/json') && text;
        resolve({ status: res.statusCode ?? 0, json: isJson ? JSON.parse(text) : undefined, text });
      });
    });
    req.on('error', reject);
    req.end(sent.body);
  });
}

/** Asserts a 4xx JSON error in the `{error: {code, message}}` shape (and returns its message). */
function expectError(res: Awaited<ReturnType<typeof send>>, what: string, status?: number): string {
  const at = `${what} -> ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, at).toBeGreaterThanOrEqual(400);
  expect(res.status, at).toBeLessThan(500);
  if (status) expect(res.status, at).toBe(status);
  expect(res.json, at).toEqual({ error: { code: res.status, message: expect.any(String) } });
  expect(res.json.error.message.length, at).toBeGreaterThan(0);
  return res.json.error.message;
}

/** Not a server error; an error answer has the error shape. */
function expectNoCrash(res: Awaited<ReturnType<typeof send>>, what: string) {
  expect(res.status, `${what} -> ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) expectError(res, what);
}

/** A body with wrong types for each route that takes one (a route added with a body must be listed). */
const WRONG_BODIES: Record<string, unknown> = {
  'PATCH /spaces/{spaceId}': { title: 5 },
  'POST /spaces/{spaceId}/move': { parent: 5 },
  'POST /spaces/{spaceId}/transfer': { organization: 5 },
  'POST /orgs/{organizationId}/spaces': { title: ['x'] },
  'PATCH /collections/{collectionId}': { description: 5 },
  'POST /collections/{collectionId}/move': { position: 'end' },
  'POST /collections/{collectionId}/transfer': { organization: [] },
  'POST /orgs/{organizationId}/collections': { title: 5 },
  'POST /spaces/{spaceId}/change-requests': { subject: 5 },
  'PATCH /spaces/{spaceId}/change-requests/{changeRequestId}': { status: 'merged' },
  'POST /spaces/{spaceId}/change-requests/{changeRequestId}/comments': { body: 'text' },
  'PUT /spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}': { resolved: 'yes' },
  'POST /spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies': { body: { markdown: 5 } },
  'PUT /spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}': {
    addedReactions: 'x',
  },
  'POST /spaces/{spaceId}/permissions': { role: 'owner', users: [] },
  'PATCH /spaces/{spaceId}/permissions/users/{userId}': { role: 5 },
  'POST /collections/{collectionId}/permissions': { role: 5 },
  'PATCH /collections/{collectionId}/permissions/users/{userId}': { role: 'owner' },
  'PATCH /orgs/{organizationId}/sites/{siteId}': { visibility: 'secret' },
  'PATCH /orgs/{organizationId}/sites/{siteId}/publishing/auth': { backend: 5 },
  'POST /orgs/{organizationId}/sites/{siteId}/sections': { spaceId: 5 },
  'PATCH /orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}': { path: 5 },
  'POST /orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move': { position: 'first' },
  'POST /orgs/{organizationId}/sites/{siteId}/section-groups': { title: 5 },
  'PATCH /orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}': { icon: 5 },
  'POST /orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections': { sectionId: 5 },
  'POST /orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move': { position: [] },
  'POST /orgs/{organizationId}/sites/{siteId}/redirects': { source: 5, destination: {} },
  'PATCH /orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}': { destination: 'x' },
  'POST /orgs/{organizationId}/sites/{siteId}/share-links': { name: 5 },
  'PATCH /orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}': { active: 'yes' },
  'PATCH /orgs/{organizationId}/members/{userId}': { role: 'owner' },
  'PUT /orgs/{organizationId}/teams': { title: 5 },
  'PATCH /orgs/{organizationId}/teams/{teamId}': { title: [] },
  'POST /orgs/{organizationId}/invites': { emails: 'a@b.test' },
  'POST /orgs/{organizationId}/link-invites': { role: 5 },
  'PATCH /orgs/{organizationId}/link-invites/{inviteId}': { role: 'owner' },
  'POST /orgs/{organizationId}/saml': { label: 5 },
  'PATCH /orgs/{organizationId}/saml/{samlProviderId}': { ssoURL: 5 },
  'POST /orgs/{organizationId}/openapi': { slug: 5, source: { url: 'x' } },
  'PUT /orgs/{organizationId}/openapi/{specSlug}': { source: 'text' },
  'POST /orgs/{organizationId}/translations': { title: 5 },
  'PUT /orgs/{organizationId}/translations/{translationSettingsId}': { title: 5 },
  'PUT /orgs/{organizationId}/fonts': { fontFamily: 5, fontFaces: [] },
  'POST /orgs/{organizationId}/fonts/{fontId}': { fontFaces: { weight: 400 } },
  'POST /integrations/{integrationName}': { title: 5 },
  'POST /orgs/{organizationId}/ask': { query: 5 },
};

/** Writes that take no body (the seed: "none"); a body sent to them is ignored. */
const NO_BODY = new Set([
  'POST /spaces/{spaceId}/restore',
  'POST /spaces/{spaceId}/duplicate',
  'POST /spaces/{spaceId}/change-requests/{changeRequestId}/merge',
  'POST /spaces/{spaceId}/change-requests/{changeRequestId}/update',
  'POST /orgs/{organizationId}/sites/{siteId}/publish',
  'POST /orgs/{organizationId}/sites/{siteId}/unpublish',
  'POST /orgs/{organizationId}/members/{userId}/sso',
  'POST /orgs/{organizationId}/ping',
  'POST /orgs/{organizationId}/invites/{inviteId}',
]);

/** Bad values of the enum, boolean and pattern query parameters each route reads. */
const BAD_QUERIES: Record<string, Record<string, string>> = {
  'GET /spaces/{spaceId}/links': { status: 'dead' },
  'GET /orgs/{organizationId}/collections': { nested: 'maybe' },
  'GET /spaces/{spaceId}/change-requests': { status: 'closed' },
  'GET /spaces/{spaceId}/change-requests/{changeRequestId}/pdf': { only: 'yes' },
  'GET /spaces/{spaceId}/change-requests/{changeRequestId}/comments': { order: 'up', format: 'pdf', status: 'done' },
  'POST /spaces/{spaceId}/change-requests/{changeRequestId}/comments': { format: 'html' },
  'GET /spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}': { format: 'html' },
  'GET /spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies': { format: 'html' },
  'POST /spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies': { format: 'html' },
  'GET /spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}': { format: 'html' },
  'GET /spaces/{spaceId}/permissions/aggregate': { role: 'owner' },
  'GET /collections/{collectionId}/permissions/aggregate': { role: 'owner' },
  'GET /orgs/{organizationId}/sites': { published: '1' },
  'GET /orgs/{organizationId}/members': { order: 'up', role: 'owner', sort: 'name' },
  'GET /orgs/{organizationId}/members/{userId}/spaces': { order: 'up' },
  'GET /integrations': { category: 'games', blockDomain: 'a b', blocks: 'yes', contentSources: '0' },
  'POST /orgs/{organizationId}/ask': { format: 'html', details: 'yes' },
  'GET /orgs/{organizationId}/ask/stream': { format: 'html', details: 'yes' },
  'GET /orgs/{organizationId}/sites/{siteId}/redirect': { source: 'no-slash' },
};

/** Parameters a route requires, sent along with each bad one so that only the bad one is wrong. */
const NEEDED_QUERIES: Record<string, Record<string, string>> = {
  'GET /orgs/{organizationId}/ask/stream': { query: 'hello' },
  'GET /orgs/{organizationId}/sites/{siteId}/redirect': { source: '/old' },
};

/** Odd values for a path parameter: NUL, dots, an encoded slash, unicode, SQL, very long, bad escapes. */
const ODD_PARAMS = ['%00', '...', '%2F..%2F', '%F0%9F%92%A5', "'%20OR%201%3D1--", 'x'.repeat(5000), '%ZZ', '-1', '0'];

const isWrite = (method: string) => method !== 'GET' && method !== 'DELETE';

describe('every route answers malformed requests with a 4xx error, never a 500', () => {
  it('lists a wrong-typed body for every write that takes one', () => {
    const writes = routes.filter((r) => isWrite(r.method)).map(key);
    expect(writes.filter((k) => !(k in WRONG_BODIES) && !NO_BODY.has(k))).toEqual([]);
    expect(Object.keys(WRONG_BODIES).filter((k) => !writes.includes(k))).toEqual([]);
    expect(Object.keys(BAD_QUERIES).filter((k) => !routes.map(key).includes(k))).toEqual([]);
  });

  it.each(routes.map((r) => [key(r), r] as const))('%s', async (name, route) => {
    const ids = await fixture();
    const path = fill(route.pattern, ids);
    const { method } = route;

    // Authentication: no token, a malformed header, an unknown token.
    expectError(await send(method, path, { token: null }), `${name} without a token`, 401);
    expectError(await send(method, path, { token: 'not-a-real-token' }), `${name} with an unknown token`, 401);
    expectError(await send(method, path, { token: 'Basic abc' }), `${name} with Basic auth`, 401);

    // Bodies: garbage JSON, a body that is not JSON, JSON that is not an object.
    const garbage = await send(method, path, { body: '{"title": "x",,}' });
    expect(expectError(garbage, `${name} with garbage JSON`, 400)).toMatch(/^body: /);
    expectError(await send(method, path, { body: 'title=x', contentType: 'text/plain' }), `${name} with a text body`, 415);
    const deep = await send(method, path, { body: `{"title": ${'['.repeat(20_000)}${']'.repeat(20_000)}}` });
    expect(expectError(deep, `${name} with a deeply nested body`, 400)).toMatch(/^body: /);
    if (isWrite(method) && !NO_BODY.has(name)) {
      for (const body of ['[]', '"text"', '42', 'null', '[{"title": "x"}]']) {
        const msg = expectError(await send(method, path, { body }), `${name} with body ${body}`, 400);
        expect(msg).toMatch(/^body: /);
      }
      const wrong = await send(method, path, { body: JSON.stringify(WRONG_BODIES[name]) });
      expectError(wrong, `${name} with ${JSON.stringify(WRONG_BODIES[name])}`, 400);
      // Required fields missing, or else an unknown field (named like a built-in object member).
      expectError(await send(method, path, { body: '{"constructor": 1}' }), `${name} with an unknown field`, 400);
      const long = await send(method, path, { body: JSON.stringify({ title: '🦄'.repeat(100_000), name: 'x'.repeat(100_000) }) });
      expectError(long, `${name} with very long strings`);
    } else if (isWrite(method)) {
      expectNoCrash(await send(method, path, { body: '[1, {"a": null}]' }), `${name} with an array body`);
    }

    // Query parameters: bad enums and booleans, then the pagination parameters.
    for (const [param, value] of Object.entries(BAD_QUERIES[name] ?? {})) {
      const query = { ...NEEDED_QUERIES[name], [param]: value };
      const res = await send(method, path, { query, body: method === 'POST' ? '{}' : undefined });
      expect(expectError(res, `${name}?${param}=${value}`, 400)).toMatch(new RegExp(`^${param}: `));
    }
    if (method === 'GET') {
      const plain = await send(method, path, { query: NEEDED_QUERIES[name] });
      expectNoCrash(plain, `${name}`);
      const isList = plain.status === 200 && Array.isArray(plain.json?.items) && typeof plain.json?.count === 'number';
      for (const [param, value] of [
        ['limit', '1001'],
        ['limit', '0'],
        ['limit', '-1'],
        ['limit', '1e3'],
        ['limit', '99999999999999999999'],
        ['page', 'forged'],
        ['page', Buffer.from('[[1]]').toString('base64url')],
        ['page', Buffer.from('{"a":1}').toString('base64url')],
      ]) {
        const res = await send(method, path, { query: { ...NEEDED_QUERIES[name], [param]: value } });
        if (isList) expect(expectError(res, `${name}?${param}=${value}`, 400)).toMatch(new RegExp(`^${param}: `));
        else expectNoCrash(res, `${name}?${param}=${value}`);
      }
    }

    // Odd path parameters, one at a time (the others real).
    for (const param of route.pattern.match(/\{(\w+)\}/g)?.map((p) => p.slice(1, -1)) ?? []) {
      for (const value of ODD_PARAMS) {
        const body = isWrite(method) ? JSON.stringify(WRONG_BODIES[name] ?? {}) : undefined;
        const res = await send(method, fill(route.pattern, ids, { param, value }), { body });
        expectError(res, `${name} with {${param}} = ${value.slice(0, 20)}`);
      }
    }
  });
});

describe('every PATCH and PUT needs write rights, whatever the body', () => {
  it('an empty body `{}` never succeeds for a reader or a guest', async () => {
    const ids = await fixture();
    const updates = routes.filter((r) => r.method === 'PATCH' || r.method === 'PUT');
    expect(updates.length).toBeGreaterThan(15);
    for (const who of ['read', 'guest'] as const) {
      for (const route of updates) {
        const res = await send(route.method, fill(route.pattern, ids), { token: t.world.users[who].token, body: '{}' });
        expectError(res, `${who}: ${key(route)} with {}`);
      }
    }
  });
});

describe('the body validator', () => {
  it('rejects fields named like built-in object members as unknown fields', async () => {
    for (const field of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const res = await send('POST', `/orgs/${t.world.orgId}/spaces`, { body: `{"title": "x", "${field}": 1}` });
      expect(res.json.error, field).toEqual({ code: 400, message: `${field}: is not a known field` });
      checkResponse('POST', `/orgs/${t.world.orgId}/spaces`, res.status, res.json);
    }
  });

  it('refuses a body that is not UTF-8 (400, nothing stored) and stores UTF-8 text as it was sent', async () => {
    const path = `/orgs/${t.world.orgId}/spaces`;
    // A lead byte without its continuation, an overlong `/`, an emoji cut after three of its bytes.
    for (const title of ['bad\xc3(x', 'over\xc0\xafx', 'cut\xf0\x9f\x98']) {
      const res = await send('POST', path, { body: Buffer.from(`{"title":"${title}"}`, 'latin1') });
      expect(res.json, title).toEqual({ error: { code: 400, message: 'body: is not valid UTF-8' } });
    }
    const valid = 'NFC \u00e9, NFD e\u0301, \ud83d\ude00, \u2028, U+FFFD \ufffd';
    const res = await send('POST', path, { body: JSON.stringify({ title: valid }) });
    expect([res.status, res.json.title]).toEqual([201, valid]);
    expect((await send('GET', `/spaces/${res.json.id}`)).json.title).toBe(valid);
  });

  it('takes bodies nested up to 64 levels (a free-form JSON value included), not deeper', async () => {
    const publish = (name: string, levels: number) =>
      t.api.post(`/integrations/${name}`, {
        title: 'Deep',
        description: 'Deep',
        scopes: ['site:views:read'],
        script: 'export default {}',
        organization: t.world.orgId,
        // body → configurations → account → properties → a → default: 5 levels, then the arrays
        configurations: {
          account: { properties: { a: { type: 'string', default: JSON.parse('['.repeat(levels - 5) + ']'.repeat(levels - 5)) } } },
        },
      });
    expect((await publish('deep-64', 64)).status).toBe(200);
    expect((await publish('deep-65', 65)).body.error).toEqual({ code: 400, message: 'body: must not nest more than 64 levels' });
  });

  it('takes only absolute URIs the responses can echo as such (no spaces, non-ASCII or bad escapes)', async () => {
    const saml = `/orgs/${t.world.orgId}/saml`;
    const bad = [
      'https://idp.example/a b',
      'https://idp.example/ä',
      'https://idp.example/a|b',
      'https://idp.example/%zz',
      'idp.example/sso',
      'https://idp.example/?a=[1]',
    ];
    for (const ssoURL of bad) {
      expect((await t.api.post(saml, { label: 'IdP', ssoURL })).body.error, ssoURL).toEqual({
        code: 400,
        message: 'ssoURL: must be an absolute URI',
      });
    }
    for (const ssoURL of ['https://idp.example/sso?x=%C3%A4&y=%5B1%5D', 'urn:example:idp', 'http://[::1]:8080/saml']) {
      const res = await t.api.post(saml, { label: 'IdP', ssoURL });
      expect(res.status, ssoURL).toBe(201);
      expect(res.body.ssoURL).toBe(ssoURL);
    }
  });

  it('does not take a built-in member for a configuration property', async () => {
    const configurations = { account: { properties: { a: { type: 'string' } }, required: ['toString'] } };
    const res = await t.api.post('/integrations/proto-check', {
      title: 'Proto',
      description: 'Proto',
      scopes: ['site:views:read'],
      script: 'export default {}',
      organization: t.world.orgId,
      configurations,
    });
    expect(res.body.error).toEqual({
      code: 400,
      message: 'configurations.account: required names toString, which is not among properties',
    });
  });
});

describe('the rate limit', () => {
  it('answers 429 with Retry-After past the limit, per user however the header is spelled', async () => {
    const limited = await startUpstream({ rateLimit: { limit: 3, windowMs: 60_000 } });
    try {
      const admin = limited.world.users.admin.token;
      const get = (authorization: string) => fetch(`${limited.url}/user`, { headers: { authorization } });
      for (let i = 0; i < 3; i++) expect((await get(`Bearer ${admin}`)).status).toBe(200);
      for (const spelling of [`Bearer ${admin}`, `bearer   ${admin}`, `BEARER ${admin} `]) {
        const res = await get(spelling);
        expect(res.status, spelling).toBe(429);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await res.json()).toEqual({ error: { code: 429, message: expect.any(String) } });
      }
      expect((await get(`Bearer ${limited.world.users.read.token}`)).status).toBe(200);
      limited.clock.advance(60_000);
      expect((await get(`Bearer ${admin}`)).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

describe('the rate limit and the wall clock', () => {
  it('a wall-clock step back neither locks a user out for the step nor gives it a fresh budget', async () => {
    // The process's clock (no test clock): only `Date` is faked, stepped by hand.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const upstream = buildUpstream({ db: ':memory:', rateLimit: { limit: 3, windowMs: 60_000 } });
    try {
      const url = await upstream.start();
      const admin = createWorld(upstream.db, new ManualClock()).users.admin.token;
      const get = () => fetch(`${url}/user`, { headers: { authorization: `Bearer ${admin}` } });
      for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(429);
      // Stepped back 10 minutes (NTP, a resumed VM): refused for what is left of the minute, not for 11.
      vi.setSystemTime(Date.now() - 600_000);
      const back = await get();
      expect(back.status).toBe(429);
      expect(Number(back.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      // Stepped forward 2 hours: the same window, not a fresh budget.
      vi.setSystemTime(Date.now() + 7_200_000);
      expect((await get()).status).toBe(429);
    } finally {
      vi.useRealTimers();
      await upstream.stop();
    }
  });
});

describe('the rate limit of anonymous calls', () => {
  it('forgets the windows that ended: calls from 8,000 client addresses, a window apart, leave the heap as it was', async () => {
    const limited = await startUpstream({ rateLimit: { limit: 3, windowMs: 60_000 } });
    try {
      const { port } = new URL(limited.url);
      // An anonymous route (a space may be read with a share key): its calls are counted per address
      // (401 without one).
      const get = (localAddress: string) =>
        new Promise<number>((resolve, reject) =>
          httpGet({ host: '127.0.0.1', port, path: '/v1/spaces/none', localAddress, agent: false }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          }).on('error', reject),
        );
      const from = async (first: number) => {
        for (let i = first; i < first + 8000; i += 50)
          expect(await Promise.all(Array.from({ length: 50 }, (_, k) => get(`127.1.${((i + k) >> 8) & 255}.${(i + k) & 255}`)))).toEqual(
            Array(50).fill(401),
          );
        limited.clock.advance(60_000);
      };
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      await from(0); // warms up
      gc();
      const before = process.memoryUsage().heapUsed;
      await from(8000);
      gc();
      // Before: 8,000 windows more, about 1 MB.
      expect(process.memoryUsage().heapUsed - before).toBeLessThan(400_000);
    } finally {
      await limited.stop();
    }
  }, 60_000);
});

describe('requests the HTTP layer takes oddly', () => {
  const port = () => Number(new URL(t.url).port);

  it('a request target node:http accepts but no URL reads is a 400, not a 500', async () => {
    for (const target of ['//[', 'http://x:99999/v1/user']) {
      const answer = await sendRaw(port(), `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(answer, target).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toContain('"code":400');
    }
  });

  it('a chunked body sent in 16-byte chunks is held joined while it is read, not as an object per chunk', async () => {
    // Before: each chunk was kept until the body's end: a token holder's 900 KB body in 1-byte
    // chunks (5.4 MB sent) ran `npm start`'s heap out, the gateway's with it. Here 56,250 of 16
    // bytes (fewer on average are refused: the next test), counted as the Buffers the process holds.
    // This request, as the REST API's server reads it (the channel tells of every server of the process).
    let received: IncomingMessage | undefined;
    const started = (message: unknown) => {
      const { request: req } = message as { request: IncomingMessage };
      if (req.socket.localPort === port() && req.headers['transfer-encoding'] === 'chunked') received = req;
    };
    subscribe('http.server.request.start', started);
    const socket = connect(port(), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1'))).on('error', () => undefined);
    try {
      // JSON may end in white space: a large body that is a small space.
      const body = `{"title":"Chunks"}${' '.repeat(900_000 - 18)}`;
      const sent =
        `POST /v1/orgs/${t.world.orgId}/spaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.world.users.admin.token}\r\n` +
        `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${(body.match(/.{1,16}/gs) ?? []).map((c) => `10\r\n${c}\r\n`).join('')}`;
      const before = queryObjects(Buffer, { format: 'count' });
      socket.write(sent);
      // Every byte sent was read by the server and handed on by its request (all but the last chunk).
      await until(() => received?.socket.bytesRead === sent.length && received.readableLength === 0);
      // One Buffer per chunk without the joining (56,000), one per 16 KiB with it.
      const held = queryObjects(Buffer, { format: 'count' }) - before;
      socket.write('0\r\n\r\n');
      await until(() => answer.includes('"Chunks"'));
      expect(answer).toMatch(/^HTTP\/1\.1 201 /);
      expect(held, `${held} Buffers held`).toBeLessThan(5_000);
    } finally {
      unsubscribe('http.server.request.start', started);
      socket.destroy();
    }
  });

  it('refuses a chunked body in chunks of fewer than 16 bytes on average as they come: 400, its connection closed', async () => {
    // Before: each 1-byte chunk went through the body's stream, the event loop's time per chunk,
    // whatever it brought (the gateway refuses such a body the same way, lib/chunkedBody.ts).
    const socket = connect(port(), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1'))).on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    try {
      // 2,000 chunks of a body never finished: answered as they come, not at the request timeout.
      socket.write(
        `POST /v1/orgs/${t.world.orgId}/spaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.world.users.admin.token}\r\n` +
          `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${'1\r\n \r\n'.repeat(2_000)}`,
      );
      await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toContain('chunks of fewer than 16 bytes on average');
    } finally {
      socket.destroy();
    }
  });

  it('holds a connection that sends nothing only until the headers timeout, and at most maxConnections at once', async () => {
    // Before: Node's defaults (a minute for headers, five for a body, no cap): 21,000 idle
    // connections took the process's file descriptors, the gateway's port with them.
    const own = await startUpstream({ http: { headersTimeoutMs: 200, maxConnections: 2 } });
    try {
      const origin = new URL(own.url);
      const idle = () => {
        const socket = connect(Number(origin.port), '127.0.0.1');
        socket.on('error', () => undefined);
        socket.resume(); // reads what the server sends, its close included
        return { socket, closed: new Promise<void>((resolve) => socket.once('close', () => resolve())) };
      };
      const held = [idle(), idle()];
      await until(() => own.upstream.connections() === 2);
      const third = idle();
      await third.closed; // past the cap: closed by the server at once
      // The idle ones go at the headers timeout (checked every second).
      await Promise.all(held.map((h) => h.closed));
      expect((await own.api.get('/user')).status).toBe(200);
    } finally {
      await own.stop();
    }
  });

  it('reads at most bodyBytesInFlight of request bodies at once: past it a 503 with Retry-After, until one is done', async () => {
    // Before: each body was bounded, not all of them: 600 connections of 1 MiB sent but its last
    // byte held 600 MB of `npm start`'s memory until the request timeout.
    const own = await startUpstream({ bodyBytesInFlight: 2 * 1024 * 1024 });
    try {
      const port = Number(new URL(own.url).port);
      const head = (length: number) =>
        `POST /v1/orgs/${own.world.orgId}/spaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${own.world.users.admin.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;
      const MiB = 1024 * 1024;
      const held = [0, 1].map(() => {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.write(head(MiB) + '{"title":"' + ' '.repeat(64 * 1024));
        return socket;
      });
      await until(() => own.upstream.connections() === 2);
      // A third large body is refused before it is read; a small one still passes.
      // JSON may end in white space: a large body that is a small space.
      const large = `{"title":"Large"}${' '.repeat(MiB - 100)}`;
      const third = await sendRaw(port, `${head(Buffer.byteLength(large))}${large}`);
      expect(third).toMatch(/^HTTP\/1\.1 503 /);
      expect(third.toLowerCase()).toContain('retry-after: 1');
      expect((await own.api.post(`/orgs/${own.world.orgId}/spaces`, { title: 'Small' })).status).toBe(201);
      // Once the held ones are gone, their bytes are given back.
      held.forEach((socket) => socket.destroy());
      await until(() => own.upstream.connections() === 0);
      expect(await sendRaw(port, `${head(Buffer.byteLength(large))}${large}`)).toMatch(/^HTTP\/1\.1 201 /);
    } finally {
      await own.stop();
    }
  });

  it('a body past maxBodyBytes is a 413 that closes its connection: the next request is not sent on a socket about to be reset', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: Buffer) =>
      new Promise<string>((resolve) => {
        const req = request(`${t.url}${path}`, {
          method,
          agent,
          headers: {
            authorization: `Bearer ${t.world.users.admin.token}`,
            ...(body ? { 'content-type': 'application/json', 'content-length': body.length } : {}),
          },
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(`${res.statusCode} ${res.headers.connection}`));
        });
        req.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
        req.end(body);
      });
    try {
      const big = Buffer.from(JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) }));
      expect(await send('POST', `/orgs/${t.world.orgId}/spaces`, big)).toBe('413 close');
      expect(await send('GET', '/user')).toBe('200 keep-alive');
    } finally {
      agent.destroy();
    }
  });

  it('a client that leaves in the middle of its body is not logged as an internal error', async () => {
    const own = await startUpstream();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const socket = connect(Number(new URL(own.url).port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        `POST /v1/orgs/${own.world.orgId}/spaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${own.world.users.admin.token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title":`,
      );
      await until(() => own.upstream.connections() === 1);
      socket.destroy();
      // The server saw the connection close, and answered (or logged) what it was going to.
      await until(() => own.upstream.connections() === 0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(errors.mock.calls.map((c) => String(c[0]))).not.toContain('[upstream] internal error:');
      expect((await own.api.get('/user')).status).toBe(200);
    } finally {
      errors.mockRestore();
      await own.stop();
    }
  });
});
