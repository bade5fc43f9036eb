/**
 * CSRF prevention and CORS over real HTTP: a request a cross-site page could send without a
 * preflight (a GET link, a `text/plain` form post) never writes; CORS answers only for the
 * configured origins (none by default), preflight included, never reflecting another origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from '../helpers/gateway.js';

const APP = 'https://app.example.com';
const EVIL = 'https://evil.example';
let t: TestStack;
let url: string;
let open: TestStack;
let openUrl: string;
beforeAll(async () => {
  [t, open] = await Promise.all([startStack(), startStack({ corsOrigins: [APP, 'http://localhost:3000'] })]);
  [url, openUrl] = await Promise.all([t.gateway.start(), open.gateway.start()]);
});
afterAll(() => Promise.all([t.stop(), open.stop()]));

const createSpace = (org: string) => `mutation { createSpace(input: { organizationId: "${org}", title: "csrf" }) { space { restId } } }`;
const writes = (s: TestStack) => s.calls.filter((c) => c.method !== 'GET');
const spaceCount = async (s: TestStack) =>
  (await s.data(`{ organization(organizationId: "${s.world.orgId}") { spacesCount: spaces(first: 100) { nodes { restId } } } }`))
    .organization.spacesCount.nodes.length;

describe('CSRF prevention', () => {
  it('a mutation over GET is refused (405) with no REST write, even with a token', async () => {
    const before = await spaceCount(t);
    t.resetCalls();
    const res = await fetch(`${url}?query=${encodeURIComponent(createSpace(t.world.orgId))}`, {
      headers: { authorization: `Bearer ${t.world.users.admin.token}`, accept: 'application/json' },
    });
    expect(res.status).toBe(405);
    const body = (await res.json()) as { errors: Array<{ extensions: { code: string } }> };
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(writes(t)).toEqual([]);
    expect(await spaceCount(t)).toBe(before);
  });

  it('a text/plain POST (a cross-site form) is refused with 403 FORBIDDEN and no REST call', async () => {
    t.resetCalls();
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: JSON.stringify({ query: createSpace(t.world.orgId) }),
      });
      expect(res.status).toBe(403);
      const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
      expect(body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(body.errors[0].message).toMatch(/CSRF/);
    }
    expect(t.calls).toEqual([]);
  });

  it('a GET query needs a non-simple header (Authorization or x-graphql-yoga-csrf); JSON POSTs (GraphiQL) pass', async () => {
    const query = `${url}?query=${encodeURIComponent('{ __typename }')}`;
    expect((await fetch(query)).status).toBe(403);
    expect(await (await fetch(query, { headers: { 'x-graphql-yoga-csrf': '1' } })).json()).toEqual({ data: { __typename: 'Query' } });
    const viewer = await fetch(`${url}?query=${encodeURIComponent('{ viewer { restId } }')}`, {
      headers: { authorization: `Bearer ${t.world.users.read.token}` },
    });
    expect(await viewer.json()).toEqual({ data: { viewer: { restId: t.world.users.read.id } } });
    const post = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(await post.json()).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('CORS', () => {
  const preflight = (target: string, origin: string) =>
    fetch(target, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
  const post = (target: string, origin: string) =>
    fetch(target, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });

  it('is off by default: no origin is reflected, and nothing allows credentials', async () => {
    for (const res of [await preflight(url, EVIL), await post(url, EVIL), await post(url, APP)]) {
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('answers exactly the configured origins, preflight included', async () => {
    for (const origin of [APP, 'http://localhost:3000']) {
      const pre = await preflight(openUrl, origin);
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
      expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
      expect(pre.headers.get('access-control-allow-headers')).toContain('authorization');
      expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
      const res = await post(openUrl, origin);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(await res.json()).toEqual({ data: { __typename: 'Query' } });
    }
    for (const origin of [EVIL, `${APP}.evil.example`, 'null']) {
      expect((await preflight(openUrl, origin)).headers.get('access-control-allow-origin')).toBeNull();
      expect((await post(openUrl, origin)).headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it("says Vary: Origin on every response, its CORS headers being the request's origin's: a cache keeps one per origin", async () => {
    const page = await (await fetch(openUrl, { headers: { accept: 'text/html' } })).text();
    const asset = new URL(page.match(/src="(\/graphql\/graphiql\/[^"]+\.js)"/)![1], openUrl).href;
    // Before: none said it; GraphiQL's script, `public, max-age=31536000, immutable`, was kept by a
    // shared cache with the first visitor's `Access-Control-Allow-Origin` (or none) for every origin.
    const vary = (res: Response) =>
      res.headers
        .get('vary')
        ?.split(',')
        .map((name) => name.trim().toLowerCase());
    for (const origin of [APP, 'http://localhost:3000', EVIL, undefined]) {
      const headers: Record<string, string> = origin ? { origin } : {};
      const script = await fetch(asset, { headers: { ...headers, 'accept-encoding': 'gzip' } });
      expect([origin, script.status, script.headers.get('cache-control'), vary(script)]).toEqual([
        origin,
        200,
        expect.stringContaining('public'),
        ['accept-encoding', 'origin'],
      ]);
      expect(script.headers.get('access-control-allow-origin')).toBe(origin === APP || origin === 'http://localhost:3000' ? origin : null);
      if (origin) expect([origin, vary(await preflight(openUrl, origin))]).toEqual([origin, expect.arrayContaining(['origin'])]);
      expect([origin, vary(await post(openUrl, origin ?? APP))]).toEqual([origin, expect.arrayContaining(['origin'])]);
    }
    // CORS off: no response depends on the origin.
    expect(vary(await post(url, APP)) ?? []).not.toContain('origin');
  });
});
