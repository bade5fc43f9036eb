import { afterEach, describe, expect, it } from 'vitest';
import {
  createRestClient,
  encodeQuery,
  ERROR_CODES,
  parseRetryAfter,
  path,
  RestCallLog,
  type ErrorCode,
  type RestClient,
  type RestClientConfig,
  RestError,
} from '../../src/rest/index.js';
import { GraphQLError } from 'graphql';
import { fromRestError } from '../../src/schema/lib/errors.js';
import { deadUrl, echoAuthorization, error, hang, json, reset, stallBody, startBadServer, type BadServer } from '../helpers/badServer.js';
import { fakeClock, until } from '../helpers/clock.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

/** Small timeouts so every fault shows in well under a second. */
const FAST: Omit<RestClientConfig, 'baseUrl'> = {
  connectTimeoutMs: 500,
  headersTimeoutMs: 300,
  bodyTimeoutMs: 300,
  requestTimeoutMs: 4_000,
  retry: { baseDelayMs: 10, maxDelayMs: 40, maxRetryAfterMs: 2_000 },
};

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

function client(baseUrl: string, config: Partial<RestClientConfig> = {}): { rest: RestClient; calls: RestCallLog } {
  const calls = new RestCallLog();
  const rest = createRestClient({ ...FAST, baseUrl, onRequest: calls.record, ...config, retry: { ...FAST.retry, ...config.retry } });
  cleanup.push(() => rest.close());
  return { rest, calls };
}

async function badServer(): Promise<BadServer> {
  const server = await startBadServer();
  cleanup.push(() => server.stop());
  return server;
}

async function upstream(): Promise<TestUpstream> {
  const up = await startUpstream();
  cleanup.push(() => up.stop());
  return up;
}

/** The GraphQL error a call fails with, checked to carry a code of the fixed set. */
async function failure(promise: Promise<unknown>, code: ErrorCode): Promise<RestError> {
  const err = await promise.then(
    () => expect.fail('expected the call to fail'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RestError);
  const gqlError = err as RestError;
  expect(gqlError.extensions.code).toBe(code);
  expect(ERROR_CODES).toContain(gqlError.extensions.code);
  return gqlError;
}

describe('a credential the REST API refused (401)', () => {
  it("fails the operation's remaining calls at once with the same UNAUTHENTICATED error, without a REST call", async () => {
    const server = await badServer();
    server.fallback = error(401, 'The access token is invalid');
    const { rest, calls } = client(server.url);
    const operation = rest.forCaller('Bearer made-up-token');
    const first = await failure(operation.get('/user'), 'UNAUTHENTICATED');
    // Before: each made its own call, answered 401 again (up to maxRestCalls, 1,000, per operation).
    for (const [call, method, path] of [
      [operation.get('/orgs/o1'), 'GET', '/orgs/o1'],
      [operation.post('/orgs/o1/spaces', { title: 'x' }), 'POST', '/orgs/o1/spaces'],
      [operation.stream('/orgs/o1/ask/stream'), 'GET', '/orgs/o1/ask/stream'],
    ] as const) {
      const refused = await failure(call, 'UNAUTHENTICATED');
      expect(refused.message).toBe(first.message);
      expect(refused.extensions.upstream).toEqual({ status: null, method, path });
    }
    expect(server.requests).toHaveLength(1);
    expect(calls.calls).toHaveLength(1);
    // Another operation with the same token asks the REST API again.
    await failure(rest.forCaller('Bearer made-up-token').get('/user'), 'UNAUTHENTICATED');
    expect(server.requests).toHaveLength(2);
  });

  it('without a token, a 401 refuses the calls with the same share key, or none, and no other', async () => {
    const server = await badServer();
    server.fallback = (req, res) =>
      (req.url?.includes('shareKey=good') ? json(200, { id: 's1' }) : error(401, 'Authentication required'))(req, res);
    const { rest } = client(server.url);
    const anonymous = rest.forCaller(undefined);
    await failure(anonymous.get('/user'), 'UNAUTHENTICATED');
    await failure(anonymous.get('/orgs/o1'), 'UNAUTHENTICATED');
    await failure(anonymous.get('/spaces/s1', { shareKey: 'bad' }), 'UNAUTHENTICATED');
    await failure(anonymous.get('/spaces/s2', { shareKey: 'bad' }), 'UNAUTHENTICATED');
    expect(await anonymous.get('/spaces/s1', { shareKey: 'good' })).toEqual({ id: 's1' });
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/user', '/v1/spaces/s1?shareKey=bad', '/v1/spaces/s1?shareKey=good']);
  });

  it('calls of the operation waiting for a slot when the 401 comes are not made either', async () => {
    const server = await badServer();
    server.fallback = error(401, 'The access token is invalid');
    const { rest } = client(server.url, { callerConcurrency: 1 });
    const operation = rest.forCaller('Bearer made-up-token');
    const errors = await Promise.all(Array.from({ length: 10 }, (_, i) => failure(operation.get(`/users/u${i}`), 'UNAUTHENTICATED')));
    expect(server.requests).toHaveLength(1);
    expect(errors.map((e) => e.extensions.upstream?.status)).toEqual([401, ...Array(9).fill(null)]);
  });
});

describe('REST client against the embedded upstream', () => {
  it('reads the caller with its token', async () => {
    const up = await upstream();
    const { rest, calls } = client(up.url);
    const admin = up.world.users.admin;
    const user = await rest.forCaller(`Bearer ${admin.token}`).get<{ id: string; object: string }>('/user');
    expect(user).toMatchObject({ object: 'user', id: admin.id });
    expect(calls.calls).toEqual([expect.objectContaining({ method: 'GET', path: '/user', status: 200, attempt: 1 })]);
  });

  it('maps 401 to UNAUTHENTICATED, without the token in the message', async () => {
    const up = await upstream();
    const { rest, calls } = client(up.url);
    const missing = await failure(rest.forCaller(undefined).get('/user'), 'UNAUTHENTICATED');
    expect(missing.extensions.upstream).toEqual({ status: 401, method: 'GET', path: '/user' });
    const wrong = await failure(rest.forCaller('Bearer not-a-real-token-123').get('/user'), 'UNAUTHENTICATED');
    expect(wrong.message).not.toContain('not-a-real-token-123');
    expect(calls.count('GET', '/user')).toBe(2); // 401 is not retried
  });

  it('maps 404 to NOT_FOUND with the upstream status, method and path', async () => {
    const up = await upstream();
    const { rest } = client(up.url);
    const err = await failure(rest.forCaller(`Bearer ${up.world.users.admin.token}`).get('/users/nope'), 'NOT_FOUND');
    expect(err.extensions.upstream).toEqual({ status: 404, method: 'GET', path: '/users/nope' });
    expect(err.message).toMatch(/not found/i);
    // What a client gets of it (src/schema/lib/errors.ts) has no stack.
    expect(JSON.stringify(fromRestError(new GraphQLError(err.message, { originalError: err }))!.toJSON())).not.toMatch(/stack|at .*\.ts/);
  });

  it('maps 400 to BAD_USER_INPUT with the upstream message, the query kept out of the path', async () => {
    const up = await upstream();
    const { rest } = client(up.url);
    const err = await failure(rest.forCaller(`Bearer ${up.world.users.admin.token}`).get('/orgs', { limit: 5000 }), 'BAD_USER_INPUT');
    expect(err.message).toMatch(/^limit: /);
    expect(err.extensions.upstream).toEqual({ status: 400, method: 'GET', path: '/orgs' });
  });

  it('sends query parameters and encoded path segments', async () => {
    const up = await upstream();
    const { rest } = client(up.url);
    const me = rest.forCaller(`Bearer ${up.world.users.admin.token}`);
    const page = await me.get<{ items: { id: string }[]; next?: { page: string } }>('/orgs', { limit: 1 });
    expect(page.items).toHaveLength(1);
    const rest2 = await me.get<{ items: { id: string }[] }>('/orgs', { limit: 1, page: page.next!.page });
    expect(rest2.items[0].id).not.toBe(page.items[0].id);
    const err = await failure(me.get(path`/users/${'a/b c'}`), 'NOT_FOUND');
    expect(err.extensions.upstream).toMatchObject({ path: '/users/a%2Fb%20c' });
  });
});

describe('REST client retries', () => {
  it('retries a GET answered 503, then succeeds on the second attempt', async () => {
    const server = await badServer();
    server.script(error(503, 'busy'), json(200, { id: 'x' }));
    const { rest, calls } = client(server.url);
    await expect(rest.forCaller('Bearer t').get('/spaces/x')).resolves.toEqual({ id: 'x' });
    expect(server.requests).toHaveLength(2);
    expect(calls.calls.map((c) => [c.status, c.attempt])).toEqual([
      [503, 1],
      [200, 2],
    ]);
  });

  it('retries 502 and 504 too, and gives up after its retries with UPSTREAM_UNAVAILABLE ("try again later")', async () => {
    const server = await badServer();
    server.script(error(502, 'bad gateway'), error(504, 'timeout'), error(503, 'busy'), json(200, {}));
    const { rest } = client(server.url, { retries: 2 });
    const err = await failure(rest.forCaller('Bearer t').get('/spaces/x'), 'UPSTREAM_UNAVAILABLE');
    expect(err.message).toBe('Upstream unavailable (HTTP 503)');
    expect(err.extensions.upstream).toEqual({ status: 503, method: 'GET', path: '/spaces/x' });
    expect(err.message).not.toContain('busy'); // 5xx text is not for clients
    expect(server.requests).toHaveLength(3);
  });

  it('honours Retry-After: 1 on a 429, then succeeds', async () => {
    const server = await badServer();
    server.script(error(429, 'slow down', { 'retry-after': '1' }), json(200, { ok: 1 }));
    const clock = fakeClock();
    const { rest } = client(server.url, { clock });
    await expect(clock.settle(rest.forCaller('Bearer t').get('/orgs'), 2_000)).resolves.toEqual({ ok: 1 });
    // The call's deadline, then a wait of exactly the second the upstream asked for.
    expect(clock.delays).toEqual([4_000, 1_000]);
    expect(server.requests).toHaveLength(2);
  });

  it('fails fast with RATE_LIMITED when Retry-After is beyond the cap', async () => {
    const server = await badServer();
    server.script(error(429, 'Too many requests, retry later', { 'retry-after': '60' }));
    const clock = fakeClock();
    const { rest } = client(server.url, { clock });
    const err = await failure(rest.forCaller('Bearer t').get('/orgs'), 'RATE_LIMITED');
    expect(clock.delays).toEqual([4_000]); // the deadline: no wait
    expect(err.extensions).toMatchObject({ retryAfter: 60, upstream: { status: 429, method: 'GET', path: '/orgs' } });
    expect(server.requests).toHaveLength(1);
  });

  it("gives clients the upstream's Retry-After as whole seconds between 0 and an hour", async () => {
    const server = await badServer();
    const { rest } = client(server.url, { retries: 0 });
    for (const [header, seconds] of [
      // Before: 1e+21 as is.
      ['999999999999999999999', 3_600],
      ['3601', 3_600],
      ['0', 0],
      ['-5', 0],
      ['Wed, 21 Oct 2015 07:28:00 GMT', 0],
    ] as const) {
      server.script(error(429, 'slow down', { 'retry-after': header }));
      const err = await failure(rest.forCaller('Bearer t').get('/orgs'), 'RATE_LIMITED');
      expect(err.extensions.retryAfter).toBe(seconds);
    }
  });

  it("reads a Retry-After date on the upstream's clock (its Date), not the gateway's: 10 minutes apart either way", async () => {
    const server = await badServer();
    for (const apart of [-600_000, 600_000]) {
      // The upstream's clock, whole seconds as HTTP dates have them; it asks for a second.
      const upstreamNow = Math.floor((Date.now() + apart) / 1000) * 1000;
      const headers = { date: new Date(upstreamNow).toUTCString(), 'retry-after': new Date(upstreamNow + 1_000).toUTCString() };
      server.script(error(429, 'slow down', headers), json(200, { ok: 1 }));
      const clock = fakeClock();
      const { rest } = client(server.url, { clock });
      // Before: behind, "retry at once" (a wait of 0); ahead, a wait of 601 s, past the cap (RATE_LIMITED).
      await expect(clock.settle(rest.forCaller('Bearer t').get('/orgs'), 2_000)).resolves.toEqual({ ok: 1 });
      expect(clock.delays).toEqual([4_000, 1_000]);
    }
  });

  it('fails fast when Retry-After would outlast the call deadline', async () => {
    const server = await badServer();
    server.script(error(503, 'busy', { 'retry-after': '2' }));
    const clock = fakeClock();
    const { rest } = client(server.url, { requestTimeoutMs: 1_000, retry: { maxRetryAfterMs: 5_000 }, clock });
    await failure(rest.forCaller('Bearer t').get('/orgs'), 'UPSTREAM_UNAVAILABLE');
    expect(clock.delays).toEqual([1_000]); // the deadline: no wait
    expect(server.requests).toHaveLength(1);
  });

  it('answers RATE_LIMITED once 429s outlast the attempts', async () => {
    const server = await badServer();
    server.fallback = error(429, 'slow down');
    const { rest, calls } = client(server.url, { retries: 3 });
    await failure(rest.forCaller('Bearer t').get('/orgs'), 'RATE_LIMITED');
    expect(calls.count('GET', '/orgs')).toBe(4);
  });

  it('retries a GET whose connection is reset', async () => {
    const server = await badServer();
    server.script(reset, json(200, { ok: true }));
    const { rest, calls } = client(server.url);
    await expect(rest.forCaller('Bearer t').get('/user')).resolves.toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
    expect(calls.calls[0]).toMatchObject({ status: null, code: 'UPSTREAM_UNAVAILABLE', attempt: 1 });
  });

  it('never retries a write: a POST answered 503 reaches the server exactly once', async () => {
    const server = await badServer();
    server.fallback = error(503, 'busy');
    const { rest, calls } = client(server.url);
    const err = await failure(rest.forCaller('Bearer t').post('/orgs/o/spaces', { title: 'x' }), 'UPSTREAM_UNAVAILABLE');
    expect(err.extensions.upstream).toEqual({ status: 503, method: 'POST', path: '/orgs/o/spaces' });
    expect(server.requests).toHaveLength(1);
    expect(calls.count()).toBe(1);
  });

  it('never retries a write on a reset connection or a 429', async () => {
    const server = await badServer();
    server.script(reset, error(429, 'slow', { 'retry-after': '0' }));
    const { rest } = client(server.url);
    const caller = rest.forCaller('Bearer t');
    await failure(caller.patch('/spaces/s', { title: 'y' }), 'UPSTREAM_UNAVAILABLE');
    await failure(caller.delete('/spaces/s'), 'RATE_LIMITED');
    expect(server.requests.map((r) => r.method)).toEqual(['PATCH', 'DELETE']);
  });
});

describe('REST client faults', () => {
  it('gives UPSTREAM_UNAVAILABLE at headersTimeout when no headers come, without retrying', async () => {
    const server = await badServer();
    server.fallback = hang;
    // undici's own timer (on a ~0.5 s tick): the deadline is far away, so the headers timeout is what ends it.
    const { rest } = client(server.url, { headersTimeoutMs: 1_000, clock: fakeClock() });
    const err = await failure(rest.forCaller('Bearer t').get('/user'), 'UPSTREAM_UNAVAILABLE');
    expect(err.message).toMatch(/headers/);
    expect(err.extensions.upstream).toEqual({ status: null, method: 'GET', path: '/user' });
    expect(server.requests).toHaveLength(1);
  });

  it('reads a JSON body sent in several chunks, a byte order mark first, whole', async () => {
    const server = await badServer();
    const items = Array.from({ length: 2_000 }, (_, i) => ({ id: `s${i}`, title: `Space ${i} ✓` }));
    const text = JSON.stringify({ items, count: items.length });
    server.fallback = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.write(Buffer.from([0xef, 0xbb, 0xbf]));
      const bytes = Buffer.from(text);
      // Split inside a multi-byte character too.
      const cut = bytes.indexOf(Buffer.from('✓')) + 1;
      res.write(bytes.subarray(0, cut));
      setImmediate(() => res.end(bytes.subarray(cut)));
    };
    const { rest } = client(server.url);
    expect(await rest.forCaller('Bearer t').get('/spaces')).toEqual({ items, count: items.length });
  });

  it('errors instead of hanging when the body stalls', async () => {
    const server = await badServer();
    server.fallback = stallBody;
    // The body timeout (undici's) ends it: the deadline, on a clock that does not move, never fires.
    const { rest } = client(server.url, { clock: fakeClock() });
    const err = await failure(rest.forCaller('Bearer t').get('/spaces/s'), 'UPSTREAM_UNAVAILABLE');
    expect(err.message).toMatch(/body/);
  });

  it('ends a call at its deadline even when the timeouts are longer', async () => {
    const server = await badServer();
    server.fallback = hang;
    const clock = fakeClock();
    const { rest } = client(server.url, { headersTimeoutMs: 10_000, requestTimeoutMs: 300, clock });
    let settled = false;
    const pending = rest
      .forCaller('Bearer t')
      .get('/user')
      .finally(() => (settled = true));
    await until(() => server.requests.length === 1);
    clock.advance(299);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    clock.advance(1);
    const err = await failure(pending, 'UPSTREAM_UNAVAILABLE');
    expect(err.message).toBe('Upstream unavailable: no answer within the 300 ms deadline');
  });

  it('gives UPSTREAM_UNAVAILABLE for a dead port, after retrying the connection', async () => {
    const { rest, calls } = client(await deadUrl());
    const err = await failure(rest.forCaller('Bearer t').get('/user'), 'UPSTREAM_UNAVAILABLE');
    expect(err.message).toMatch(/refused/);
    expect(calls.calls.map((c) => c.attempt)).toEqual([1, 2, 3, 4]);
  });

  it('aborts calls when the caller signal fires', async () => {
    const server = await badServer();
    server.fallback = hang;
    const { rest } = client(server.url, { headersTimeoutMs: 10_000, requestTimeoutMs: 10_000 });
    const controller = new AbortController();
    const pending = rest.forCaller('Bearer t', { signal: controller.signal }).get('/user');
    await until(() => server.requests.length === 1);
    controller.abort();
    const err = await failure(pending, 'UPSTREAM_UNAVAILABLE');
    expect(err.message).toMatch(/aborted/);
  });

  it('maps an invalid JSON body to UPSTREAM_ERROR', async () => {
    const server = await badServer();
    server.fallback = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{nope');
    const { rest } = client(server.url);
    const err = await failure(rest.forCaller('Bearer t').get('/user'), 'UPSTREAM_ERROR');
    expect(err.extensions.upstream).toEqual({ status: 200, method: 'GET', path: '/user' });
  });

  it('maps 403 and 409, and scrubs the token from an echoed message', async () => {
    const server = await badServer();
    server.script(error(403, 'role too low'), error(409, 'already merged'), error(400, 'token secret-abc is odd'));
    const { rest } = client(server.url);
    const caller = rest.forCaller('Bearer secret-abc');
    expect((await failure(caller.get('/a'), 'FORBIDDEN')).message).toBe('role too low');
    expect((await failure(caller.post('/b'), 'CONFLICT')).message).toBe('already merged');
    expect((await failure(caller.put('/c', {}), 'BAD_USER_INPUT')).message).toBe('token [redacted] is odd');
  });

  it('scrubs the token from an echoed message in another case, spaced out, or cut by the message bound', async () => {
    const token = 'tok-x-SECRET123';
    const spaced = token.split('').join(' ');
    const server = await badServer();
    server.script(
      // Before: `bad token Bearer [redacted] (bearer tok-x-secret123) t o k - x - S E C R E T 1 2 3`.
      error(401, `bad token Bearer ${token} (bearer ${token.toLowerCase()}) ${spaced}\n${token.toUpperCase().split('').join('\t')}`),
      error(400, `${'m'.repeat(480)} ${spaced}`),
    );
    const { rest } = client(server.url);
    expect((await failure(rest.forCaller(`Bearer ${token}`).get('/a'), 'UNAUTHENTICATED')).message).toBe(
      'bad token Bearer [redacted] (bearer [redacted]) [redacted] [redacted]',
    );
    const cut = await failure(rest.forCaller(`Bearer ${token}`).get('/b'), 'BAD_USER_INPUT');
    expect(cut.message).toBe(`${'m'.repeat(480)} [redacted]`);
  });

  it('scrubs a token as long as a header may hold (a made-up one), echoed spaced out', async () => {
    // The token was found by a regular expression made of it: past about 5,000 characters its
    // match overflowed the stack (UPSTREAM_UNAVAILABLE for a 401), and from about 1,000 it took
    // tens of ms of the event loop for each 4xx answer.
    const token = Array.from({ length: 12_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const server = await badServer();
    server.script(error(401, `no token ${token.toUpperCase().split('').join(' ')} here`), error(400, `${token}${token}`));
    const { rest } = client(server.url);
    expect((await failure(rest.forCaller(`Bearer ${token}`).get('/a'), 'UNAUTHENTICATED')).message).toBe('no token [redacted] here');
    expect((await failure(rest.forCaller(`Bearer ${token}`).get('/b'), 'BAD_USER_INPUT')).message).toBe('[redacted][redacted]');
  });

  it('maps 414 and 431 (a URL or headers too long for the server) to BAD_USER_INPUT', async () => {
    const server = await badServer();
    server.script(error(414, 'URI too long'), error(431, 'headers too large'));
    const { rest } = client(server.url);
    const caller = rest.forCaller('Bearer t');
    // Before: UPSTREAM_ERROR, as for a fault of the REST API.
    await failure(caller.get('/a'), 'BAD_USER_INPUT');
    await failure(caller.get('/b'), 'BAD_USER_INPUT');
  });
});

describe('REST client requests', () => {
  it('forwards each caller its own Authorization header, and none without one', async () => {
    const server = await badServer();
    server.fallback = echoAuthorization;
    const { rest } = client(server.url);
    const alice = rest.forCaller('Bearer alice');
    const bob = rest.forCaller('Bearer bob');
    const answers = await Promise.all([alice.get('/user'), bob.get('/user'), alice.get('/user'), rest.forCaller(undefined).get('/user')]);
    expect(answers).toEqual([
      { authorization: 'Bearer alice' },
      { authorization: 'Bearer bob' },
      { authorization: 'Bearer alice' },
      { authorization: null },
    ]);
  });

  it('sends JSON bodies, encodes queries, and returns undefined for 204', async () => {
    const server = await badServer();
    server.script(json(201, { id: 'new' }), json(204), json(200, {}));
    const { rest } = client(server.url);
    const caller = rest.forCaller('Bearer t');
    expect(await caller.post(path`/orgs/${'o 1'}/spaces`, { title: 'Ünïcode' }, { dryRun: true })).toEqual({ id: 'new' });
    expect(await caller.delete('/spaces/s')).toBeUndefined();
    await caller.get('/spaces', { ids: ['a', 'b'], limit: 10, skipped: undefined, nothing: null, q: 'a&b=c' });
    const [post, del, get] = server.requests;
    expect(post).toMatchObject({ method: 'POST', url: '/v1/orgs/o%201/spaces?dryRun=true', body: '{"title":"Ünïcode"}' });
    expect(post.headers['content-type']).toBe('application/json');
    expect(del).toMatchObject({ method: 'DELETE', body: '' });
    expect(del.headers['content-type']).toBeUndefined();
    expect(get.url).toBe('/v1/spaces?ids=a&ids=b&limit=10&q=a%26b%3Dc');
  });

  it('keeps connections alive across calls', async () => {
    const server = await badServer();
    const { rest } = client(server.url);
    const caller = rest.forCaller('Bearer t');
    for (let i = 0; i < 10; i++) await caller.get('/user');
    expect(server.requests).toHaveLength(10);
    // undici frees a connection a tick after the body ends, so back-to-back calls may open a second one.
    expect(server.connections()).toBeLessThanOrEqual(2);
  });

  it('logs one line per attempt, with its route template: neither token, nor query, nor raw id', async () => {
    const server = await badServer();
    server.script(error(503, 'busy'), json(200, {}));
    const lines: string[] = [];
    const { rest } = client(server.url, { log: (line) => lines.push(line) });
    await rest.forCaller('Bearer very-secret').get('/spaces/s', { shareKey: 'k-123' });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^rest GET \/spaces\/\{spaceId\} 503 \d+ms attempt=1$/);
    expect(lines.join('\n')).not.toMatch(/very-secret|k-123|\/spaces\/s\b/);
  });

  it('refuses path parameters that would name another resource', () => {
    expect(path`/spaces/${'a/b'}/pages/${42}`).toBe('/spaces/a%2Fb/pages/42');
    for (const bad of ['', '.', '..']) {
      expect(() => path`/spaces/${bad}`).toThrow(RestError);
    }
  });

  it('encodes queries: arrays repeat, null and undefined are left out', () => {
    expect(encodeQuery({ a: true, b: 0, c: ['x', 'y'], d: undefined, e: null, f: 'é' })).toBe('?a=true&b=0&c=x&c=y&f=%C3%A9');
    expect(encodeQuery({})).toBe('');
    expect(encodeQuery(undefined)).toBe('');
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    // Numbers that are not delay-seconds, which Date.parse read as dates in 2000 (before: 0, "retry now").
    expect(parseRetryAfter('0.001', now)).toBe(1000);
    expect(parseRetryAfter('1.5', now)).toBe(2000);
    expect(parseRetryAfter('-1', now)).toBe(0);
    expect(parseRetryAfter('12 12 12', now)).toBeUndefined();
  });
});
