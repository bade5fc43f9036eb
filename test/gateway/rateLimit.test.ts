/**
 * The per-caller rate limit in process (no Redis): each token gets its operations per minute; the
 * one over the limit is RATE_LIMITED with `retryAfter` and HTTP 429 + `Retry-After`, before any REST
 * call; other tokens are spared. With a Redis that cannot be reached, the fail mode decides: each
 * replica counts alone (open), or operations are refused (closed); a replica's own count holds what
 * Redis counted too, so Redis failing mid-window gives no caller a second limit. Windows read the
 * monotonic clock: a wall-clock step neither locks a caller out nor gives it a fresh budget.
 */
import { queryObjects } from 'node:v8';
import { GraphQLError } from 'graphql';
import { request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startUpstream } from '../helpers/upstream.js';
import { listening, readyReplica, startRedis, startReplica, stopAfterEach, waitFor } from '../helpers/redis.js';

const VIEWER = '{ viewer { displayName } }';

/** The status of an anonymous `{ __typename }` from `address` (as the one proxy hop trusted says it). */
async function statusFrom(url: string, address: string): Promise<number> {
  // A connection of its own (`reset`): on a kept-alive one, a loaded run saw a POST reset
  // (ECONNRESET) where the server had closed the socket as the client reused it.
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ query: '{ __typename }' }),
    reset: true,
  });
  await res.body.dump();
  return res.statusCode;
}

describe('caller rate limit (in process)', () => {
  const track = stopAfterEach();
  afterEach(() => void vi.restoreAllMocks());

  it('refuses the operation over the limit with RATE_LIMITED, retryAfter and Retry-After, and no REST call', async () => {
    const upstream = track(await startUpstream());
    const replica = track(startReplica(upstream.url, { callerRateLimit: 3 }));
    const admin = upstream.world.users.admin.token;
    for (let i = 0; i < 3; i++) {
      const ok = await replica.post({ query: VIEWER }, admin);
      expect(ok.json.data?.viewer.displayName).toBe('Ada admin');
    }
    replica.calls.splice(0);
    const refused = await replica.post({ query: VIEWER }, admin);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.json.errors?.[0].extensions).toEqual({ code: 'RATE_LIMITED', retryAfter });
    expect(refused.json.data ?? null).toBeNull();
    expect(replica.calls).toEqual([]);
    // graphql-sse's endpoint counts too.
    const stream = await replica.gateway.yoga.fetch('http://gateway.test/graphql/stream', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query: VIEWER }),
    });
    expect(await stream.text()).toMatch(/RATE_LIMITED/);
    expect(replica.calls).toEqual([]);

    // Another token has its own budget.
    const other = await replica.post({ query: VIEWER }, upstream.world.users.read.token);
    expect(other.json.data?.viewer.displayName).toBe('Ada read');
  });

  it('holds at most its windows in process, the one that ends first going past them (each count scanned them all past 10,000)', async () => {
    const upstream = track(await startUpstream());
    const options = { anonymousRateLimit: 2, trustProxyHops: 1, rateLimitWindows: 50 } as const;
    const { url } = track(await listening(startReplica(upstream.url, options))).gateway;
    const from = (address: string) => statusFrom(url, address);
    // The first address at its limit (not over it), then 60 more addresses, one operation each.
    expect([await from('10.0.0.1'), await from('10.0.0.1')]).toEqual([200, 200]);
    for (let i = 2; i < 62; i++) expect(await from(`10.0.1.${i}`)).toBe(200);
    // Its window went with the 51st: its operation starts a new one (it was refused, and the
    // windows grew with every address seen within the minute).
    expect(await from('10.0.0.1')).toBe(200);
    // The last one's window is still counted.
    expect([await from('10.0.1.61'), await from('10.0.1.61')]).toEqual([200, 429]);
  });

  it('keeps a refusal’s message for a caller known over its limit, not its error (2 KB with its stack)', async () => {
    const upstream = track(await startUpstream());
    const options = { anonymousRateLimit: 1, trustProxyHops: 1 } as const;
    const { url } = track(await listening(startReplica(upstream.url, options))).gateway;
    const from = (address: string) => statusFrom(url, address);
    const overLimit = async (first: number, count: number) => {
      for (let i = first; i < first + count; i++) {
        const address = `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`;
        expect([await from(address), await from(address)]).toEqual([200, 429]);
      }
    };
    await overLimit(0, 50); // warms up
    // Counted after a full collection: the errors still referenced.
    const before = queryObjects(GraphQLError, { format: 'count' });
    await overLimit(50, 300);
    // Its message is kept, not the error that refused it, with its stack (about 2 KB: 10,000
    // addresses over the anonymous limit kept 22 MB).
    expect(queryObjects(GraphQLError, { format: 'count' }) - before).toBeLessThan(100);
    // 700 requests one after another: at a load average of 10 they took over 20 s.
  }, 60_000);

  it('a wall-clock step neither locks a caller out for the step nor gives it a fresh budget', async () => {
    const upstream = track(await startUpstream());
    const redis = track(await startRedis());
    const wallClock = Date.now.bind(Date);
    for (const redisUrl of [undefined, redis.url]) {
      vi.restoreAllMocks();
      const options = { anonymousRateLimit: 2, trustProxyHops: 1, redisUrl } as const;
      const replica = track(await listening(startReplica(upstream.url, options)));
      if (redisUrl) await waitFor(() => !!replica.gateway.redis?.isRedisReady(), 'Redis ready');
      const from = (address: string) =>
        fetch(replica.gateway.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
          body: JSON.stringify({ query: '{ __typename }' }),
        }).then(async (res) => (await res.body?.cancel(), { status: res.status, retryAfter: Number(res.headers.get('retry-after')) }));
      const address = redisUrl ? '10.9.0.2' : '10.9.0.1';
      expect((await from(address)).status).toBe(200);
      expect((await from(address)).status).toBe(200);
      expect((await from(address)).status).toBe(429);
      // Stepped back 10 minutes (NTP, a resumed VM): refused for what is left of the minute, not
      // for 11 (Retry-After: 659, whatever Redis counted).
      vi.spyOn(Date, 'now').mockImplementation(() => wallClock() - 600_000);
      const back = await from(address);
      expect(back.status).toBe(429);
      expect(back.retryAfter).toBeLessThanOrEqual(60);
      // Stepped forward 2 hours: still the same window, not a fresh budget.
      vi.spyOn(Date, 'now').mockImplementation(() => wallClock() + 7_200_000);
      const forward = await from(address);
      expect(forward.status).toBe(429);
      expect(forward.retryAfter).toBeLessThanOrEqual(60);
    }
  });

  it("Redis's clock stepped back an hour mid-window: a caller is refused for what is left of the minute, not for the hour", async () => {
    const upstream = track(await startUpstream());
    const redis = track(await startRedis());
    const replica = await readyReplica(track, upstream.url, { anonymousRateLimit: 2, trustProxyHops: 1, redisUrl: redis.url });
    const address = '10.9.0.3';
    expect(await statusFrom(replica.gateway.url, address)).toBe(200);
    // Redis keeps a key's expiry as a time of its wall clock: stepped back an hour (NTP, a resumed
    // VM), the window's key has an hour more to live than the window itself, as set here.
    const [key] = await redis.client.keys('dg:rl:*');
    await redis.client.pexpire(key, (await redis.client.pttl(key)) + 3_600_000);
    expect(await statusFrom(replica.gateway.url, address)).toBe(200);
    const refused = await fetch(replica.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    await refused.body?.cancel();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // Counted still: the step gave no fresh budget either.
    expect(Number(await redis.client.get(key))).toBe(3);
    expect(await redis.client.pttl(key)).toBeLessThanOrEqual(60_000);
  });

  it('with Redis unreachable: fail-open counts in the replica alone, fail-closed refuses operations', async () => {
    const upstream = track(await startUpstream());
    const dead = 'redis://127.0.0.1:1';
    const token = upstream.world.users.admin.token;
    // Each replica allows the limit: a token's third operation, an address's third anonymous one, are over it.
    for (const [caller, query] of [
      [token, VIEWER],
      [null, '{ __typename }'],
    ] as const) {
      const options = { callerRateLimit: 2, anonymousRateLimit: 2, redisUrl: dead, callerRateLimitFailMode: 'open' } as const;
      const open = track(await listening(startReplica(upstream.url, options)));
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await open.post({ query }, caller)).status);
      expect(statuses).toEqual([200, 200, 429]);
    }

    const replica = track(startReplica(upstream.url, { callerRateLimit: 1, redisUrl: dead, callerRateLimitFailMode: 'closed' }));
    const refused = await replica.post({ query: VIEWER }, token);
    expect(refused.status).toBe(429);
    expect(refused.json.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 1 });
    expect(replica.calls).toEqual([]);
  });

  /**
   * Two replicas (limit 4 per token, fail-open) sharing a Redis, and `send`, which counts the
   * operations let through; two of the admin's are counted in Redis on each.
   */
  const fourCounted = async (redisOptions: { commandTimeoutMs?: number } = {}) => {
    const upstream = track(await startUpstream());
    const redis = track(await startRedis());
    const token = upstream.world.users.admin.token;
    const options = { callerRateLimit: 4, redisUrl: redis.url, callerRateLimitFailMode: 'open', redis: redisOptions } as const;
    const [a, b] = [
      track(await listening(startReplica(upstream.url, options))),
      track(await listening(startReplica(upstream.url, options))),
    ];
    await waitFor(() => !!a.gateway.redis?.isRedisReady() && !!b.gateway.redis?.isRedisReady(), 'Redis ready');
    let through = 0;
    const send = async (r: typeof a) => void ((await r.post({ query: VIEWER }, token)).status === 200 && through++);
    for (const r of [a, b, a, b]) await send(r);
    expect(through).toBe(4);
    return { redis, a, b, send, through: () => through };
  };

  it('Redis frozen mid-window (fail-open): each replica allows the limit in all, what Redis counted included', async () => {
    const { redis, a, b, send, through } = await fourCounted({ commandTimeoutMs: 300 });
    expect(await redis.client.keys('dg:rl:*')).toHaveLength(1);
    redis.freeze(true);
    try {
      // Counted in each replica alone: each has let two through already, so two more each at most.
      for (let i = 0; i < 4; i++) for (const r of [a, b]) await send(r);
    } finally {
      redis.freeze(false);
    }
    expect(through()).toBe(2 * 4);
  });

  it('Redis losing its counts mid-window (fail-open): each replica allows the limit in all, what Redis counted included', async () => {
    const { redis, a, b, send, through } = await fourCounted();
    // Redis loses the count before each operation, as under `maxmemory` with `volatile-ttl` (these
    // minute-long keys are the first to go), or flushed, or restarted without persistence.
    for (let i = 0; i < 4; i++)
      for (const r of [a, b]) {
        await redis.client.flushall();
        await send(r);
      }
    expect(through()).toBe(2 * 4);
  });
});
