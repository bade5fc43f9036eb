/**
 * Redis trouble (issue 18): a frozen Redis (SIGSTOP: connections stay open, nothing answers) costs
 * the requests in flight a short wait (not the command timeout), then the first command's timeout
 * opens the breaker in the Redis handle skips Redis for a cool-down (cache
 * miss, the rate limit's fail mode, APQ from process memory) and logs one warning; it probes Redis
 * again only once the cool-down has passed on its (injected, else monotonic) clock, whatever the
 * wall clock does. `/ready` stays 200 while Redis is down unless Redis is required.
 */
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/log.js';
import { startStack } from '../helpers/gateway.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';
import { listening, startRedis, startReplica, stopAfterEach, waitFor, type Replica, type TestRedis } from '../helpers/redis.js';

const SPACE = `query Space($spaceId: String!) { space(spaceId: $spaceId) { title } }`;
const COOL_DOWN_MS = 5000;

/** Calls of the commands a request starts with (the rate limit's script, lookups), not the client's PING. */
async function requestCommands(redis: TestRedis): Promise<number> {
  const info = await redis.client.info('commandstats');
  let n = 0;
  for (const [, name, calls] of info.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm))
    if (/^(eval|evalsha|get|mget)$/.test(name)) n += Number(calls);
  return n;
}

describe('Redis frozen or gone', () => {
  let redis: TestRedis;
  let upstream: TestUpstream;
  let spaceId: string;
  let admin: string;
  let now = 0;
  const warnings: string[] = [];
  const log: Logger = { debug() {}, info() {}, warn: (msg) => void warnings.push(msg), error() {} };
  const track = stopAfterEach();
  const replica = (options: Parameters<typeof startReplica>[1] = {}) =>
    track(
      startReplica(upstream.url, {
        redisUrl: redis.url,
        log,
        redis: { commandTimeoutMs: 300, coolDownMs: COOL_DOWN_MS, now: () => now },
        ...options,
      }),
    );
  const ready = async (r: Replica) => {
    const res = await r.gateway.yoga.fetch('http://gateway.test/ready');
    return { status: res.status, body: (await res.json()) as { checks: Record<string, string> } };
  };

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await startUpstream();
    admin = upstream.world.users.admin.token;
    spaceId = (await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Outage' })).body.id;
  });
  afterAll(async () => {
    await upstream?.stop();
    await redis?.stop();
  });
  beforeEach(() => {
    warnings.splice(0);
    now = 0;
  });
  afterEach(() => void vi.restoreAllMocks());

  it('a frozen Redis costs one timeout, not one per command: later requests skip it until the cool-down has passed', async () => {
    const r = replica({ callerRateLimit: 1000, responseCacheTtlMs: 60_000 });
    await waitFor(() => r.gateway.redis!.isRedisReady());
    expect((await r.post({ query: SPACE, variables: { spaceId } }, admin)).json.data?.space.title).toBe('Outage');
    // Stored (the store writes after the response): nothing of the warm-up reaches Redis later.
    await waitFor(async () => (await r.post({ query: SPACE, variables: { spaceId } }, admin)).json.extensions?.responseCache.hit === true);
    await redis.client.config('RESETSTAT');
    redis.freeze(true);
    try {
      for (let i = 0; i < 8; i++) {
        const res = await r.post({ query: SPACE, variables: { spaceId } }, admin);
        expect(res.json.data?.space.title).toBe('Outage');
        expect(res.json.extensions?.responseCache?.hit).not.toBe(true);
      }
      expect(r.gateway.redis!.isRedisReady()).toBe(false);
      // No request waited for it: the first command's own timeout opens the breaker.
      await waitFor(() => r.gateway.redis!.breaker().open);
    } finally {
      redis.freeze(false);
    }
    // One warning for the outage, not one per request or command.
    expect(warnings.filter((w) => w.startsWith('redis:'))).toHaveLength(1);
    // Thawed, but the clock has not moved: the breaker still skips Redis (no probe yet).
    await redis.client.ping();
    expect(r.gateway.redis!.isRedisReady()).toBe(false);
    now += COOL_DOWN_MS;
    await waitFor(() => r.gateway.redis!.isRedisReady());
    // The probe answered after every command sent on that connection: only the first request's
    // first command reached Redis while it was frozen.
    expect(await requestCommands(redis)).toBe(1);
    // Back in use: results are cached in Redis again.
    await r.post({ query: SPACE, variables: { spaceId } }, admin);
    expect((await r.post({ query: SPACE, variables: { spaceId } }, admin)).json.extensions?.responseCache.hit).toBe(true);
  });

  it('a request waits for Redis a short bound, not the command timeout; an answer after it clears the slow mark, with no cool-down', async () => {
    // A command timeout far past the test's own: a request waiting for it could not finish.
    const r = replica({
      callerRateLimit: 1000,
      responseCacheTtlMs: 60_000,
      redis: { commandTimeoutMs: 60_000, waitMs: 20, coolDownMs: COOL_DOWN_MS, now: () => now },
    });
    await waitFor(() => r.gateway.redis!.isRedisReady());
    await waitFor(async () => (await r.post({ query: SPACE, variables: { spaceId } }, admin)).json.extensions?.responseCache.hit === true);
    await redis.client.config('RESETSTAT');
    redis.freeze(true);
    try {
      for (let i = 0; i < 4; i++) {
        const res = await r.post({ query: SPACE, variables: { spaceId } }, admin);
        expect(res.json.data?.space.title).toBe('Outage');
        expect(res.json.extensions?.responseCache?.hit).not.toBe(true);
      }
      // Slow, not open: skipped while its first command is unanswered, and no warning yet.
      expect(r.gateway.redis!.isRedisReady()).toBe(false);
      expect(r.gateway.redis!.isRedisReady({ evenIfSlow: true })).toBe(true);
      expect(r.gateway.redis!.breaker().open).toBe(false);
    } finally {
      redis.freeze(false);
    }
    // Its answer comes: Redis is used again at once, on the same clock (no cool-down passed).
    await waitFor(() => r.gateway.redis!.isRedisReady());
    expect(await requestCommands(redis)).toBe(1);
    expect(warnings.filter((w) => w.startsWith('redis:'))).toEqual([]);
    expect((await r.post({ query: SPACE, variables: { spaceId } }, admin)).json.extensions?.responseCache.hit).toBe(true);
  });

  it('an APQ registration with Redis frozen is answered: its quota count waits a short bound, its store the command timeout', async () => {
    const r = replica({ redis: { commandTimeoutMs: 300, waitMs: 20, coolDownMs: COOL_DOWN_MS, now: () => now } });
    await waitFor(() => r.gateway.redis!.isRedisReady());
    const query = '{ viewer { displayName } }';
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    redis.freeze(true);
    try {
      // Waiting for the command timeout, the registration would outlast the test.
      const res = await r.post({ query, extensions: { persistedQuery: { version: 1, sha256Hash } } }, admin);
      expect(res.json.errors).toBeUndefined();
      expect(res.json.data?.viewer.displayName).toEqual(expect.any(String));
      // Kept in process memory meanwhile: the hash alone is answered.
      const again = await r.post({ extensions: { persistedQuery: { version: 1, sha256Hash } } }, admin);
      expect(again.json.data?.viewer.displayName).toEqual(res.json.data?.viewer.displayName);
    } finally {
      redis.freeze(false);
    }
  });

  it('a command that throws while it is built is a rejection of its request, not a throw (nor a slow mark)', async () => {
    const r = replica();
    await waitFor(() => r.gateway.redis!.isRedisReady());
    const handle = r.gateway.redis!;
    let asked: Promise<unknown> | undefined;
    expect(() => {
      asked = handle.ask(() => {
        throw new TypeError('Do not know how to serialize a BigInt');
      });
    }).not.toThrow();
    await expect(asked).rejects.toThrow(TypeError);
    expect(handle.isRedisReady()).toBe(true);
  });

  it('a write while Redis is frozen does not let the results cached before it come back with Redis, on any replica', async () => {
    const UPDATE = 'mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { title } } }';
    const writer = replica({ responseCacheTtlMs: 60_000 });
    const other = replica({ responseCacheTtlMs: 60_000 });
    await waitFor(() => writer.gateway.redis!.isRedisReady() && other.gateway.redis!.isRedisReady());
    const read = (r: Replica) => r.post({ query: SPACE, variables: { spaceId } }, admin);
    await read(writer);
    await waitFor(async () => (await read(other)).json.extensions?.responseCache.hit === true);
    redis.freeze(true);
    try {
      await read(writer);
      await waitFor(() => writer.gateway.redis!.breaker().open);
      // The write succeeds at the REST API; its invalidation cannot reach Redis.
      const written = await writer.post({ query: UPDATE, variables: { input: { spaceId, title: 'Written during the outage' } } }, admin);
      expect(written.json.data?.updateSpace.space.title).toBe('Written during the outage');
    } finally {
      redis.freeze(false);
    }
    // Redis is back with what it held. The writer renews the global generation as soon as it sees
    // Redis again (its cool-down over), without a request of its own; the other replica, which
    // never saw the outage, reads only after that.
    now += COOL_DOWN_MS;
    await waitFor(() => writer.gateway.redis!.isRedisReady());
    await waitFor(
      async () => (await read(other)).json.data?.space.title === 'Written during the outage',
      'the write seen on the other replica',
    );
    const seen = await read(writer);
    expect(seen.json.data?.space.title).toBe('Written during the outage');
    await upstream.api.patch(`/spaces/${spaceId}`, { title: 'Outage' });
  }, 40_000);

  it('a probe that times out keeps the breaker open for another cool-down', async () => {
    const r = replica({ responseCacheTtlMs: 60_000 });
    await waitFor(() => r.gateway.redis!.isRedisReady());
    redis.freeze(true);
    try {
      await r.post({ query: SPACE, variables: { spaceId } }, admin);
      expect(r.gateway.redis!.isRedisReady()).toBe(false);
      await waitFor(() => r.gateway.redis!.breaker().open);
      now += COOL_DOWN_MS;
      // The probe goes out and times out (Redis is still frozen).
      expect(r.gateway.redis!.isRedisReady()).toBe(false);
      await waitFor(() => r.gateway.redis!.breaker().probing === false);
      now += COOL_DOWN_MS - 1;
      expect(r.gateway.redis!.isRedisReady()).toBe(false);
      expect(r.gateway.redis!.breaker().probing).toBe(false);
    } finally {
      redis.freeze(false);
    }
    now += 1;
    await waitFor(() => r.gateway.redis!.isRedisReady());
    expect(warnings.filter((w) => w.startsWith('redis:'))).toHaveLength(1);
  });

  it('a wall-clock step back while the breaker is open does not keep Redis skipped for the step', async () => {
    const wallClock = Date.now.bind(Date);
    // Before the replica starts: its code may keep `Date.now` itself.
    let step = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => wallClock() + step);
    // The process's clocks (no `now` injected).
    const options = {
      redisUrl: redis.url,
      log,
      redisRequired: true,
      callerRateLimit: 1000,
      responseCacheTtlMs: 60_000,
      redis: { commandTimeoutMs: 300, coolDownMs: 3000 },
    };
    const r = track(await listening(startReplica(upstream.url, options)));
    await waitFor(() => r.gateway.redis!.isRedisReady(), 'Redis ready');
    redis.freeze(true);
    try {
      // The rate limit's and the cache's commands time out: the breaker opens.
      await r.post({ query: SPACE, variables: { spaceId } }, admin);
      await waitFor(() => warnings.some((w) => w.includes('not answering')), 'breaker open');
      // Stepped back 10 minutes (NTP, a resumed VM) within its cool-down, before any probe.
      step = -600_000;
    } finally {
      redis.freeze(false);
    }
    // Used again once the cool-down (3 s) has passed, not 10 minutes later.
    await waitFor(async () => (await fetch(new URL('/ready', r.gateway.url))).status === 200, 'Redis used again');
    expect(r.gateway.redis!.isRedisReady()).toBe(true);
  }, 40_000);

  it('/ready stays 200 while Redis is down (reported, not counted), unless Redis is required', async () => {
    const optional = replica();
    const required = replica({ redisRequired: true });
    await waitFor(() => optional.gateway.redis!.isRedisReady() && required.gateway.redis!.isRedisReady());
    expect(await ready(optional)).toEqual({ status: 200, body: expect.objectContaining({ checks: { upstream: 'ok', redis: 'ok' } }) });
    expect((await ready(required)).status).toBe(200);
    await redis.kill();
    try {
      await waitFor(() => !optional.gateway.redis!.isRedisReady() && !required.gateway.redis!.isRedisReady());
      await waitFor(async () => (await ready(optional)).body.checks.redis === 'failing');
      expect((await ready(optional)).status).toBe(200);
      await waitFor(async () => (await ready(required)).status === 503);
      expect((await ready(required)).body.checks).toEqual({ upstream: 'ok', redis: 'failing' });
      // Queries still succeed on both.
      for (const r of [optional, required])
        expect((await r.post({ query: SPACE, variables: { spaceId } }, admin)).json.data?.space.title).toBe('Outage');
    } finally {
      await redis.restart();
    }
  });

  it('a frozen Redis makes /ready 503 when Redis is required', async () => {
    const required = replica({ redisRequired: true, responseCacheTtlMs: 60_000 });
    await waitFor(() => required.gateway.redis!.isRedisReady());
    redis.freeze(true);
    try {
      await required.post({ query: SPACE, variables: { spaceId } }, admin);
      await waitFor(async () => (await ready(required)).status === 503);
      expect((await ready(required)).body.checks.redis).toBe('failing');
    } finally {
      redis.freeze(false);
    }
  });
});

describe('a client that leaves at once', () => {
  it('a request dropped right after it was sent leaves the gateway alive (response cache on Redis)', async () => {
    const redis = await startRedis();
    const t = await startStack({ redisUrl: redis.url, responseCacheTtlMs: 60_000 });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await waitFor(() => t.gateway.redis!.isRedisReady());
      const spaceId = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Left' })).body.id;
      const body = JSON.stringify({ query: SPACE, variables: { spaceId } });
      const { hostname, port } = new URL(t.gateway.url);
      // Anonymous, its socket closed as soon as the request is written: the operation reaches its
      // REST read after its client left (the cache's Redis lookup comes first), and that read is
      // abandoned before anyone waits for it.
      for (let i = 0; i < 5; i++)
        await new Promise<void>((resolve) => {
          const socket = connect(Number(port), hostname, () =>
            socket.end(
              `POST /graphql HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
              () => {
                socket.destroy();
                resolve();
              },
            ),
          );
          socket.on('error', () => resolve());
        });
      // Served after them (a full round trip through the gateway): their reads have settled.
      expect((await t.gql(SPACE, { spaceId })).data).toEqual({ space: { title: 'Left' } });
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await t.stop();
      await redis.stop();
    }
  });
});
