/**
 * Two gateway replicas over one embedded upstream, sharing a real Redis: the response cache, its
 * invalidation, the per-caller rate limit and persisted queries work across replicas; Redis holds
 * no token; with Redis gone the replicas keep answering, and use it again once it is back.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';
import { addMember, createUser } from '../../src/upstream/bootstrap.js';
import { dumpRedis, startRedis, startReplica, stopAfterEach, waitFor, type Replica, type TestRedis } from '../helpers/redis.js';

const SPACE = `query Space($spaceId: String!) { space(spaceId: $spaceId) { title permissions { admin edit } } }`;
const VIEWER = 'query Viewer { viewer { displayName } }';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Runs `f` and answers the names of the Redis commands replica `r` sent meanwhile. */
async function commandsOf(r: Replica, f: () => Promise<unknown>): Promise<string[]> {
  const client = r.gateway.redis!.client;
  const send = client.sendCommand.bind(client);
  const names: string[] = [];
  client.sendCommand = ((command: { name: string }, stream?: unknown) => {
    names.push(command.name);
    return send(command as never, stream as never);
  }) as typeof client.sendCommand;
  try {
    await f();
  } finally {
    client.sendCommand = send;
  }
  return names;
}

/** Waits (generously: the machine is loaded) until the replica's Redis client is ready again. */
async function redisReady(...replicas: Replica[]) {
  const deadline = Date.now() + 20_000;
  while (!replicas.every((r) => r.gateway.redis?.isRedisReady())) {
    if (Date.now() > deadline) throw new Error('Redis client not ready after 20 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('two replicas sharing Redis', () => {
  let redis: TestRedis;
  let upstream: TestUpstream;
  let a: Replica;
  let b: Replica;
  let spaceId: string;
  let admin: string;
  let reader: string;
  const track = stopAfterEach();
  const replicas = (options: Parameters<typeof startReplica>[1] = {}) => {
    const pair = [0, 1].map(() => track(startReplica(upstream.url, { redisUrl: redis.url, ...options })));
    return redisReady(...pair).then(() => pair);
  };

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await startUpstream();
    admin = upstream.world.users.admin.token;
    reader = upstream.world.users.read.token;
    spaceId = (await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Shared' })).body.id;
  });
  afterAll(async () => {
    await upstream?.stop();
    await redis?.stop();
  });
  beforeEach(async () => {
    await redis.client.flushall();
    [a, b] = await replicas({ responseCacheTtlMs: 60_000, persistedOperations: { documents: { viewer1: VIEWER } } });
  });

  const space = (r: Replica, token: string) => r.post({ query: SPACE, variables: { spaceId } }, token);
  /** A result of `token` stored on each replica, then each replica's lookup of its user (no other query here asks `GET /user`). */
  const knownOnBoth = async (token: string) => {
    for (const [i, r] of [a, b].entries()) {
      const stored = await r.post({ query: `query Warm${i} { integrations(first: 1) { nodes { name } } }` }, token);
      expect(stored.json.extensions?.responseCache).toMatchObject({ didCache: true });
      await waitFor(() => r.calls.some((c) => c.path === '/user'), 'the user lookup');
    }
  };

  it('a result cached on A answers on B with no REST call; another caller never gets it', async () => {
    const first = await space(a, admin);
    expect(first.json.extensions?.responseCache).toMatchObject({ hit: false, didCache: true });
    expect(a.calls.length).toBeGreaterThan(0);

    const onB = await space(b, admin);
    expect(onB.json.extensions?.responseCache.hit).toBe(true);
    expect(onB.json.data).toEqual(first.json.data);
    expect(b.calls).toEqual([]);

    const readerOnB = await space(b, reader);
    expect(readerOnB.json.extensions?.responseCache.hit).toBe(false);
    expect(readerOnB.json.data?.space.permissions).toEqual({ admin: false, edit: false });
    expect(first.json.data?.space.permissions).toEqual({ admin: true, edit: true });
    a.calls.splice(0);
    const readerOnA = await space(a, reader);
    expect(readerOnA.json).toMatchObject({ data: readerOnB.json.data, extensions: { responseCache: { hit: true } } });
    expect(a.calls).toEqual([]);
  });

  it('a mutation on B is seen by the next read on A', async () => {
    await space(a, admin);
    expect((await space(a, admin)).json.extensions?.responseCache.hit).toBe(true);
    const renamed = await b.post(
      {
        query: 'mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { clientMutationId } }',
        variables: { input: { spaceId, title: 'Renamed on B' } },
      },
      admin,
    );
    expect(renamed.json.errors).toBeUndefined();
    a.calls.splice(0);
    const after = await space(a, admin);
    expect(after.json.extensions?.responseCache.hit).toBe(false);
    expect(after.json.data?.space.title).toBe('Renamed on B');
    expect(a.calls.length).toBeGreaterThan(0);
  });

  it('a mutation whose document was parsed before is not looked up in the cache (it is never stored); the next read still misses', async () => {
    const rename = (title: string) =>
      b.post(
        {
          query: 'mutation Rename($input: UpdateSpaceInput!) { updateSpace(input: $input) { clientMutationId } }',
          variables: { input: { spaceId, title } },
        },
        admin,
      );
    // The first one parses the document (looked up as any new text: its type is not known yet).
    expect((await rename('First')).json.errors).toBeUndefined();
    await space(b, admin);
    expect((await space(b, admin)).json.extensions?.responseCache.hit).toBe(true);
    let renamed: Awaited<ReturnType<typeof rename>> | undefined;
    const names = await commandsOf(b, async () => (renamed = await rename('Second')));
    expect(renamed!.json.errors).toBeUndefined();
    // No lookup (the generations and the result are read with MGET, or GET); the invalidation runs.
    expect(names.filter((name) => name === 'mget' || name === 'get')).toEqual([]);
    expect(names).toContain('eval');
    const after = await space(b, admin);
    expect(after.json.extensions?.responseCache.hit).toBe(false);
    expect(after.json.data?.space.title).toBe('Second');
  });

  it('no token appears in any Redis key or value, and every key expires', async () => {
    await space(a, admin);
    await space(b, reader);
    await a.post(
      { query: '{ viewer { restId } }', extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ viewer { restId } }') } } },
      admin,
    );
    const [limited] = await replicas({ callerRateLimit: 100 });
    await limited.post({ query: VIEWER }, admin);
    const all = await dumpRedis(redis.client);
    expect([...all.keys()].some((k) => k.startsWith('dg:rc:r:'))).toBe(true);
    expect([...all.keys()].some((k) => k.startsWith('dg:rl:'))).toBe(true);
    expect([...all.keys()].some((k) => k.startsWith('dg:apq:'))).toBe(true);
    const tokens = Object.values(upstream.world.users).map((u) => u.token);
    for (const [key, value] of all) for (const token of tokens) expect(`${key}\n${value}`).not.toContain(token);
    // Every key expires: Redis memory stays bounded by the TTLs.
    for (const key of all.keys()) expect(await redis.client.pttl(key), key).toBeGreaterThan(0);
  });

  it('the rate limit counts across both replicas and spares other tokens', async () => {
    const [r1, r2] = await replicas({ callerRateLimit: 4 });
    for (const r of [r1, r2, r1, r2]) expect((await r.post({ query: VIEWER }, admin)).json.data?.viewer.displayName).toBe('Ada admin');
    r1.calls.splice(0);
    const refused = await r1.post({ query: VIEWER }, admin);
    expect(refused.status).toBe(429);
    expect(refused.json.errors?.[0].extensions?.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBe(refused.json.errors?.[0].extensions?.retryAfter);
    expect(r1.calls).toEqual([]);
    expect((await r2.post({ query: VIEWER }, admin)).status).toBe(429);
    expect((await r2.post({ query: VIEWER }, reader)).json.data?.viewer.displayName).toBe('Ada read');
  });

  it("a token B answers from the cache counts against its own limit there, not its address's; a made-up token's results are not stored", async () => {
    const [r1, r2] = await replicas({ responseCacheTtlMs: 60_000, anonymousRateLimit: 3 });
    expect((await r1.post({ query: VIEWER }, admin)).json.extensions?.responseCache).toMatchObject({ didCache: true });
    // B never calls the REST API for this token: its first hit counts against the address too, the next ones do not.
    for (let i = 0; i < 6; i++)
      expect((await r2.post({ query: VIEWER }, admin)).json).toMatchObject({
        data: { viewer: { displayName: 'Ada admin' } },
        extensions: { responseCache: { hit: true } },
      });
    expect(r2.calls).toEqual([]);

    // A made-up token's result made without a REST call is no answer of the REST API for it: never
    // stored, so no hit on another replica takes it for an accepted token.
    await redis.client.del(...(await redis.client.keys('dg:rl:*')));
    const madeUp = 'gb_api_made_up_by_a_client';
    expect((await r1.post({ query: '{ __typename }' }, madeUp)).json.data).toEqual({ __typename: 'Query' });
    const codes: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      const onB = await r2.post({ query: '{ __typename }' }, madeUp);
      expect(onB.json.extensions?.responseCache?.hit).not.toBe(true);
      codes.push(onB.json.errors?.[0].extensions?.code ?? 'OK');
    }
    expect(codes).toEqual(['OK', 'OK', 'RATE_LIMITED', 'RATE_LIMITED']);
  });

  it('a persisted id works on both replicas; an APQ hash registered on A works on B', async () => {
    // Both replicas learn whose the token is first (`GET /user` after its first stored result): a
    // replica keys a known user's results by that user, one that does not know it yet by the
    // unknown-user generation, so a result cached on one is a hit on the other once both know.
    await knownOnBoth(admin);
    for (const r of [a, b])
      expect((await r.post({ documentId: 'viewer1' }, admin)).json.data).toEqual({ viewer: { displayName: 'Ada admin' } });
    const query = '{ viewer { restId displayName } }';
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(query) } };
    expect((await b.post({ extensions }, admin)).json.errors?.[0].message).toBe('PersistedQueryNotFound');
    expect((await a.post({ query, extensions }, admin)).json.data?.viewer.displayName).toBe('Ada admin');
    expect((await b.post({ extensions }, admin)).json.data?.viewer).toEqual({
      restId: upstream.world.users.admin.id,
      displayName: 'Ada admin',
    });

    // A registration answered from the response cache registers too.
    const cached = '{ viewer { displayName restId } }';
    const cachedExtensions = { persistedQuery: { version: 1, sha256Hash: sha256(cached) } };
    await a.post({ query: cached }, admin);
    const hit = await b.post({ query: cached, extensions: cachedExtensions }, admin);
    expect(hit.json.extensions?.responseCache.hit).toBe(true);
    expect((await a.post({ extensions: cachedExtensions }, admin)).json.data?.viewer.displayName).toBe('Ada admin');
  });

  it('--persisted-only refuses a raw document with no REST call, on any replica', async () => {
    const pair = await replicas({ persistedOperations: { documents: { viewer1: VIEWER }, only: true } });
    for (const r of pair) {
      const refused = await r.post({ query: VIEWER }, admin);
      expect(refused.json.errors?.[0].message).toMatch(/Only persisted operations/);
      expect(r.calls).toEqual([]);
      expect((await r.post({ documentId: 'viewer1' }, admin)).json.data?.viewer.displayName).toBe('Ada admin');
    }
  });

  it('a lookup reads its result with the generations, in one round trip; one made stale since is read again, never served', async () => {
    // Whose the session is, known on both (its keys are then the user's, with their fallback).
    await knownOnBoth(admin);
    await space(b, admin);
    expect((await space(b, admin)).json.extensions?.responseCache.hit).toBe(true);
    // A hit: the generations and the result, one MGET (it was two: MGET, then MGET or GET).
    let hit: unknown;
    /** The cache's reads and writes among them. */
    const cacheCommands = async (f: () => Promise<unknown>) => (await commandsOf(b, f)).filter((n) => ['mget', 'get', 'eval'].includes(n));
    expect(await cacheCommands(async () => (hit = (await space(b, admin)).json.extensions?.responseCache.hit))).toEqual(['mget']);
    expect(hit).toBe(true);
    // A miss: the same MGET, then only the store of the result (no second read of the key).
    const other = { query: `query Other($spaceId: String!) { space(spaceId: $spaceId) { title } }`, variables: { spaceId } };
    expect(await cacheCommands(() => b.post(other, admin))).toEqual(['mget', 'eval']);
    // A write on A that renews every generation: B's next lookup reads its result under the
    // generations it saw before, finds them changed, and reads the key of the new ones instead.
    const renamed = await a.post(
      {
        query: 'mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { clientMutationId } }',
        variables: { input: { spaceId, defaultLevel: 'READ' } },
      },
      admin,
    );
    expect(renamed.json.errors).toBeUndefined();
    let stale: Awaited<ReturnType<typeof space>> | undefined;
    const names = await cacheCommands(async () => (stale = await space(b, admin)));
    expect(stale!.json.extensions?.responseCache.hit).toBe(false);
    expect(names.slice(0, 2)).toEqual(['mget', 'mget']);
  });

  it('a write on B that removes a member makes every cached result of theirs on A stale, whatever its types', async () => {
    const user = createUser(upstream.upstream.db, upstream.clock, { displayName: 'Leaving', email: 'leaving@acme.test' });
    addMember(upstream.upstream.db, upstream.clock, upstream.world.orgId, user.id, 'read');
    const cr = (await upstream.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Internal' })).body.id;
    const CR = {
      query: 'query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) { subject } }',
      variables: { s: spaceId, c: cr },
    };
    expect((await a.post(CR, user.token)).json.data?.changeRequest.subject).toBe('Internal');
    expect((await a.post(CR, user.token)).json.extensions?.responseCache.hit).toBe(true);
    const removed = await b.post(
      {
        query: 'mutation($input: RemoveMemberInput!) { removeMember(input: $input) { deletedId } }',
        variables: { input: { organizationId: upstream.world.orgId, userId: user.id } },
      },
      admin,
    );
    expect(removed.json.errors).toBeUndefined();
    const after = await a.post(CR, user.token);
    expect(after.json.extensions?.responseCache?.hit).not.toBe(true);
    expect(after.json.data?.changeRequest ?? null).toBeNull();
  });

  it('a replica sharing Redis without a response cache of its own still makes stale what its writes change (a rolling change of the TTL)', async () => {
    const [uncached] = await replicas({});
    const user = createUser(upstream.upstream.db, upstream.clock, { displayName: 'Leaving too', email: 'leaving2@acme.test' });
    addMember(upstream.upstream.db, upstream.clock, upstream.world.orgId, user.id, 'read');
    expect((await space(a, user.token)).json.data?.space.title).toBeDefined();
    expect((await space(a, admin)).json.extensions?.responseCache).toMatchObject({ didCache: true });
    for (const token of [user.token, admin]) expect((await space(a, token)).json.extensions?.responseCache.hit).toBe(true);

    const rename = 'mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { title } } }';
    const renamed = await uncached.post(
      { query: rename, variables: { input: { spaceId, title: 'Renamed on a replica without a cache' } } },
      admin,
    );
    expect(renamed.json).toEqual({ data: { updateSpace: { space: { title: 'Renamed on a replica without a cache' } } } });
    expect((await space(a, admin)).json.data?.space.title).toBe('Renamed on a replica without a cache');

    const removed = await uncached.post(
      {
        query: 'mutation($input: RemoveMemberInput!) { removeMember(input: $input) { deletedId } }',
        variables: { input: { organizationId: upstream.world.orgId, userId: user.id } },
      },
      admin,
    );
    expect(removed.json.errors).toBeUndefined();
    const after = await space(a, user.token);
    expect(after.json.extensions?.responseCache?.hit).not.toBe(true);
    expect(after.json.data?.space ?? null).toBeNull();
    // It keeps no result of its own, and says nothing of a cache.
    expect((await space(uncached, admin)).json.extensions).toBeUndefined();
    expect((await space(uncached, admin)).json.extensions).toBeUndefined();
  });

  it('a graphql-sse reservation made on A is answered 404 on B, saying that single-connection mode needs session affinity', async () => {
    const stream = (r: Replica, method: string, headers: Record<string, string> = {}) =>
      r.gateway.yoga.fetch(`http://gateway.test/graphql/stream${method === 'DELETE' ? '?operationId=1' : ''}`, {
        method,
        headers: { authorization: `Bearer ${admin}`, ...(method === 'GET' ? { accept: 'text/event-stream' } : {}), ...headers },
      });
    const reserved = await stream(a, 'PUT');
    expect(reserved.status).toBe(201);
    const token = await reserved.text();
    for (const method of ['GET', 'DELETE']) {
      const elsewhere = await stream(b, method, { 'x-graphql-event-stream-token': token });
      expect(elsewhere.status).toBe(404);
      const { errors } = (await elsewhere.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
      expect(errors[0].extensions.code).toBe('NOT_FOUND');
      expect(errors[0].message).toMatch(/another replica.*session affinity/);
    }
  });

  it("the lookup sets shrink as their results expire (on the handle's clock)", async () => {
    let now = 1_000_000;
    const r = track(startReplica(upstream.url, { redisUrl: redis.url, responseCacheTtlMs: 60_000, redis: { now: () => now } }));
    await redisReady(r);
    const distinct = (i: number) =>
      r.post({ query: `query Q${i}($spaceId: String!) { space(spaceId: $spaceId) { title } }`, variables: { spaceId } }, admin);
    for (let i = 0; i < 30; i++) await distinct(i);
    const largest = async () => {
      let most = 0;
      for (const key of (await dumpRedis(redis.client)).keys()) {
        const type = await redis.client.type(key);
        if (type === 'set') most = Math.max(most, await redis.client.scard(key));
        if (type === 'zset') most = Math.max(most, await redis.client.zcard(key));
      }
      return most;
    };
    await waitFor(async () => (await largest()) >= 30);
    now += 10 * 60_000;
    // Gone from Redis too, as their ttl would have them: a lookup entry whose result is still
    // there is kept (the handle's clock is a replica's, which may be ahead of the others').
    for (const key of await redis.client.keys('dg:rc:r:*')) await redis.client.del(key);
    await distinct(30);
    await waitFor(async () => (await largest()) === 1, 'the sets pruned to the one live result');
  });

  it('a replica whose wall clock stepped forward drops no live result from a lookup set: a write still forgets it', async () => {
    // B's clock 2 hours ahead of A's (a step forward, NTP on one machine).
    const ahead = track(
      startReplica(upstream.url, { redisUrl: redis.url, responseCacheTtlMs: 60_000, redis: { now: () => Date.now() + 7_200_000 } }),
    );
    await redisReady(a, ahead);
    const read = (r: Replica, query: string) => r.post({ query, variables: { spaceId } }, admin);
    const TITLE = `query Title($spaceId: String!) { space(spaceId: $spaceId) { title } }`;
    const TITLE_ID = `query TitleId($spaceId: String!) { space(spaceId: $spaceId) { title id } }`;
    await waitFor(async () => (await read(a, TITLE)).json.extensions?.responseCache.hit === true, 'A cached');
    // B stores a result holding the same space, pruning that lookup set by its clock.
    await waitFor(async () => (await read(ahead, TITLE_ID)).json.extensions?.responseCache.hit === true, 'B cached');
    const renamed = await a.post(
      {
        query: 'mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { clientMutationId } }',
        variables: { input: { spaceId, title: 'Renamed with B ahead' } },
      },
      admin,
    );
    expect(renamed.json.errors).toBeUndefined();
    // Not A's result of before the write (it was served, stale, for the rest of its 60 s).
    expect((await read(a, TITLE)).json.data?.space.title).toBe('Renamed with B ahead');
  });

  it('invalidating a type held by many cached results runs in bounded batches', async () => {
    const r = track(startReplica(upstream.url, { redisUrl: redis.url, responseCacheTtlMs: 60_000 }));
    await redisReady(r);
    for (let i = 0; i < 300; i++)
      await r.post({ query: `query Q${i}($spaceId: String!) { space(spaceId: $spaceId) { title } }`, variables: { spaceId } }, admin);
    await waitFor(
      async () =>
        (await r.post({ query: `query Q299($spaceId: String!) { space(spaceId: $spaceId) { title } }`, variables: { spaceId } }, admin))
          .json.extensions?.responseCache.hit === true,
    );
    // Every command the replica sends from now on, by size.
    const client = r.gateway.redis!.client;
    const send = client.sendCommand.bind(client);
    const sizes: Array<[string, number]> = [];
    client.sendCommand = ((command: { name: string; args: unknown[] }, stream?: unknown) => {
      sizes.push([command.name, command.args.length]);
      return send(command as never, stream as never);
    }) as typeof client.sendCommand;
    // A space created: every cached result holding a space is forgotten (lists it would join).
    const created = await r.post(
      {
        query: 'mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { title } } }',
        variables: { input: { organizationId: upstream.world.orgId, title: 'Many' } },
      },
      admin,
    );
    expect(created.json.errors).toBeUndefined();
    expect(Math.max(...sizes.map(([, n]) => n))).toBeLessThanOrEqual(150);
    expect(sizes.some(([name]) => name === 'smembers' || name === 'keys')).toBe(false);
    const again = await r.post(
      { query: `query Q1($spaceId: String!) { space(spaceId: $spaceId) { title } }`, variables: { spaceId } },
      admin,
    );
    expect(again.json.extensions?.responseCache.hit).toBe(false);
  });

  it('with Redis stopped the replicas keep answering (cache bypassed, rate limit open), and use Redis again once it is back', async () => {
    const [limited] = await replicas({ callerRateLimit: 100 });
    await space(a, admin);
    await redis.kill();
    for (const r of [a, b, a, limited]) {
      const res = await space(r, admin);
      expect(res.json.errors).toBeUndefined();
      expect(res.json.data?.space.permissions).toEqual({ admin: true, edit: true });
      expect(res.json.extensions?.responseCache?.hit).not.toBe(true);
    }
    const mutated = await b.post(
      {
        query: 'mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { title } } }',
        variables: { input: { spaceId, title: 'While Redis is down' } },
      },
      admin,
    );
    expect(mutated.json.data?.updateSpace.space.title).toBe('While Redis is down');
    expect((await space(a, admin)).json.data?.space.title).toBe('While Redis is down');
    // Each replica has learnt whose the token is (a stored result, even while Redis was down, then
    // `GET /user`), so both key its results alike.
    await waitFor(() => [a, b].every((r) => r.calls.some((c) => c.path === '/user')), 'the user lookups');

    await redis.restart();
    await redisReady(a, b);
    // B's write could not invalidate in Redis: B renews every result once Redis is back (by its
    // next lookup at the latest), then results are stored and shared again.
    await space(b, admin);
    await space(a, admin);
    b.calls.splice(0);
    expect((await space(b, admin)).json).toMatchObject({
      data: { space: { title: 'While Redis is down' } },
      extensions: { responseCache: { hit: true } },
    });
    expect(b.calls).toEqual([]);
  });
});
