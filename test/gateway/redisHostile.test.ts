/**
 * Redis as a sick or hostile dependency of two replicas: a Redis out of memory under `noeviction`
 * (it refuses writes that add data), a Redis turned replica (it refuses every write), and keys
 * holding what the gateway never wrote (another program's data, a value of the wrong shape or
 * type). Replicas are reached over real HTTP.
 */
import { createHash } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DRAIN_ROUNDS, INVALIDATION_BATCH, INVALIDATION_MARK_MS } from '../../src/gateway/lib/responseCacheStores.js';
import { addMember, createUser } from '../../src/upstream/bootstrap.js';
import { listening, readyReplica, startRedis, startReplica, stopAfterEach, waitFor, type TestRedis } from '../helpers/redis.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

const CR = 'query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) { subject } }';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('Redis sick or holding foreign data', () => {
  let redis: TestRedis;
  let upstream: TestUpstream;
  let spaceId: string;
  let admin: string;
  const track = stopAfterEach();

  /** A replica listening on a loopback port, and a POST to it over HTTP. */
  const replica = (options: Parameters<typeof startReplica>[1] = {}) =>
    readyReplica(track, upstream.url, { redisUrl: redis.url, responseCacheTtlMs: 60_000, ...options });

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await startUpstream();
    admin = upstream.world.users.admin.token;
    spaceId = (await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Hostile' })).body.id;
  });
  afterAll(async () => {
    await upstream?.stop();
    await redis?.stop();
  });
  beforeEach(async () => {
    await redis.client.config('SET', 'maxmemory', '0');
    await redis.client.flushall();
  });

  // A replica of a primary it cannot reach (a primary a failover demoted) keeps its data, answers
  // reads, refuses every write; so does a primary short of its `min-replicas-to-write`. One full
  // under `noeviction` refuses every write that adds data (OOM), and still runs deletes.
  const refusingWrites: Array<[what: string, refuse: () => Promise<unknown>, restore: () => Promise<unknown>]> = [
    ['a replica', async () => redis.client.replicaof('127.0.0.1', String(await closedPort())), () => redis.client.replicaof('NO', 'ONE')],
    [
      'short of its replicas',
      () => redis.client.config('SET', 'min-replicas-to-write', '1'),
      () => redis.client.config('SET', 'min-replicas-to-write', '0'),
    ],
    [
      'out of memory',
      async () => {
        await redis.client.config('SET', 'maxmemory-policy', 'noeviction');
        await redis.client.config('SET', 'maxmemory', '1');
      },
      () => redis.client.config('SET', 'maxmemory', '0'),
    ],
  ];
  it.each(refusingWrites)(
    'with Redis refusing writes (%s), a member removed on A is served nothing cached on B',
    async (what, refuse, restore) => {
      const [a, b] = [await replica(), await replica()];
      const user = createUser(upstream.upstream.db, upstream.clock, {
        displayName: 'Demoted',
        email: `${what.replace(/\W/g, '-')}@acme.test`,
      });
      addMember(upstream.upstream.db, upstream.clock, upstream.world.orgId, user.id, 'read');
      const cr = (await upstream.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Internal' })).body.id;
      const read = { query: CR, variables: { s: spaceId, c: cr } };
      expect((await b.post(read, user.token)).json.data?.changeRequest.subject).toBe('Internal');
      expect((await b.post(read, user.token)).json.extensions?.responseCache.hit).toBe(true);

      await refuse();
      try {
        const removed = await a.post(
          {
            query: 'mutation($input: RemoveMemberInput!) { removeMember(input: $input) { deletedId } }',
            variables: { input: { organizationId: upstream.world.orgId, userId: user.id } },
          },
          admin,
        );
        expect(removed.json.errors).toBeUndefined();
        const after = await b.post(read, user.token);
        expect(after.json.extensions?.responseCache?.hit).not.toBe(true);
        expect(after.json.data?.changeRequest ?? null).toBeNull();
      } finally {
        await restore();
      }
    },
  );

  it('a Redis that lost acknowledged writes with its connections (restarted from a snapshot) serves nothing of before them', async () => {
    const [a, b] = [await replica(), await replica()];
    const user = createUser(upstream.upstream.db, upstream.clock, { displayName: 'Restored', email: 'snapshot@acme.test' });
    addMember(upstream.upstream.db, upstream.clock, upstream.world.orgId, user.id, 'read');
    const cr = (await upstream.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Internal' })).body.id;
    const read = { query: CR, variables: { s: spaceId, c: cr } };
    expect((await b.post(read, user.token)).json.data?.changeRequest.subject).toBe('Internal');
    expect((await b.post(read, user.token)).json.extensions?.responseCache.hit).toBe(true);

    // The snapshot: every key, its value and time to live.
    const snapshot: Array<[key: string, ttl: number, value: Buffer]> = [];
    for (const key of await redis.client.keys('*'))
      snapshot.push([key, await redis.client.pttl(key), (await redis.client.dumpBuffer(key))!]);
    const removed = await a.post(
      {
        query: 'mutation($input: RemoveMemberInput!) { removeMember(input: $input) { deletedId } }',
        variables: { input: { organizationId: upstream.world.orgId, userId: user.id } },
      },
      admin,
    );
    expect(removed.json.errors).toBeUndefined();
    // Restarted from the snapshot: the connections dropped, the data as it was before the write.
    await redis.client.flushall();
    for (const [key, ttl, value] of snapshot) await redis.client.restore(key, Math.max(ttl, 0), value, 'REPLACE');
    const before = [a, b].map((r) => r.gateway.redis!.client.stream);
    await redis.client.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    await waitFor(
      () => [a, b].every((r, i) => r.gateway.redis!.isRedisReady() && r.gateway.redis!.client.stream !== before[i]),
      'new connections',
    );

    const after = await b.post(read, user.token);
    expect(after.json.extensions?.responseCache?.hit).not.toBe(true);
    expect(after.json.data?.changeRequest ?? null).toBeNull();
  });

  it('with Redis out of memory, a write on A that renews every result makes them stale on B', async () => {
    const [a, b] = [await replica(), await replica()];
    const viewer = { query: '{ viewer { displayName } }' };
    await b.post(viewer, admin);
    expect((await b.post(viewer, admin)).json.extensions?.responseCache.hit).toBe(true);
    await redis.client.config('SET', 'maxmemory-policy', 'noeviction');
    await redis.client.config('SET', 'maxmemory', '1');
    // A space's default role: every generation renewed.
    const opened = await a.post(
      {
        query: 'mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { clientMutationId } }',
        variables: { input: { spaceId, defaultLevel: 'READ' } },
      },
      admin,
    );
    expect(opened.json.errors).toBeUndefined();
    expect((await b.post(viewer, admin)).json.extensions?.responseCache?.hit).toBe(false);
  });

  it('a lookup set Redis evicted (maxmemory) leaves no result of before a write on another replica', async () => {
    const [a, b] = [await replica(), await replica()];
    const title = { query: 'query($s: String!) { space(spaceId: $s) { title } }', variables: { s: spaceId } };
    const rename = (to: string) =>
      a.post(
        {
          query: 'mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { clientMutationId } }',
          variables: { input: { spaceId, title: to } },
        },
        admin,
      );
    expect((await rename('Before eviction')).json.errors).toBeUndefined();
    await b.post(title, admin);
    expect((await b.post(title, admin)).json.extensions?.responseCache.hit).toBe(true);
    // Redis short of memory evicts what it chooses: here the lookup sets (and the count), the only
    // keys left with a time to live, as a hot result read on every request outlives its sets
    // (stored once) under an LRU policy.
    const kept = [...(await redis.client.keys('dg:rc:r:*')), ...(await redis.client.keys('dg:rc:g*'))];
    for (const key of kept) await redis.client.persist(key);
    await redis.client.config('SET', 'maxmemory-policy', 'volatile-lru');
    await redis.client.config('SET', 'maxmemory', '1');
    try {
      await redis.client.set('dg:test:evicting', '1');
    } catch {
      /* OOM once nothing is left to evict */
    }
    await redis.client.config('SET', 'maxmemory', '0');
    try {
      expect(await redis.client.keys('dg:rc:*s:*')).toEqual([]);
      expect(Number(/evicted_keys:(\d+)/.exec(await redis.client.info('stats'))?.[1])).toBeGreaterThan(0);
      for (const key of kept) await redis.client.pexpire(key, 60_000);

      expect((await rename('After eviction')).json.errors).toBeUndefined();
      const after = await b.post(title, admin);
      expect(after.json.data?.space.title).toBe('After eviction');
      expect(after.json.extensions?.responseCache.hit).toBe(false);
    } finally {
      await redis.client.config('SET', 'maxmemory-policy', 'noeviction');
      await redis.client.config('RESETSTAT');
    }
  });

  it('a result key holding what the gateway never stored is a miss: no value, status or header of it is answered', async () => {
    const r = await replica();
    const read = { query: 'query { viewer { displayName } }' };
    const first = await r.post(read, admin);
    expect(first.json.extensions?.responseCache).toMatchObject({ didCache: true });
    const keys = () => redis.client.keys('dg:rc:r:*');
    await waitFor(async () => (await keys()).length > 0, 'the result stored');
    const hit = await r.post(read, admin);
    expect(hit.json).toEqual(first.json.data && { data: first.json.data, extensions: { responseCache: { hit: true } } });
    expect(hit.headers.get('etag')).toMatch(/^"[\w-]+"$/);

    // Results as the gateway stores them but for their extensions: served, with no status or header but the validators.
    const shaped = [
      '{"data":{"viewer":{"displayName":"Ada admin"}},"extensions":{"http":{"status":302,"headers":{"Location":"https://evil.test/","Set-Cookie":"s=evil"}}}}',
      '{"data":{"viewer":{"displayName":"Ada admin"}},"extensions":{"http":{"headers":{"ETag":"x\\r\\nSet-Cookie: s=evil"}}}}',
    ];
    // Anything else: a miss.
    const foreign = ['{"errors":[{"message":"boom"}]}', '{"data":null}', '{"data":[1]}', '"text"', '123', '[]', '{}', 'not json'];
    for (const value of [...shaped, ...foreign]) {
      for (const key of await keys()) await redis.client.set(key, value, 'PX', 60_000);
      const res = await r.post(read, admin);
      expect(res.status, value).toBe(200);
      expect(res.json.extensions?.responseCache?.hit, value).toBe(shaped.includes(value));
      expect(res.json.data, value).toEqual(first.json.data);
      expect([res.headers.get('location'), res.headers.get('set-cookie')], value).toEqual([null, null]);
    }
  });

  it('an APQ hash whose Redis value is not its document is not found: the client registers it again', async () => {
    const [a, b] = [await replica(), await replica()];
    const query = '{ viewer { displayName } }';
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    // The token proven on A (the REST API answered for it): its registrations are for every replica.
    expect((await a.post({ query: '{ viewer { restId } }' }, admin)).json.errors).toBeUndefined();
    for (const foreign of ['{ viewer { email } }', `{ viewer { displayName ${'restId '.repeat(200_000)}} }`, 'garbage {']) {
      await redis.client.set(`dg:apq:${sha256Hash}`, foreign, 'PX', 60_000);
      const unknown = await b.post({ extensions }, admin);
      expect(unknown.json.errors?.map((e) => e.extensions?.code)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
      // The client's answer to that: its query with the hash, registered on A, then run by hash on B.
      expect((await a.post({ query, extensions }, admin)).json.data).toEqual({ viewer: { displayName: 'Ada admin' } });
      expect((await b.post({ extensions }, admin)).json.data).toEqual({ viewer: { displayName: 'Ada admin' } });
    }
  });

  it('a generation key holding what is not a generation is renewed by the next lookup: the cache works again', async () => {
    const r = await replica();
    const foreign: Array<[string, () => Promise<unknown>]> = [
      ['a hash', () => redis.client.hset('dg:rc:g', 'field', 'value')],
      ['a list', () => redis.client.rpush('dg:rc:g', 'a', 'b')],
      ['an empty string', () => redis.client.set('dg:rc:g', '')],
      ['a string of a megabyte', () => redis.client.set('dg:rc:g', 'x'.repeat(1 << 20))],
    ];
    for (const [i, [what, write]] of foreign.entries()) {
      await redis.client.del('dg:rc:g');
      await write();
      const read = { query: `query Q${i} { viewer { displayName } }` };
      expect((await r.post(read, admin)).json.data, what).toEqual({ viewer: { displayName: 'Ada admin' } });
      expect(await redis.client.type('dg:rc:g'), what).toBe('string');
      expect(await redis.client.strlen('dg:rc:g'), what).toBeLessThanOrEqual(64);
      expect((await r.post(read, admin)).json.extensions?.responseCache?.hit, what).toBe(true);
    }
  });

  it('a write of a type held by more results than DRAIN_ROUNDS batches renews every result instead: its steps are bounded', async () => {
    const r = await replica();
    const SPACE = { query: 'query($s: String!) { space(spaceId: $s) { title } }', variables: { s: spaceId } };
    await r.post(SPACE, admin);
    await waitFor(async () => (await r.post(SPACE, admin)).json.extensions?.responseCache?.hit === true, 'a hit');
    // What callers would have stored within a TTL: more results holding a space than the drain takes.
    const many = 3 * DRAIN_ROUNDS * INVALIDATION_BATCH;
    const expiry = Date.now() + 60_000;
    for (let i = 0; i < many; i += 5000) {
      const members = Array.from({ length: Math.min(5000, many - i) }, (_, j) => [expiry, `dg:rc:r:stored${i + j}`]).flat();
      await redis.client.zadd('dg:rc:ts:Space', ...members);
    }
    const client = r.gateway.redis!.client;
    const send = client.sendCommand.bind(client);
    let commands = 0;
    client.sendCommand = ((command: never, stream?: never) => (commands++, send(command, stream))) as typeof client.sendCommand;
    const created = await r.post(
      {
        query: 'mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { title } } }',
        variables: { input: { organizationId: upstream.world.orgId, title: 'Many' } },
      },
      admin,
    );
    client.sendCommand = send;
    expect(created.json.errors).toBeUndefined();
    expect(commands).toBeLessThanOrEqual(DRAIN_ROUNDS + 20);
    expect(await redis.client.exists('dg:rc:ts:Space')).toBe(0);
    expect((await r.post(SPACE, admin)).json.extensions?.responseCache?.hit).toBe(false);
  });

  it("a wrong or missing password: one warning naming Redis's refusal, never the password", async () => {
    await redis.client.config('SET', 'requirepass', 'right-secret');
    try {
      for (const [url, refusal] of [
        [redis.url.replace('redis://', 'redis://:wrong-secret@'), 'WRONGPASS'],
        [redis.url, 'NOAUTH'],
      ]) {
        const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
        const line = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push([level, msg, fields]);
        const log = { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
        const r = track(startReplica(upstream.url, { redisUrl: url, responseCacheTtlMs: 60_000, log }));
        await waitFor(() => lines.some(([level]) => level === 'warn'), 'the warning');
        const read = await r.post({ query: '{ viewer { displayName } }' }, admin);
        expect(read.json.data).toEqual({ viewer: { displayName: 'Ada admin' } });
        expect(lines.filter(([level]) => level === 'warn')).toEqual([
          ['warn', expect.stringMatching(/^redis: unavailable/), { redis: expect.stringMatching(/^127\.0\.0\.1:\d+$/), error: refusal }],
        ]);
        expect(JSON.stringify(lines)).not.toContain('secret');
      }
    } finally {
      await redis.client.config('SET', 'requirepass', '');
    }
  });

  it("a URL's database Redis does not have is an outage: nothing is kept in database 0, Redis counts as down", async () => {
    const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
    const line = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push([level, msg, fields]);
    const log = { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
    // Redis has 16 databases, 0 to 15.
    const r = await listening(track(startReplica(upstream.url, { redisUrl: `${redis.url}/16`, responseCacheTtlMs: 60_000, log })));
    await waitFor(() => lines.some(([level]) => level === 'warn'), 'the warning');
    for (let n = 0; n < 2; n++) {
      const read = await r.post({ query: '{ viewer { displayName } }' }, admin);
      expect(read.json.data).toEqual({ viewer: { displayName: 'Ada admin' } });
      expect(read.json.extensions?.responseCache?.hit).not.toBe(true);
    }
    expect(await redis.client.dbsize()).toBe(0);
    expect(r.gateway.redis!.isRedisReady()).toBe(false);
    expect(lines.filter(([level]) => level === 'warn')).toEqual([
      [
        'warn',
        expect.stringMatching(/^redis: cannot select database 16/),
        { redis: expect.stringMatching(/^127\.0\.0\.1:\d+$/), error: 'ERR' },
      ],
    ]);
  });

  it('a Redis refusing commands on a live connection is an outage: one warning naming its refusal, one line when it takes them again', async () => {
    const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
    const line = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push([level, msg, fields]);
    const log = { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
    // The cool-down is also how long commands must succeed before Redis counts as back.
    const r = await replica({ log, redis: { coolDownMs: 200 } });
    const read = (n: number) => r.post({ query: `{ viewer { displayName${' '.repeat(n)}} }` }, admin);
    expect((await read(0)).json.data).toEqual({ viewer: { displayName: 'Ada admin' } });
    const [refuse, restore] = refusingWrites[0].slice(1) as Array<() => Promise<unknown>>;
    await refuse();
    try {
      // Each lookup is refused (READONLY), each result too: every read is a miss, answered.
      for (let n = 1; n <= 3; n++) expect((await read(n)).json.data).toEqual({ viewer: { displayName: 'Ada admin' } });
    } finally {
      await restore();
    }
    expect(lines.filter(([level]) => level === 'warn')).toEqual([
      [
        'warn',
        expect.stringMatching(/^redis: refusing commands/),
        { redis: expect.stringMatching(/^127\.0\.0\.1:\d+$/), error: 'READONLY' },
      ],
    ]);
    await read(4);
    await waitFor(() => lines.some(([, msg]) => msg === 'redis: answering again'), 'the line saying Redis answers again');
    expect(JSON.stringify(lines)).not.toContain('dg:rc');
  });

  it('a Redis whose connections keep failing is one outage: one warning, however many reconnections', async () => {
    const warnings: string[] = [];
    const infos: string[] = [];
    const log = { debug() {}, info: (msg: string) => void infos.push(msg), warn: (msg: string) => void warnings.push(msg), error() {} };
    // A cool-down longer than the test: Redis never stays up long enough to end the outage.
    const r = track(startReplica(upstream.url, { redisUrl: redis.url, log, redis: { waitMs: 1000, coolDownMs: 600_000 } }));
    const handle = r.gateway.redis!;
    let errors = 0;
    handle.client.on('error', () => void errors++);
    try {
      for (let flap = 1; flap <= 3; flap++) {
        await waitFor(() => handle.isRedisReady(), 'Redis ready');
        const before = errors;
        // The connection dropped, and its next one refused (NOAUTH), then accepted again.
        await redis.client.config('SET', 'requirepass', 'right-secret');
        await redis.client.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
        await waitFor(() => errors > before, 'the refused reconnection');
        await redis.client.config('SET', 'requirepass', '');
      }
      await waitFor(() => handle.isRedisReady(), 'Redis ready');
    } finally {
      await redis.client.config('SET', 'requirepass', '');
    }
    expect(warnings.filter((w) => w.startsWith('redis:'))).toHaveLength(1);
    expect(infos.filter((i) => i.startsWith('redis: answering again'))).toEqual([]);
  });

  it("a lookup set's key holding another type is dropped: results of its type are stored again, a write of it owes nothing", async () => {
    const warnings: string[] = [];
    const r = await replica({ log: { debug() {}, info() {}, warn: (msg) => void warnings.push(msg), error() {} } });
    await redis.client.set('dg:rc:ts:User', 'foreign');
    await redis.client.hset('dg:rc:ts:Space', 'field', 'value');
    const viewer = { query: '{ viewer { displayName } }' };
    await r.post(viewer, admin);
    expect((await r.post(viewer, admin)).json.extensions?.responseCache?.hit).toBe(true);
    const created = await r.post(
      {
        query: 'mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { title } } }',
        variables: { input: { organizationId: upstream.world.orgId, title: 'Foreign' } },
      },
      admin,
    );
    expect(created.json.errors).toBeUndefined();
    expect(await redis.client.type('dg:rc:ts:Space')).not.toBe('hash');
    expect(warnings).toEqual([]);
  });

  it("an invalidation mark holding another program's value is dropped: results are stored again", async () => {
    const r = await replica();
    const viewer = { query: '{ viewer { displayName } }' };
    // The mark every store reads (a write that got no answer), another type's; the type's own, a text that never expires.
    await redis.client.hset('dg:rc:m:ts:*', 'field', 'value');
    await redis.client.set('dg:rc:m:ts:User', 'foreign');
    await r.post(viewer, admin);
    await r.post(viewer, admin);
    expect((await r.post(viewer, admin)).json.extensions?.responseCache?.hit).toBe(true);
    expect(await redis.client.exists('dg:rc:m:ts:*', 'dg:rc:m:ts:User')).toBe(0);
  });

  it("an unsettled mark with more than its minute to live (Redis's clock stepped back) keeps results from being stored a minute at most", async () => {
    const r = await replica();
    const viewer = { query: '{ viewer { displayName } }' };
    // A write that got no answer marked every result unsettled for a minute; Redis keeps the
    // expiry as a time of its wall clock, then stepped back an hour (NTP, a resumed VM).
    await redis.client.set('dg:rc:m:ts:*', 'unsettled', 'PX', 3_660_000);
    await r.post(viewer, admin);
    expect((await r.post(viewer, admin)).json.extensions?.responseCache?.hit).toBe(false);
    // Before: 61 minutes of no result stored, on every replica.
    expect(await redis.client.pttl('dg:rc:m:ts:*')).toBeLessThanOrEqual(INVALIDATION_MARK_MS);
  });

  it("the invalidations count holding another program's number is replaced: a write forgets its results, no more", async () => {
    const [a, b] = [await replica(), await replica()];
    const viewer = { query: '{ viewer { displayName } }' };
    const space = { query: 'query($s: String!) { space(spaceId: $s) { title } }', variables: { s: spaceId } };
    for (const count of ['1e3', '12.5', '99999999999999999999']) {
      await redis.client.set('dg:rc:n', count);
      for (const read of [viewer, space]) await b.post(read, admin);
      expect((await b.post(viewer, admin)).json.extensions?.responseCache?.hit, count).toBe(true);
      const renamed = await a.post(
        {
          query: 'mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { clientMutationId } }',
          variables: { input: { spaceId, title: `Counted ${count}` } },
        },
        admin,
      );
      expect(renamed.json.errors).toBeUndefined();
      // The space's result is forgotten; the viewer's, which holds no space, is kept.
      expect((await b.post(space, admin)).json.data?.space.title, count).toBe(`Counted ${count}`);
      expect((await b.post(viewer, admin)).json.extensions?.responseCache?.hit, count).toBe(true);
      expect(await redis.client.get('dg:rc:n'), count).toMatch(/^\d{1,15}$/);
    }
  });

  it('a rate-limit key holding what is not a count starts a window: the caller is still counted', async () => {
    // Closed: Redis's count alone (fail-open also keeps the replica's own, when higher).
    const r = await replica({ callerRateLimit: 3, callerRateLimitFailMode: 'closed' });
    const viewer = { query: '{ viewer { displayName } }' };
    expect((await r.post(viewer, admin)).status).toBe(200);
    const keys = await redis.client.keys('dg:rl:*');
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      await redis.client.del(key);
      await redis.client.hset(key, 'field', 'value');
    }
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await r.post(viewer, admin)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    for (const key of keys) expect(await redis.client.pttl(key)).toBeGreaterThan(0);
  });

  it('an APQ quota key holding a count that never expires starts a window: the caller registers again', async () => {
    const r = await replica({ persistedOperations: { apqQuota: 2 } });
    const apq = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') } });
    // The token accepted first: its registrations are counted against it (not its address).
    expect((await r.post({ query: '{ viewer { email } }' }, admin)).json.errors).toBeUndefined();
    const first = '{ viewer { displayName } }';
    expect((await r.post({ query: first, extensions: apq(first) }, admin)).json.errors).toBeUndefined();
    const keys = await redis.client.keys('dg:apq:quota:*');
    expect(keys).toHaveLength(1);
    await redis.client.set(keys[0], '1000');
    const second = '{ viewer { restId } }';
    expect((await r.post({ query: second, extensions: apq(second) }, admin)).json.errors).toBeUndefined();
    expect((await r.post({ extensions: apq(second) }, admin)).json.data?.viewer.restId).toBe(upstream.world.users.admin.id);
    expect(await redis.client.pttl(keys[0])).toBeGreaterThan(0);
  });
});
