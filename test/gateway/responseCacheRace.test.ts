/**
 * The response cache under a race: a read whose REST answer predates a write, and that ends (and
 * would be stored) after the write's invalidation, is not kept, on two replicas sharing Redis and
 * on one replica in process; nor is a read that started after the write but took, by single-flight,
 * the answer of one started before it; nor, for a while, a read after a write that got no answer,
 * which the REST API may make later. A proxy holds a read's answer, or a write, until the test
 * releases it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SharedReads } from '../../src/rest/singleFlight.js';
import { addMember, createUser } from '../../src/upstream/bootstrap.js';
import { holdNextRead, startSwitchProxy, type SwitchProxy } from '../helpers/switchProxy.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';
import { listening, startRedis, startReplica, stopAfterEach, waitFor, type Replica, type TestRedis } from '../helpers/redis.js';

const SPACE = `query Space($spaceId: String!) { space(spaceId: $spaceId) { title } }`;
const SPACE_AND_VISIBILITY = `query SpaceAndVisibility($spaceId: String!) { space(spaceId: $spaceId) { title visibility } }`;
const RENAME = 'mutation Rename($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { title } } }';

/** Redis, the embedded upstream and a switch proxy in front of it, started once for a describe block. */
function startedOnce(take: (stack: { redis: TestRedis; upstream: TestUpstream; proxy: SwitchProxy }) => void): void {
  let stack: { redis: TestRedis; upstream: TestUpstream; proxy: SwitchProxy } | undefined;
  beforeAll(async () => {
    const redis = await startRedis();
    const upstream = await startUpstream();
    stack = { redis, upstream, proxy: await startSwitchProxy(upstream.url) };
    take(stack);
  });
  afterAll(async () => {
    await stack?.proxy.stop();
    await stack?.upstream.stop();
    await stack?.redis.stop();
  });
}

describe('response cache: a read that overlaps a write', () => {
  let redis: TestRedis;
  let upstream: TestUpstream;
  let proxy: SwitchProxy;
  let admin: string;
  let spaceId: string;
  const track = stopAfterEach();

  startedOnce((stack) => {
    ({ redis, upstream, proxy } = stack);
    admin = upstream.world.users.admin.token;
  });
  beforeEach(async () => {
    await redis.client.flushall();
    proxy.holdAnswer = () => undefined;
    spaceId = (await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Before' })).body.id;
  });

  const replica = (upstreamUrl: string, shared: boolean) =>
    listening(track(startReplica(upstreamUrl, { responseCacheTtlMs: 60_000, ...(shared ? { redisUrl: redis.url } : {}) })));
  const read = (r: Replica) => r.post({ query: SPACE, variables: { spaceId } }, admin);
  const rename = (r: Replica, title: string) => r.post({ query: RENAME, variables: { input: { spaceId, title } } }, admin);

  /**
   * `reader` reads the space; its GET's answer (the title before) is held until `writer` has renamed
   * it, then delivered. The reader's next read, and the writer's, must see the write.
   */
  async function race(reader: Replica, writer: Replica) {
    const { held, release } = holdNextRead(proxy, spaceId);
    const slow = read(reader);
    await held; // the upstream answered the read: the title before
    const renamed = await rename(writer, 'After');
    expect(renamed.json.errors).toBeUndefined();
    release();
    expect((await slow).json.data?.space.title).toBe('Before');

    const next = await read(reader);
    expect(next.json.data?.space.title).toBe('After');
    expect(next.json.extensions?.responseCache.hit).toBe(false);
    expect((await read(writer)).json.data?.space.title).toBe('After');
  }

  it('two replicas on one Redis: the write on A is not undone by the read B stores after it', async () => {
    const a = await replica(upstream.url, true);
    const b = await replica(proxy.url, true);
    await waitFor(() => !!a.gateway.redis?.isRedisReady() && !!b.gateway.redis?.isRedisReady(), 'Redis ready');
    await race(b, a);
  });

  it("one replica in process: the caller's own write is not undone by its read in flight", async () => {
    const one = await replica(proxy.url, false);
    await race(one, one);
  });
});

describe('response cache: a read that joins one in flight from before a write', () => {
  let redis: TestRedis;
  let upstream: TestUpstream;
  let proxy: SwitchProxy;
  const track = stopAfterEach();

  startedOnce((stack) => ({ redis, upstream, proxy } = stack));

  it('the caller renames on A, then reads on B, where its read joins one B started before: that result is not stored', async () => {
    const admin = upstream.world.users.admin.token;
    const spaceId = (await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Before' })).body.id;
    const replica = (url: string) => listening(track(startReplica(url, { responseCacheTtlMs: 60_000, redisUrl: redis.url })));
    const a = await replica(upstream.url);
    const b = await replica(proxy.url);
    await waitFor(() => !!a.gateway.redis?.isRedisReady() && !!b.gateway.redis?.isRedisReady(), 'Redis ready');

    const { held, release } = holdNextRead(proxy, spaceId);
    // The reads of the space on either replica, as single-flight sees them (joined or not).
    const reads = vi.spyOn(SharedReads.prototype, 'read');
    const readsOfSpace = () => reads.mock.calls.filter(([, req]) => req.url.endsWith(`/spaces/${spaceId}`)).length;
    try {
      const first = b.post({ query: SPACE, variables: { spaceId } }, admin);
      await held; // B's read has the title before
      const renamed = await a.post({ query: RENAME, variables: { input: { spaceId, title: 'After' } } }, admin);
      expect(renamed.json.errors).toBeUndefined();
      // Another query, looked up after the write: its read of the space joins B's read in flight.
      const joined = b.post({ query: SPACE_AND_VISIBILITY, variables: { spaceId } }, admin);
      await waitFor(() => readsOfSpace() === 2, 'the second read joined');
      release();
      expect((await first).json.data?.space.title).toBe('Before');
      expect((await joined).json.data?.space.title).toBe('Before');
      expect(proxy.requests.filter((r) => r.method === 'GET' && r.url.endsWith(`/spaces/${spaceId}`))).toHaveLength(1);
    } finally {
      reads.mockRestore();
    }
    const next = await b.post({ query: SPACE_AND_VISIBILITY, variables: { spaceId } }, admin);
    expect(next.json.data?.space.title).toBe('After');
    expect(next.json.extensions?.responseCache.hit).toBe(false);
  });
});

describe('response cache: a write that got no answer', () => {
  let redis: TestRedis;
  let upstream: TestUpstream;
  let proxy: SwitchProxy;
  const track = stopAfterEach();

  startedOnce((stack) => ({ redis, upstream, proxy } = stack));
  beforeEach(async () => {
    await redis.client.flushall();
    proxy.delay = () => 0;
  });

  /** A replica whose REST calls give up after 300 ms without an answer; over Redis when `shared`. */
  const replica = (url: string, shared: boolean) =>
    listening(
      track(
        startReplica(url, {
          responseCacheTtlMs: 60_000,
          rest: { headersTimeoutMs: 300, retries: 0 },
          ...(shared ? { redisUrl: redis.url } : {}),
        }),
      ),
    );
  /** Holds every request of `method` to `path` (before the upstream sees it) until `release()`. */
  const holdWrites = (method: string, path: string) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    proxy.delay = (p, m) => (p === path && m === method ? released : 0);
    return release;
  };

  it('renamed after the gateway gave up on it: no read of before is kept meanwhile (in process)', async () => {
    const admin = upstream.world.users.admin.token;
    const spaceId = (await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Before' })).body.id;
    const one = await replica(proxy.url, false);
    const read = () => one.post({ query: SPACE, variables: { spaceId } }, admin);
    const release = holdWrites('PATCH', `/v1/spaces/${spaceId}`);
    const renamed = await one.post({ query: RENAME, variables: { input: { spaceId, title: 'After' } } }, admin);
    expect(renamed.json.errors?.[0].extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstream: { method: 'PATCH' } });
    expect(proxy.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1); // never retried
    expect((await read()).json.data?.space.title).toBe('Before');
    release(); // the write is made now
    await waitFor(async () => (await upstream.api.get(`/spaces/${spaceId}`)).body.title === 'After', 'the write made');
    const after = await read();
    expect(after.json.data?.space.title).toBe('After');
    expect(proxy.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
  });

  it('a write never sent (connection refused) keeps nothing from being stored after it', async () => {
    const admin = upstream.world.users.admin.token;
    const spaceId = (await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Steady' })).body.id;
    const one = await replica(proxy.url, false);
    const read = () => one.post({ query: SPACE, variables: { spaceId } }, admin);
    await proxy.goAway();
    try {
      const refused = await one.post({ query: RENAME, variables: { input: { spaceId, title: 'Never' } } }, admin);
      expect(refused.json.errors?.[0].extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstream: { method: 'PATCH' } });
      expect(refused.json.errors?.[0].message).not.toMatch(/may have been made/);
    } finally {
      await proxy.comeBack();
    }
    expect((await read()).json.extensions?.responseCache).toMatchObject({ hit: false, didCache: true });
    const again = await read();
    expect(again.json.data?.space.title).toBe('Steady');
    expect(again.json.extensions?.responseCache.hit).toBe(true);
  });

  it('a member removed after the gateway gave up on it: no read of theirs is kept meanwhile, on any replica', async () => {
    const admin = upstream.world.users.admin.token;
    const user = createUser(upstream.upstream.db, upstream.clock, { displayName: 'Leaving', email: 'leaving@acme.test' });
    addMember(upstream.upstream.db, upstream.clock, upstream.world.orgId, user.id, 'read');
    const spaceId = (await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Members only' })).body.id;
    const a = await replica(upstream.url, true);
    const b = await replica(proxy.url, true);
    await waitFor(() => !!a.gateway.redis?.isRedisReady() && !!b.gateway.redis?.isRedisReady(), 'Redis ready');
    const read = () => a.post({ query: SPACE, variables: { spaceId } }, user.token);
    const release = holdWrites('DELETE', `/v1/orgs/${upstream.world.orgId}/members/${user.id}`);
    const removed = await b.post(
      {
        query: 'mutation($input: RemoveMemberInput!) { removeMember(input: $input) { clientMutationId } }',
        variables: { input: { organizationId: upstream.world.orgId, userId: user.id } },
      },
      admin,
    );
    expect(removed.json.errors?.[0].extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstream: { method: 'DELETE' } });
    expect((await read()).json.data?.space.title).toBe('Members only');
    release();
    await waitFor(
      async () => (await upstream.api.get(`/orgs/${upstream.world.orgId}/members/${user.id}`)).status === 404,
      'the removal made',
    );
    const after = await read();
    expect(after.json.extensions?.responseCache?.hit).not.toBe(true);
    expect(after.json.data?.space ?? null).toBeNull();
  });
});
