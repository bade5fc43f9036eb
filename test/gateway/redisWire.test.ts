/**
 * Redis's wire misbehaving where a Redis itself would not (a proxy of the test's in front of a real
 * one): a reply far larger than any the gateway stores, and a connection that stops being read and
 * answered without being closed. Replicas are reached over real HTTP.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_REPLY_VALUES } from '../../src/gateway/redis.js';
import type { Logger } from '../../src/log.js';
import { readyReplica, startRedis, startReplica, stopAfterEach, waitFor, type TestRedis } from '../helpers/redis.js';
import { startRedisProxy, type RedisProxy } from '../helpers/redisProxy.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

const VIEWER = { query: '{ viewer { displayName } }' };
const COOL_DOWN_MS = 5000;

describe("Redis's wire misbehaving", () => {
  let redis: TestRedis;
  let proxy: RedisProxy;
  let upstream: TestUpstream;
  let admin: string;
  let now = 0;
  const warnings: string[] = [];
  const log: Logger = { debug() {}, info() {}, warn: (msg) => void warnings.push(msg), error() {} };
  const track = stopAfterEach();
  const replica = (options: Parameters<typeof startReplica>[1] = {}) =>
    readyReplica(track, upstream.url, { redisUrl: proxy.url, responseCacheTtlMs: 60_000, log, ...options });

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await startUpstream();
    admin = upstream.world.users.admin.token;
  });
  afterAll(async () => {
    await upstream?.stop();
    await redis?.stop();
  });
  beforeEach(async () => {
    warnings.splice(0);
    now = 0;
    await redis.client.flushall();
    proxy = track(await startRedisProxy(redis.port));
  });

  it('a reply larger than any the gateway stores drops its connection before it is read whole: a new one is used', async () => {
    // Its largest reply: two results of 64 KiB and a MiB.
    const r = await replica({ limits: { maxResponseBytes: 64 * 1024 } });
    const declared = 48 * 1024 * 1024;
    const reply = proxy.answerHuge(declared);
    const res = await r.post(VIEWER, admin);
    expect(res.json.data).toEqual({ viewer: { displayName: 'Ada admin' } });
    expect(res.json.extensions?.responseCache?.hit).not.toBe(true);
    // ioredis alone read it whole (and three times its size to join it), however large.
    await waitFor(() => reply.closed(), 'the connection closed by the gateway');
    expect(reply.sent()).toBeLessThan(declared / 2);
    await waitFor(() => r.gateway.redis!.isRedisReady(), 'Redis used again');
    await waitFor(async () => (await r.post(VIEWER, admin)).json.extensions?.responseCache?.hit === true, 'a hit');
    expect(warnings).toEqual([expect.stringMatching(/^redis: a reply over \d+ bytes, reconnecting/)]);
  });

  it('a reply nested deeper than any Redis answers drops its connection, the process up: a new one is used', async () => {
    const r = await replica();
    // 14 bytes a level: 400 KB, within the bound on a reply's bytes.
    proxy.answer(`${'*1\r\n'.repeat(100_000)}:1\r\n`);
    const res = await r.post(VIEWER, admin);
    expect(res.json.data).toEqual({ viewer: { displayName: 'Ada admin' } });
    expect(res.json.extensions?.responseCache?.hit).not.toBe(true);
    await waitFor(() => r.gateway.redis!.isRedisReady(), 'Redis used again');
    await waitFor(async () => (await r.post(VIEWER, admin)).json.extensions?.responseCache?.hit === true, 'a hit');
    expect(warnings).toEqual([expect.stringMatching(/^redis: a reply that cannot be read, reconnecting/)]);
  });

  it('a reply of more values than any the gateway reads drops its connection before the parser makes them all', async () => {
    const r = await replica();
    // Empty strings, 6 bytes each (an object each once parsed): 1.4 million of them, 8.4 MB within
    // the bound on a reply's bytes, ran a 128 MB heap out.
    const values = 2 * MAX_REPLY_VALUES;
    proxy.answer(`*${values}\r\n${'$0\r\n\r\n'.repeat(values)}`);
    const res = await r.post(VIEWER, admin);
    expect(res.json.data).toEqual({ viewer: { displayName: 'Ada admin' } });
    expect(res.json.extensions?.responseCache?.hit).not.toBe(true);
    await waitFor(() => r.gateway.redis!.isRedisReady(), 'Redis used again');
    await waitFor(async () => (await r.post(VIEWER, admin)).json.extensions?.responseCache?.hit === true, 'a hit');
    expect(warnings).toEqual([expect.stringMatching(/^redis: a reply of over \d+ values, reconnecting/)]);
  });

  it('a connection nothing answers on any more, left open, is replaced once a probe times out on it', async () => {
    const r = await replica({ redis: { commandTimeoutMs: 300, waitMs: 20, coolDownMs: COOL_DOWN_MS, now: () => now } });
    const connections = proxy.connections();
    proxy.wedge();
    expect((await r.post(VIEWER, admin)).json.data).toEqual({ viewer: { displayName: 'Ada admin' } });
    await waitFor(() => r.gateway.redis!.breaker().open, 'the breaker open');
    // Each cool-down over starts a probe: on the old connection, they all timed out, for good.
    await waitFor(() => {
      if (!r.gateway.redis!.breaker().probing) now += COOL_DOWN_MS;
      return r.gateway.redis!.isRedisReady();
    }, 'Redis used again');
    expect(proxy.connections()).toBe(connections + 1);
    await waitFor(async () => (await r.post(VIEWER, admin)).json.extensions?.responseCache?.hit === true, 'a hit');
    expect(warnings.filter((w) => w.startsWith('redis:'))).toHaveLength(1);
  }, 40_000);
});
