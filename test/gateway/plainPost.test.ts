/**
 * lib/plainPost.ts: a small `POST /graphql` of a JSON operation is answered without Yoga's Fetch
 * API layer, every other request by Yoga whole. What a client sees must not depend on the path:
 * each case is sent twice, once as the fast path takes it (a `Content-Length` body) and once as it
 * does not (the same bytes chunked, which only Yoga reads), and the answers compared.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildGateway } from '../../src/gateway/app.js';
import { hang, startBadServer } from '../helpers/badServer.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** POSTs `body` to the gateway: with its length (`chunked` false) or as a chunked stream. */
function post(url: string, body: string, headers: Record<string, string>, chunked: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers, ...(chunked ? {} : { 'content-length': Buffer.byteLength(body) }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    if (chunked) req.setHeader('transfer-encoding', 'chunked');
    req.end(body);
  });
}

/** The parts of an answer a client reads (the date and connection headers aside). */
const seen = ({ status, headers, body }: Answer) => ({
  status,
  type: headers['content-type'],
  length: headers['content-length'],
  encoding: headers['content-encoding'],
  vary: headers.vary,
  retryAfter: headers['retry-after'],
  allowOrigin: headers['access-control-allow-origin'],
  cacheControl: headers['cache-control'],
  body,
});

describe('a small JSON POST answers the same on the fast path as through Yoga', () => {
  let t: TestStack;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await startStack();
    auth = { authorization: `Bearer ${t.world.users.admin.token}` };
  });
  afterAll(() => t?.stop());

  /** The fast path's first answer to a text, its answer once the text is known valid, and Yoga's. */
  const both = async (body: string, headers: Record<string, string> = {}) => {
    const first = await post(t.gateway.url, body, headers, false);
    const fast = await post(t.gateway.url, body, headers, false);
    const yoga = await post(t.gateway.url, body, headers, true);
    return { first: seen(first), fast: seen(fast), yoga: seen(yoga) };
  };

  it('takes a compressed answer through the response hooks', async () => {
    const { fast } = await both(
      JSON.stringify({ query: `{ ${Array.from({ length: 12 }, (_, i) => `o${i}: organizations { nodes { id title } }`).join(' ')} }` }),
      {
        ...auth,
        'accept-encoding': 'gzip',
      },
    );
    expect(fast).toMatchObject({ status: 200, encoding: 'gzip', vary: 'Accept-Encoding' });
  });

  it.each([
    ['a query', JSON.stringify({ query: '{ viewer { displayName } }' }), {}],
    [
      'a named operation with variables',
      JSON.stringify({ query: 'query Q($id: String!) { space(spaceId: $id) { title } }', variables: { id: 'nope' }, operationName: 'Q' }),
      {},
    ],
    ['a syntax error', JSON.stringify({ query: '{ viewer { ' }), {}],
    [
      'a validation error, Accept: application/graphql-response+json',
      JSON.stringify({ query: '{ nope }' }),
      { accept: 'application/graphql-response+json' },
    ],
    ['an unknown operation name', JSON.stringify({ query: '{ viewer { displayName } }', operationName: 'Other' }), {}],
    [
      'variables nested too deep',
      JSON.stringify({ query: 'query($v: JSON) { __typename }', variables: { v: JSON.parse('['.repeat(300) + ']'.repeat(300)) } }),
      {},
    ],
    ['invalid JSON', '{"query": ', {}],
    ['an empty body', '', {}],
    ['a body that starts with a byte-order mark', `\uFEFF${JSON.stringify({ query: '{ __typename }' })}`, {}],
    ['a body that is not UTF-8', Buffer.from([0x7b, 0x22, 0x71, 0x22, 0x3a, 0xff, 0x7d]).toString('latin1'), {}],
    ['a JSON array (batching)', JSON.stringify([{ query: '{ __typename }' }]), {}],
    ['a query that is not a string', JSON.stringify({ query: 42 }), {}],
    ['an extra parameter', JSON.stringify({ query: '{ __typename }', other: 1 }), {}],
    ['an APQ hash unknown', JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }), {}],
    ['a mutation', JSON.stringify({ query: 'mutation { __typename }' }), {}],
    [
      'a result over 1 kB, compressed',
      JSON.stringify({ query: `{ ${Array.from({ length: 12 }, (_, i) => `o${i}: organizations { nodes { id title } }`).join(' ')} }` }),
      { 'accept-encoding': 'gzip' },
    ],
    ['Accept that no result processor serves', JSON.stringify({ query: '{ __typename }' }), { accept: 'image/png' }],
    [
      'a deferred fragment, Accept: application/json',
      JSON.stringify({ query: '{ viewer { displayName ... @defer { email } } }' }),
      { accept: 'application/json' },
    ],
    // Yoga's parser takes `application/json` as written, alone or before `;` (415 otherwise).
    ['a content type in capitals', JSON.stringify({ query: '{ __typename }' }), { 'content-type': 'APPLICATION/JSON' }],
    ['a space before the parameters', JSON.stringify({ query: '{ __typename }' }), { 'content-type': 'application/json ; charset=utf-8' }],
    ['a list of content types', JSON.stringify({ query: '{ __typename }' }), { 'content-type': 'application/json, text/plain' }],
    ['a streamed list, no Accept', JSON.stringify({ query: '{ organizations { nodes @stream(initialCount: 0) { id } } }' }), {}],
  ])('%s', async (_name, body, headers) => {
    const { first, fast, yoga } = await both(body, { ...auth, ...headers });
    expect(first).toEqual(yoga);
    expect(fast).toEqual(yoga);
  });
});

describe('with CORS and the response cache on', () => {
  let t: TestStack;
  /** The gateway's debug lines. */
  const lines: string[] = [];
  beforeAll(async () => {
    const line = (message: string) => void lines.push(message);
    t = await startStack({
      corsOrigins: ['https://app.example'],
      anonymousRateLimit: 1,
      responseCacheTtlMs: 60_000,
      log: { debug: line, info: line, warn: line, error: line },
    });
  });
  afterAll(() => t?.stop());

  it("a browser's query gets the same CORS and cache headers on both paths", async () => {
    const headers = { origin: 'https://app.example', authorization: `Bearer ${t.world.users.admin.token}` };
    const body = JSON.stringify({ query: '{ viewer { displayName } }' });
    const miss = seen(await post(t.gateway.url, body, headers, false));
    expect(miss).toMatchObject({ status: 200, allowOrigin: 'https://app.example', cacheControl: 'private, no-store' });
    expect(JSON.parse(miss.body).extensions.responseCache.hit).toBe(false);
    const hit = seen(await post(t.gateway.url, body, headers, false));
    expect(JSON.parse(hit.body).extensions.responseCache.hit).toBe(true);
    expect(hit).toEqual(seen(await post(t.gateway.url, body, headers, true)));
  });

  it('a refusal a response hook rewrites (406) gets the later hooks on both paths (Vary: Origin)', async () => {
    const headers = { origin: 'https://app.example', authorization: `Bearer ${t.world.users.admin.token}`, accept: 'text/html' };
    const body = JSON.stringify({ query: '{ __typename }' });
    const fast = seen(await post(t.gateway.url, body, headers, false));
    expect(fast).toMatchObject({ status: 406, vary: 'Origin', allowOrigin: 'https://app.example' });
    expect(fast).toEqual(seen(await post(t.gateway.url, body, headers, true)));
  });

  it('a caller refused on arrival (429) gets the same debug lines on both paths', async () => {
    const body = JSON.stringify({ query: '{ __typename }' });
    const headers = { origin: 'https://app.example' };
    // Past the anonymous limit (1): refused by the rate limit's onRequest hook on both paths.
    while ((await post(t.gateway.url, body, headers, false)).status !== 429);
    const linesOf = async (chunked: boolean) => {
      lines.length = 0;
      expect((await post(t.gateway.url, body, headers, chunked)).status).toBe(429);
      return lines.splice(0);
    };
    expect(await linesOf(false)).toEqual(await linesOf(true));
  });

  it('a caller over its rate limit is refused with the CORS headers a browser needs to read the 429', async () => {
    const body = JSON.stringify({ query: '{ __typename }' });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(seen(await post(t.gateway.url, body, { origin: 'https://app.example' }, false)));
    const refused = answers.find((a) => a.status === 429);
    expect(refused).toMatchObject({ allowOrigin: 'https://app.example', retryAfter: expect.stringMatching(/^\d+$/) });
  });
});

describe('with CORS on', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startStack({ corsOrigins: ['https://app.example'] });
  });
  afterAll(() => t?.stop());

  it('a streamed result the shutdown hook wraps gets the later hooks on both paths (Vary: Origin)', async () => {
    const headers = { origin: 'https://other.example', authorization: `Bearer ${t.world.users.admin.token}`, accept: '*/*' };
    const body = JSON.stringify({ query: '{ organizations { nodes @stream(initialCount: 0) { id } } }' });
    const fast = seen(await post(t.gateway.url, body, headers, false));
    expect(fast).toMatchObject({ status: 200, type: 'multipart/mixed; boundary="-"', vary: 'Origin' });
    expect(fast).toEqual(seen(await post(t.gateway.url, body, headers, true)));
  });
});

describe('the per-address rate limit', () => {
  // A fresh window for each test: a token's requests count against its address too until the
  // REST API has accepted it.
  let t: TestStack;
  beforeEach(async () => {
    t = await startStack({ anonymousRateLimit: 2 });
  });
  afterEach(() => t?.stop());

  it('without a token: counts both paths alike (429 with Retry-After)', async () => {
    const body = JSON.stringify({ query: '{ __typename }' });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(seen(await post(t.gateway.url, body, {}, i % 2 === 1)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[2].retryAfter).toMatch(/^\d+$/);
    expect(JSON.parse(answers[2].body).errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  it('counts a chunked request without a token against its client address, as a small POST', async () => {
    // The anonymous body bound wraps a chunked body in a request of its own: that one had no
    // identity, so its operations counted against an unknown address shared by every client.
    const body = JSON.stringify({ query: '{ __typename }' });
    const statuses = [];
    for (const chunked of [true, true, false]) statuses.push((await post(t.gateway.url, body, {}, chunked)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe('a text seen valid runs again without parse and validation', () => {
  let t: TestStack;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await startStack({ limits: { maxCost: 20 } });
    auth = { authorization: `Bearer ${t.world.users.admin.token}` };
  });
  afterAll(() => t?.stop());

  const send = async (body: object, headers: Record<string, string>) =>
    seen(await post(t.gateway.url, JSON.stringify(body), headers, false));

  it('its cost is still priced per request, with the variables of each', async () => {
    const query =
      'query Pages($org: String!, $n: Int) { organization(organizationId: $org) { spaces(first: $n) { nodes { changeRequests(first: $n) { nodes { id } } } } } }';
    const variables = (n: number) => ({ org: t.world.orgId, n });
    expect(JSON.parse((await send({ query, variables: variables(2) }, auth)).body).errors).toBeUndefined();
    const refused = await send({ query, variables: variables(30) }, auth);
    expect(JSON.parse(refused.body).errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxCost' });
    expect(refused).toEqual(seen(await post(t.gateway.url, JSON.stringify({ query, variables: variables(30) }), auth, true)));
  });

  it('an operation name the document lacks is still refused as Yoga refuses it (400)', async () => {
    const one = 'query A { viewer { displayName } }';
    expect((await send({ query: one, operationName: 'A' }, auth)).status).toBe(200);
    const refused = await send({ query: one, operationName: 'C' }, auth);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).errors[0].message).toBe('Could not determine what operation to execute.');
    const two = 'query A { viewer { displayName } } query B { __typename }';
    expect((await send({ query: two, operationName: 'A' }, auth)).status).toBe(200);
    expect(JSON.parse((await send({ query: two, operationName: 'B' }, auth)).body)).toEqual({ data: { __typename: 'Query' } });
  });

  it("introspection is still checked against each request's caller", async () => {
    const query = '{ __schema { queryType { name } } }';
    expect(JSON.parse((await send({ query }, auth)).body)).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    const anonymous = await send({ query }, {});
    expect(JSON.parse(anonymous.body).errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('a text that failed validation is not learned: refused again', async () => {
    const query = '{ viewer { nope } }';
    const first = await send({ query }, auth);
    expect(JSON.parse(first.body).errors[0].message).toMatch(/Cannot query field "nope"/);
    expect(await send({ query }, auth)).toEqual(first);
  });

  it('each run is counted by the operation metrics', async () => {
    const count = async () => {
      const text = await (await fetch(new URL('/metrics', t.gateway.url))).text();
      return Number(/^graphql_envelop_request\{operationName="Counted".*outcome="ok"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    for (let i = 0; i < 3; i++) await send({ query: 'query Counted { viewer { displayName } }' }, auth);
    expect(await count()).toBe(3);
  });
});

describe('a client that leaves', () => {
  it("mid-query: the query's REST call is aborted (the upstream's connection closes)", async () => {
    await using bad = await startBadServer();
    bad.fallback = hang;
    // REST timeouts past the test's own (20 s): only the client's leaving can end the call in time.
    const gateway = buildGateway({ upstreamUrl: bad.url, rest: { headersTimeoutMs: 60_000, bodyTimeoutMs: 60_000 } });
    try {
      const url = await gateway.start();
      const body = JSON.stringify({ query: '{ viewer { displayName } }' });
      const req = httpRequest(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer t' },
      });
      req.on('error', () => undefined);
      req.end(body);
      await expect.poll(() => bad.requests.length, { timeout: 5000 }).toBe(1);
      req.destroy();
      // Resolves only when the gateway gave up the call: the test times out otherwise.
      await bad.requests[0].connectionClosed;
    } finally {
      await gateway.stop(0);
    }
  });
});
