/**
 * One caller identity, over real HTTP (a gateway on its own port, a recording proxy, the embedded
 * upstream): however `Bearer` is spelled, one token is one caller, and the upstream gets the
 * normalized header; work without an accepted token is limited per client address, and junk
 * tokens get no budget of their own.
 */
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildGateway, type Gateway, type GatewayOptions } from '../../src/gateway/app.js';
import { startChaosProxy, type ChaosProxy } from '../helpers/chaosProxy.js';
import type { GqlResult } from '../helpers/gateway.js';
import { fakeClock, settlesAt, until } from '../helpers/clock.js';
import { bytesReadBy, sendRaw } from '../helpers/httpStack.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

interface Stack {
  upstream: TestUpstream;
  proxy: ChaosProxy;
  gateway: Gateway;
  post(query: string, headers?: Record<string, string>): Promise<{ status: number; retryAfter: string | null; body: GqlResult }>;
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});

async function stack(options: Omit<GatewayOptions, 'upstreamUrl'>): Promise<Stack> {
  const upstream = await startUpstream();
  const proxy = await startChaosProxy(upstream.url);
  const gateway = buildGateway({ ...options, upstreamUrl: proxy.url });
  const url = await gateway.start();
  stops.push(
    () => upstream.stop(),
    () => proxy.stop(),
    () => gateway.stop(),
  );
  const post = async (query: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as GqlResult };
  };
  return { upstream, proxy, gateway, post };
}

const VIEWER = '{ viewer { displayName } }';
const codes = (results: { body: GqlResult }[]) => results.map((r) => (r.body.errors ? String(r.body.errors[0].extensions?.code) : 'ok'));

describe('a caller is its token', () => {
  it('eight spellings of one token share one rate-limit budget, and the upstream gets `Bearer <token>` each time', async () => {
    const t = await stack({ callerRateLimit: 3 });
    const token = t.upstream.world.users.admin.token;
    const spellings = [
      `Bearer ${token}`,
      `bearer ${token}`,
      `BEARER ${token}`,
      `Bearer  ${token}`,
      `Bearer\t${token}`,
      `bEaReR ${token}`,
      `Bearer \t ${token}`,
      `BeArEr\t\t${token}`,
    ];
    const results = [];
    for (const authorization of spellings) results.push(await t.post(VIEWER, { authorization }));
    expect(codes(results)).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
    expect(results[0].body.data).toEqual({ viewer: { displayName: 'Ada admin' } });
    expect(t.proxy.requests.map((r) => r.authorization)).toEqual([`Bearer ${token}`, `Bearer ${token}`, `Bearer ${token}`]);
  });

  it('a header of another scheme (`Basic`, a bare word) never reaches the REST API: its caller is anonymous', async () => {
    // Behind a proxy that authenticates with Basic and passes the header on, the password went to the REST API.
    const t = await stack({});
    const space = (await t.upstream.api.post(`/orgs/${t.upstream.world.orgId}/spaces`, { title: 'Open' })).body.id;
    t.upstream.upstream.db.prepare("UPDATE spaces SET visibility = 'public' WHERE id = ?").run(space);
    for (const authorization of ['Basic dXNlcjpzM2NyZXQ=', 'basic  dXNlcjpzM2NyZXQ=', 'Token s3cret', 's3cret']) {
      expect(codes([await t.post(VIEWER, { authorization })])).toEqual(['UNAUTHENTICATED']);
      expect((await t.post(`{ space(spaceId: "${space}") { title } }`, { authorization })).body).toEqual({
        data: { space: { title: 'Open' } },
      });
    }
    expect(t.proxy.requests.length).toBeGreaterThan(0);
    expect(t.proxy.requests.filter((r) => r.authorization !== undefined)).toEqual([]);
  });

  it('eight spellings of one token share one caller’s REST concurrency slots and queue', async () => {
    const { all, calls } = await oneSlotEach((token) => [
      `Bearer ${token}`,
      `bearer ${token}`,
      `BEARER ${token}`,
      `Bearer  ${token}`,
      `Bearer\t${token}`,
      `bEaReR ${token}`,
      `Bearer \t ${token}`,
      `BeArEr\t\t${token}`,
    ]);
    expect(all.filter((c) => c === 'RATE_LIMITED')).toHaveLength(6);
    expect(all.filter((c) => c === 'UPSTREAM_UNAVAILABLE')).toHaveLength(2);
    expect(calls).toBe(1);
  });
});

/**
 * Eight distinct reads at once, one per `Authorization` that `headers` makes of the admin's token
 * (accepted by the REST API first), while the upstream never answers, with one REST slot and a
 * queue of one per caller: what each got (after the deadline), and the REST calls made.
 */
async function oneSlotEach(headers: (token: string) => string[]): Promise<{ all: string[]; calls: number }> {
  const clock = fakeClock();
  const t = await stack({ rest: { callerConcurrency: 1, queueLimit: 1 }, clock });
  const token = t.upstream.world.users.admin.token;
  const orgId = t.upstream.world.orgId;
  expect(codes([await t.post(VIEWER, { authorization: `Bearer ${token}` })])).toEqual(['ok']);
  const before = t.proxy.count();
  t.proxy.configure({ failRate: 1, faults: ['hang'] });
  let answered = 0;
  const authorizations = headers(token);
  expect(authorizations).toHaveLength(8);
  const results = authorizations.map((authorization, i) =>
    t
      .post(`{ organization(organizationId: "${orgId}") { members(first: ${i + 1}) { nodes { role } } } }`, { authorization })
      .finally(() => answered++),
  );
  await until(() => answered === 6);
  clock.advance(30_000);
  return { all: codes(await Promise.all(results)), calls: t.proxy.count() - before };
}

describe('work without an accepted token is limited per client address', () => {
  it('made-up tokens, a fresh one per operation, share their address’s REST concurrency slots and queue', async () => {
    // Before: each made-up token had a slot and a queue of its own (8 calls in flight).
    const { all, calls } = await oneSlotEach(() => Array.from({ length: 8 }, (_, i) => `Bearer made-up-${i}`));
    expect(all.filter((c) => c === 'RATE_LIMITED')).toHaveLength(6);
    expect(all.filter((c) => c === 'UPSTREAM_UNAVAILABLE')).toHaveLength(2);
    expect(calls).toBe(1);
  });

  it('anonymous operations count per address (the trusted proxy’s X-Forwarded-For), not as one budget for everyone', async () => {
    const t = await stack({ anonymousRateLimit: 2, trustProxyHops: 1 });
    const from = (address: string) => t.post('{ __typename }', { 'x-forwarded-for': address });
    expect(codes([await from('10.0.0.1'), await from('10.0.0.1'), await from('10.0.0.1')])).toEqual(['ok', 'ok', 'RATE_LIMITED']);
    // Another address has its own budget; an address the client wrote left of the trusted hop changes nothing.
    expect(codes([await from('10.0.0.2'), await from('1.2.3.4, 10.0.0.1')])).toEqual(['ok', 'RATE_LIMITED']);
  });

  it('an address the client wrote (one trusted hop too many) is counted, never kept as it came: 1,024 of 15 KB were', async () => {
    const t = await stack({ anonymousRateLimit: 2, trustProxyHops: 1 });
    const from = (address: string) => t.post('{ __typename }', { 'x-forwarded-for': address });
    const junk = (i: number) => `${i}:`.padEnd(15_000, 'a');
    expect(codes([await from(junk(-1)), await from(junk(-1)), await from(junk(-1))])).toEqual(['ok', 'ok', 'RATE_LIMITED']);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (let i = 0; i < 100; i++) await from(junk(i)); // warms up
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 100; i < 1_124; i++) expect((await from(junk(i))).status).toBe(200);
    gc();
    // A rate-limit window each (about 150 bytes): the address texts kept for their keys were 15 MB.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(8 * 1024 * 1024);
  });

  it('an IPv6 client counts by its /64: an address of its own per request gets no fresh budget', async () => {
    const t = await stack({ anonymousRateLimit: 2, trustProxyHops: 1 });
    const from = (address: string) => t.post('{ __typename }', { 'x-forwarded-for': address });
    expect(codes([await from('2001:db8:7:1::1'), await from('2001:db8:7:1::2'), await from('2001:db8:7:1:a:b:c:d')])).toEqual([
      'ok',
      'ok',
      'RATE_LIMITED',
    ]);
    // Another /64 is another client.
    expect(codes([await from('2001:db8:7:2::1')])).toEqual(['ok']);
  });

  it('--ipv6-prefix sets the network one IPv6 client is: a /56 client gets no fresh budget per /64, 128 counts each address', async () => {
    // Before: one client holding a /56 (a common ISP delegation) had 256 budgets, one per /64.
    const wide = await stack({ anonymousRateLimit: 2, trustProxyHops: 1, http: { ipv6Prefix: 56 } });
    const fromWide = (address: string) => wide.post('{ __typename }', { 'x-forwarded-for': address });
    expect(codes([await fromWide('2001:db8:7:1::1'), await fromWide('2001:db8:7:2::1')])).toEqual(['ok', 'ok']);
    const refused = await fromWide('2001:db8:7:ff::1');
    expect(codes([refused])).toEqual(['RATE_LIMITED']);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    // Another /56 is another client; an IPv4 address is itself.
    expect(codes([await fromWide('2001:db8:7:100::1'), await fromWide('203.0.113.7')])).toEqual(['ok', 'ok']);
    // 128: hosts sharing one /64 (an office network) each have their own budget.
    const narrow = await stack({ anonymousRateLimit: 1, trustProxyHops: 1, http: { ipv6Prefix: 128 } });
    const fromNarrow = (address: string) => narrow.post('{ __typename }', { 'x-forwarded-for': address });
    expect(
      codes([await fromNarrow('2001:db8:7:1::1'), await fromNarrow('2001:db8:7:1::2'), await fromNarrow('2001:db8:7:1:0:0:0:1')]),
    ).toEqual(['ok', 'ok', 'RATE_LIMITED']);
  });

  it('an address written with its port (a proxy that adds the client’s port) counts as the address: a new port is no new budget', async () => {
    const t = await stack({ anonymousRateLimit: 2, trustProxyHops: 1 });
    const from = (address: string) => t.post('{ __typename }', { 'x-forwarded-for': address });
    expect(codes([await from('203.0.113.7:50001'), await from('203.0.113.7:50002'), await from('203.0.113.7')])).toEqual([
      'ok',
      'ok',
      'RATE_LIMITED',
    ]);
    expect(codes([await from('[2001:db8:9:1::1]:443'), await from('[2001:db8:9:1::2]:444'), await from('2001:db8:9:1::3')])).toEqual([
      'ok',
      'ok',
      'RATE_LIMITED',
    ]);
    // Another address is another client, with or without its port.
    expect(codes([await from('203.0.113.8:50001')])).toEqual(['ok']);
  });

  it('without trusted proxies, X-Forwarded-For is ignored: the socket’s address counts', async () => {
    const t = await stack({ anonymousRateLimit: 2 });
    const results = [];
    for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.3'])
      results.push(await t.post('{ __typename }', { 'x-forwarded-for': address }));
    expect(codes(results)).toEqual(['ok', 'ok', 'RATE_LIMITED']);
  });

  it('junk tokens, one fresh token per request, share their address’s budget; an accepted token keeps its own', async () => {
    const t = await stack({ anonymousRateLimit: 3, callerRateLimit: 100 });
    const admin = t.upstream.world.users.admin.token;
    // The admin's first operation counts against the address too (its token was not accepted yet).
    expect(codes([await t.post(VIEWER, { authorization: `Bearer ${admin}` })])).toEqual(['ok']);
    const junk = [];
    for (let i = 0; i < 5; i++) junk.push(await t.post(VIEWER, { authorization: `Bearer junk-${i}` }));
    expect(codes(junk)).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED', 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
    // The refused ones cost no REST call; the accepted token is not held back by its neighbours.
    expect(t.proxy.requests.filter((r) => r.authorization?.includes('junk'))).toHaveLength(2);
    expect(codes([await t.post(VIEWER, { authorization: `Bearer ${admin}` })])).toEqual(['ok']);
  });

  it('an address over its limit is refused before its body is read (429, Retry-After), and the refusals are not counted', async () => {
    const t = await stack({ anonymousRateLimit: 2 });
    expect(codes([await t.post('{ __typename }'), await t.post('{ __typename }'), await t.post('{ __typename }')])).toEqual([
      'ok',
      'ok',
      'RATE_LIMITED',
    ]);
    // A body announced but never sent: only a refusal that does not wait for it can answer.
    const { hostname, port } = new URL(t.gateway.url);
    const socket = connect(Number(port), hostname);
    const answer = new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (d) => {
        text += String(d);
        if (text.includes('\r\n\r\n') && text.includes('}')) resolve(text);
      });
      socket.on('error', reject);
    });
    socket.write('POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":');
    const raw = await answer;
    socket.destroy();
    expect(raw).toMatch(/^HTTP\/1\.1 429 /);
    expect(raw).toMatch(/\r\nretry-after: \d+\r\n/i);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as GqlResult;
    expect(body.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    expect(body.errors?.[0].message).toMatch(/at most 2 operations per minute per client address/);
    // GraphiQL and /health are no operations: still served.
    expect((await fetch(`${new URL(t.gateway.url).origin}/health`)).status).toBe(200);
  });

  it("the server itself refuses an address known over its limit: such requests never reach Yoga (nor the REST client); with CORS on, Yoga's refusal carries its headers", async () => {
    const t = await stack({ anonymousRateLimit: 1 });
    const reached = countYogaRequests(t.gateway);
    expect(codes([await t.post('{ __typename }'), await t.post('{ __typename }')])).toEqual(['ok', 'RATE_LIMITED']);
    expect(reached()).toBe(2);
    const refused = await Promise.all(Array.from({ length: 5 }, () => t.post('{ __typename }')));
    expect(refused.map((r) => r.status)).toEqual(Array(5).fill(429));
    expect(codes(refused)).toEqual(Array(5).fill('RATE_LIMITED'));
    expect(refused[0].body.errors?.[0].message).toMatch(/at most 1 operations per minute per client address/);
    expect(reached()).toBe(2);
    // Not an operation: served.
    expect((await fetch(`${new URL(t.gateway.url).origin}/health`)).status).toBe(200);

    const cors = await stack({ anonymousRateLimit: 1, corsOrigins: ['https://app.example'] });
    const origin = { origin: 'https://app.example' };
    expect(codes([await cors.post('{ __typename }', origin), await cors.post('{ __typename }', origin)])).toEqual(['ok', 'RATE_LIMITED']);
    const res = await fetch(cors.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...origin },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('a request target that is no URL (`GET //`, which node:http accepts) is answered while an address is over its limit, not a crash', async () => {
    const t = await stack({ anonymousRateLimit: 1 });
    expect(codes([await t.post('{ __typename }'), await t.post('{ __typename }')])).toEqual(['ok', 'RATE_LIMITED']);
    const port = Number(new URL(t.gateway.url).port);
    // A backslash in a path is refused before anything else (requestPath.ts: a URL reads it as `/`).
    for (const [target, status] of [
      ['//', 404],
      ['/\\', 400],
      ['//[', 404],
    ] as const) {
      const answer = await sendRaw(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(answer, target).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    }
    expect((await fetch(`${new URL(t.gateway.url).origin}/health`)).status).toBe(200);
  });

  it("the server's refusal of a large body ends its connection unread; a small one's keeps it", async () => {
    const clock = fakeClock();
    const t = await stack({ anonymousRateLimit: 1, clock });
    expect(codes([await t.post('{ __typename }'), await t.post('{ __typename }')])).toEqual(['ok', 'RATE_LIMITED']);
    const port = Number(new URL(t.gateway.url).port);
    const large = `{"query":"{ __typename }","variables":{"pad":"${'x'.repeat(1_000_000)}"}}`;
    const read = await bytesReadBy(port, async () => {
      const answer = sendRaw(
        port,
        `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${large.length}\r\n\r\n${large}`,
      );
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      clock.advance(1_000);
      const raw = await answer;
      expect(raw).toMatch(/^HTTP\/1\.1 429 /);
      expect(raw).toMatch(/\r\nconnection: close\r\n/i);
    });
    expect(read).toHaveLength(1);
    expect(read[0]).toBeLessThanOrEqual(2 * 64 * 1024);
    // A small body's refusal keeps the connection for the client's next request.
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let ended = false;
    socket.on('data', (d) => void (text += String(d)));
    socket.on('end', () => void (ended = true));
    const query = '{"query":"{ __typename }"}';
    socket.write(`POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${query.length}\r\n\r\n${query}`);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    clock.advance(1_000);
    while (!text.endsWith('}')) await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(text).toMatch(/^HTTP\/1\.1 429 /);
    expect(text).not.toMatch(/\r\nconnection: close\r\n/i);
    expect(ended).toBe(false);
    socket.destroy();
  });

  it("the server's refusal is written after a second (at most the Retry-After): a client that ignores Retry-After gets one a second per connection", async () => {
    const clock = fakeClock();
    const t = await stack({ anonymousRateLimit: 1, clock });
    expect(codes([await t.post('{ __typename }'), await t.post('{ __typename }')])).toEqual(['ok', 'RATE_LIMITED']);
    const res = await settlesAt(clock, t.post('{ __typename }'), 1000);
    expect(res.status).toBe(429);
    expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    // A client that leaves meanwhile: nothing is written, nothing breaks.
    const { hostname, port } = new URL(t.gateway.url);
    const socket = connect(Number(port), hostname);
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n{"query":"{ __typename }"}',
    );
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    socket.destroy();
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    clock.advance(1_000);
    expect((await fetch(`${new URL(t.gateway.url).origin}/health`)).status).toBe(200);
  });

  it('a token the upstream answered 401 for is counted as its address afterwards', async () => {
    const t = await stack({ anonymousRateLimit: 2, callerRateLimit: 100 });
    const junk = { authorization: 'Bearer junk' };
    // First: counted against the token and (not accepted yet) the address; then against the address only.
    expect(codes([await t.post(VIEWER, junk), await t.post(VIEWER, junk), await t.post('{ __typename }', junk)])).toEqual([
      'UNAUTHENTICATED',
      'UNAUTHENTICATED',
      'RATE_LIMITED',
    ]);
    expect(codes([await t.post('{ __typename }')])).toEqual(['RATE_LIMITED']);
  });
});

/**
 * How many requests went on past the HTTP server's own checks from now on: each one is registered
 * with the REST client (`rest.arrive`) just before Yoga gets it (src/gateway/app.ts).
 */
function countYogaRequests(gateway: { rest: { arrive: (...args: never[]) => unknown } }): () => number {
  const arrive = vi.spyOn(gateway.rest, 'arrive');
  return () => arrive.mock.calls.length;
}

describe('a result is its caller’s', () => {
  it('says no shared cache may keep it: private, no-store with a token, no-store without (GET and POST, no response cache)', async () => {
    const t = await stack({});
    const token = t.upstream.world.users.admin.token;
    const url = t.gateway.url!;
    const get = (headers: Record<string, string>) =>
      fetch(`${url}?query=${encodeURIComponent('{ __typename }')}`, {
        headers: { accept: 'application/json', 'x-graphql-yoga-csrf': '1', ...headers },
      });
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
    for (const send of [get, post]) {
      for (const [headers, expected] of [
        [{ authorization: `Bearer ${token}` }, 'private, no-store'],
        [{}, 'no-store'],
      ] as const) {
        const res = await send(headers);
        expect(await res.json()).toEqual({ data: { __typename: 'Query' } });
        expect(res.headers.get('cache-control')).toBe(expected);
      }
    }
    // Event streams too (Yoga's SSE, graphql-sse's): before, they said their own `no-cache`, which
    // lets a shared cache store a token's events.
    const streams = [
      (headers: Record<string, string>) =>
        fetch(`${url}?query=${encodeURIComponent('{ __typename }')}`, {
          headers: { accept: 'text/event-stream', 'x-graphql-yoga-csrf': '1', ...headers },
        }),
      (headers: Record<string, string>) =>
        fetch(`${url}/stream`, {
          method: 'POST',
          headers: { accept: 'text/event-stream', 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ query: '{ __typename }' }),
        }),
    ];
    for (const send of streams)
      for (const [headers, expected] of [
        [{ authorization: `Bearer ${token}` }, 'private, no-store'],
        [{}, 'no-store'],
      ] as const) {
        const res = await send(headers);
        expect(await res.text()).toContain('{"data":{"__typename":"Query"}}');
        expect([res.url, res.headers.get('content-type'), res.headers.get('cache-control')]).toEqual([
          res.url,
          expect.stringMatching(/^text\/event-stream/),
          expected,
        ]);
      }
    // What is not a GraphQL result says what its own plugin says (here nothing).
    expect((await fetch(`${url.replace(/\/graphql$/, '')}/metrics`)).headers.get('cache-control')).toBeNull();
  });
});
