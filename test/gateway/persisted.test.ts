/**
 * Persisted operations and automatic persisted queries: a `documentId` from the file runs, over POST
 * or GET (Relay's and Codegen's ids as written; never a mutation over GET); APQ follows Apollo's
 * protocol (PersistedQueryNotFound with code PERSISTED_QUERY_NOT_FOUND, then register with the
 * query, hash checked), and registrations are bounded (size, per-caller quota, counted in Redis
 * across replicas; only documents that passed every limit); `--persisted-only` refuses raw
 * documents and APQ registration before any REST call, over HTTP and over graphql-sse's endpoint.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULTS } from '../../src/config.js';
import {
  loadPersistedOperations,
  PERSISTED_FILE_MAX_BYTES,
  PERSISTED_ID_MAX_LENGTH,
  PERSISTED_MAX_IDS,
} from '../../src/gateway/plugins/usePersistedOperations.js';
import { startUpstream } from '../helpers/upstream.js';
import { dumpRedis, listening, readyReplica, startRedis, startReplica, stopAfterEach, type Replica } from '../helpers/redis.js';

const VIEWER = 'query Viewer { viewer { displayName } }';
const ORG = 'query Org($org: String!) { organization(organizationId: $org) { title } }';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const RENAME = 'mutation Create($org: String!) { createSpace(input: { organizationId: $org, title: "New" }) { space { title } } }';
const apq = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(query) } });

/** A persisted operations file as the Relay compiler's --persist-output writes it (id → document). */
function persistedFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'persisted-')), 'persisted-queries.json');
  // Relay's persistConfig manifest (md5 ids), Codegen's client preset manifest (`sha256:<hex>` ids) and a plain id.
  writeFileSync(
    file,
    JSON.stringify({ viewer1: VIEWER, [sha256(ORG)]: ORG, [md5(ORG)]: ORG, [`sha256:${sha256(VIEWER)}`]: VIEWER, [md5(RENAME)]: RENAME }),
  );
  return file;
}

describe('persisted operations', () => {
  const track = stopAfterEach();

  const start = async (only: boolean) => {
    const upstream = track(await startUpstream());
    const r = track(startReplica(upstream.url, { persistedOperations: { documents: loadPersistedOperations(persistedFile()), only } }));
    return { r, token: upstream.world.users.admin.token, org: upstream.world.orgId, adminId: upstream.world.users.admin.id };
  };

  it('runs a documentId from the file, with variables, and its hash sent as APQ', async () => {
    const { r, token, org } = await start(false);
    expect((await r.post({ documentId: 'viewer1' }, token)).json).toEqual({ data: { viewer: { displayName: 'Ada admin' } } });
    expect((await r.post({ documentId: sha256(ORG), variables: { org } }, token)).json.data).toEqual({ organization: { title: 'Acme' } });
    expect((await r.post({ variables: { org }, extensions: apq(ORG) }, token)).json.data).toEqual({ organization: { title: 'Acme' } });
    const unknown = await r.post({ documentId: 'nope' }, token);
    expect(unknown.status).toBe(400);
    expect(unknown.json.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/^Unknown documentId/),
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('runs a documentId over GET (Relay and Codegen ids as written, variables); never a mutation', async () => {
    const { r, token, org } = await start(true);
    const get = async (params: Record<string, string>) => {
      const res = await r.gateway.yoga.fetch(`http://gateway.test/graphql?${new URLSearchParams(params)}`, {
        headers: { accept: 'application/graphql-response+json', authorization: `Bearer ${token}` },
      });
      return { status: res.status, json: (await res.json()) as { data?: any; errors?: any[] } };
    };
    const relay = await get({ documentId: md5(ORG), variables: JSON.stringify({ org }), operationName: 'Org' });
    expect(relay).toEqual({ status: 200, json: { data: { organization: { title: 'Acme' } } } });
    const codegen = await get({ documentId: `sha256:${sha256(VIEWER)}` });
    expect(codegen.json).toEqual({ data: { viewer: { displayName: 'Ada admin' } } });

    r.calls.splice(0);
    const mutation = await get({ documentId: md5(RENAME), variables: JSON.stringify({ org }) });
    expect(mutation.status).toBe(405);
    expect(mutation.json.errors?.[0].message).toMatch(/mutation operation from a POST/);
    expect(r.calls).toEqual([]);

    const unknown = await get({ documentId: md5('{ nope }') });
    expect(unknown).toMatchObject({ status: 400, json: { errors: [{ message: expect.stringMatching(/^Unknown documentId/) }] } });
    expect(r.calls).toEqual([]);
    // Without a header a cross-site link cannot set, a GET is refused as for a raw query (CSRF).
    const res = await r.gateway.yoga.fetch(`http://gateway.test/graphql?${new URLSearchParams({ documentId: 'viewer1' })}`);
    expect(res.status).toBe(403);
  });

  it('follows the APQ protocol: not found, register (hash checked), then by hash alone', async () => {
    const { r, token, adminId } = await start(false);
    const query = '{ viewer { restId } }';
    const missing = await r.post({ extensions: apq(query) }, token);
    // The message APQ clients recognize, and the contract's code for it.
    expect(missing.json.errors?.[0]).toMatchObject({
      message: 'PersistedQueryNotFound',
      extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
    });
    expect(r.calls).toEqual([]);

    const mismatch = await r.post({ query: '{ viewer { displayName } }', extensions: apq(query) }, token);
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.errors?.[0]).toMatchObject({
      message: 'provided sha does not match query',
      extensions: { code: 'BAD_USER_INPUT' },
    });

    // A document that does not validate is not registered.
    const invalid = '{ viewer { noSuchField } }';
    expect((await r.post({ query: invalid, extensions: apq(invalid) }, token)).json.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect((await r.post({ extensions: apq(invalid) }, token)).json.errors?.[0].message).toBe('PersistedQueryNotFound');

    const registered = await r.post({ query, extensions: apq(query) }, token);
    expect(registered.json.data?.viewer.restId).toBe(adminId);
    expect((await r.post({ extensions: apq(query) }, token)).json.data?.viewer.restId).toBe(adminId);
    // Raw documents still run without --persisted-only.
    expect((await r.post({ query: VIEWER }, token)).json.data?.viewer.displayName).toBe('Ada admin');
  });

  for (const store of ['memory', 'redis'] as const)
    it(`one caller's APQ registration is not another's: a hash alone tells no one else it was sent (${store})`, async () => {
      const upstream = track(await startUpstream());
      const redis = store === 'redis' ? track(await startRedis()) : undefined;
      const [a, b] = redis
        ? await Promise.all([0, 1].map(() => readyReplica(track, upstream.url, { redisUrl: redis.url })))
        : [await listening(track(startReplica(upstream.url, {})))];
      const { admin, outsider } = upstream.world.users;
      const replicas = b ? [a, b] : [a];
      // Both tokens proven on every replica (the REST API answered for them): registered for every replica.
      for (const r of replicas)
        for (const token of [admin.token, outsider.token])
          expect((await r.post({ query: '{ viewer { restId } }' }, token)).json.errors).toBeUndefined();
      // A document with a literal another caller could guess (an organization's id).
      const query = `{ organization(organizationId: "${upstream.world.orgId}") { title } }`;
      expect((await a.post({ query, extensions: apq(query) }, admin.token)).json.data).toEqual({ organization: { title: 'Acme' } });
      for (const r of replicas) {
        expect((await r.post({ extensions: apq(query) }, admin.token)).json.data).toEqual({ organization: { title: 'Acme' } });
        // Before: the hash alone ran the document for any caller (an outsider's NOT_FOUND, no token's
        // UNAUTHENTICATED), telling it that someone had sent it.
        for (const token of [outsider.token, null, 'made-up']) {
          r.calls.splice(0);
          const probe = await r.post({ extensions: apq(query) }, token);
          expect(probe.json.errors?.map((e) => e.extensions?.code)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
          expect(r.calls).toEqual([]);
        }
      }
      // The outsider registers it for itself: then its hash runs for it (and the REST API answers).
      await a.post({ query, extensions: apq(query) }, outsider.token);
      expect((await a.post({ extensions: apq(query) }, outsider.token)).json.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    });

  describe('APQ registrations are bounded', () => {
    const startApq = async (options: { apqMaxBytes?: number; apqQuota?: number } = {}) => {
      const upstream = track(await startUpstream());
      const r = track(startReplica(upstream.url, { persistedOperations: options }));
      return { r, world: upstream.world };
    };
    const registered = async (r: Replica, query: string, token: string | null) =>
      (await r.post({ extensions: apq(query) }, token)).json.errors?.[0]?.message !== 'PersistedQueryNotFound';

    it('a document over the size cap (default 32 KB) runs but is not registered', async () => {
      const { r, world } = await startApq();
      const token = world.users.admin.token;
      const big = `{ __typename${' '.repeat(40_000)}}`;
      expect((await r.post({ query: big, extensions: apq(big) }, token)).json).toEqual({ data: { __typename: 'Query' } });
      expect(await registered(r, big, token)).toBe(false);
      const small = `{ __typename${' '.repeat(30_000)}}`;
      expect((await r.post({ query: small, extensions: apq(small) }, token)).json).toEqual({ data: { __typename: 'Query' } });
      expect(await registered(r, small, token)).toBe(true);
    });

    it('each caller registers at most --apq-quota documents (the rest run, unregistered)', async () => {
      const { r, world } = await startApq({ apqQuota: 2 });
      const [admin, other] = [world.users.admin.token, world.users.outsider.token];
      // Each token proven (the REST API answered for it): each has a quota of its own.
      for (const token of [admin, other]) expect((await r.post({ query: '{ viewer { restId } }' }, token)).json.errors).toBeUndefined();
      const docs = [1, 2, 3].map((n) => `{ __typename${' '.repeat(n)}}`);
      for (const doc of docs)
        expect((await r.post({ query: doc, extensions: apq(doc) }, admin)).json.data).toEqual({ __typename: 'Query' });
      expect(await Promise.all(docs.map((doc) => registered(r, doc, admin)))).toEqual([true, true, false]);
      // Another caller has its own quota.
      expect((await r.post({ query: docs[2], extensions: apq(docs[2]) }, other)).json.data).toEqual({ __typename: 'Query' });
      expect(await registered(r, docs[2], other)).toBe(true);
    });

    it('a wall-clock step gives no caller a fresh quota', async () => {
      // The wall clock as the process sees it, from before the gateway starts (it may keep `Date.now`).
      const wallClock = Date.now.bind(Date);
      let step = 0;
      vi.spyOn(Date, 'now').mockImplementation(() => wallClock() + step);
      try {
        const { r, world } = await startApq({ apqQuota: 1 });
        const token = world.users.admin.token;
        expect((await r.post({ query: '{ viewer { restId } }' }, token)).json.errors).toBeUndefined();
        const [one, two] = ['{ __typename }', '{ __typename  }'];
        await r.post({ query: one, extensions: apq(one) }, token);
        // Stepped forward 2 hours (NTP, a resumed VM): the same hour still, not a new quota.
        step = 7_200_000;
        expect((await r.post({ query: two, extensions: apq(two) }, token)).json.data).toEqual({ __typename: 'Query' });
        expect([await registered(r, one, token), await registered(r, two, token)]).toEqual([true, false]);
      } finally {
        vi.restoreAllMocks();
      }
    });

    it('tokens the REST API has not answered for count against their client address: made-up ones get no quota each', async () => {
      const { r } = await startApq({ apqQuota: 2 });
      const docs = [1, 2, 3, 4].map((n) => `{ __typename${' '.repeat(n)}}`);
      // Before: a fresh made-up token per request had a quota of its own, and registered them all.
      for (const [i, doc] of docs.entries())
        expect((await r.post({ query: doc, extensions: apq(doc) }, `made-up-${i}`)).json.data).toEqual({ __typename: 'Query' });
      expect(await Promise.all(docs.map((doc, i) => registered(r, doc, `made-up-${i}`)))).toEqual([true, true, false, false]);
    });

    it('the quota is counted in Redis for all replicas, under a key that expires and names no token', async () => {
      const upstream = track(await startUpstream());
      const redis = track(await startRedis());
      const [a, b] = [0, 1].map(() => track(startReplica(upstream.url, { redisUrl: redis.url, persistedOperations: { apqQuota: 1 } })));
      await vi.waitFor(() => expect(a.gateway.redis?.isRedisReady() && b.gateway.redis?.isRedisReady()).toBe(true), { timeout: 20_000 });
      const token = upstream.world.users.admin.token;
      // The token proven on both replicas (the REST API answered for it): its registrations are for every replica.
      for (const r of [a, b]) expect((await r.post({ query: '{ viewer { restId } }' }, token)).json.errors).toBeUndefined();
      const [one, two] = ['{ __typename }', '{ __typename  }'];
      await a.post({ query: one, extensions: apq(one) }, token);
      expect((await b.post({ query: two, extensions: apq(two) }, token)).json.data).toEqual({ __typename: 'Query' });
      expect([await registered(b, one, token), await registered(a, two, token)]).toEqual([true, false]);
      const quotaKeys = [...(await dumpRedis(redis.client)).keys()].filter((k) => k.startsWith('dg:apq:quota:'));
      expect(quotaKeys).toHaveLength(1);
      expect(quotaKeys[0]).not.toContain(token);
      expect(await redis.client.pttl(quotaKeys[0])).toBeGreaterThan(0);
    });

    it('a caller without an accepted token registers on its replica only: nothing of it is kept in Redis', async () => {
      const upstream = track(await startUpstream());
      const redis = track(await startRedis());
      const [a, b] = [0, 1].map(() => track(startReplica(upstream.url, { redisUrl: redis.url })));
      await vi.waitFor(() => expect(a.gateway.redis?.isRedisReady() && b.gateway.redis?.isRedisReady()).toBe(true), { timeout: 20_000 });
      const docs = [1, 2, 3].map((n) => `{ __typename${' '.repeat(n)}}`);
      // No token, a made-up one, and a real one on its first operation (not answered for yet).
      const tokens = [null, 'made-up', upstream.world.users.outsider.token];
      for (const [i, doc] of docs.entries())
        expect((await a.post({ query: doc, extensions: apq(doc) }, tokens[i])).json.data).toEqual({ __typename: 'Query' });
      // Before: each was kept a day in Redis, with a quota key per client address.
      expect([...(await dumpRedis(redis.client)).keys()].filter((k) => k.startsWith('dg:apq:'))).toEqual([]);
      expect(await Promise.all(docs.map((doc, i) => registered(a, doc, tokens[i])))).toEqual([true, true, true]);
      expect(await Promise.all(docs.map((doc, i) => registered(b, doc, tokens[i])))).toEqual([false, false, false]);
    });

    it('a document refused by a query limit (cost) is not registered', async () => {
      const { r, world } = await startApq();
      const token = world.users.admin.token;
      const costly = `query($org: String!) { organization(organizationId: $org) {
        spaces(first: 100) { nodes { organization { spaces(first: 100) { nodes { organization {
          members(first: 100) { nodes { organization { restId } } } } } } } } } } }`;
      const refused = await r.post({ query: costly, variables: { org: world.orgId }, extensions: apq(costly) }, token);
      expect(refused.json.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxCost' });
      expect(r.calls).toEqual([]);
      expect(await registered(r, costly, token)).toBe(false);
      expect(r.calls).toEqual([]);
    });
  });

  it('--persisted-only refuses raw documents and APQ registration before any REST call', async () => {
    const { r, token } = await start(true);
    for (const body of [{ query: VIEWER }, { query: '{ viewer { restId } }', extensions: apq('{ viewer { restId } }') }]) {
      const refused = await r.post(body, token);
      expect(refused.status).toBe(400);
      expect(refused.json.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      expect(refused.json.errors?.[0].message).toMatch(/Only persisted operations/);
    }
    expect(r.calls).toEqual([]);
    // graphql-sse's endpoint takes only raw documents: refused too.
    const res = await r.gateway.yoga.fetch('http://gateway.test/graphql/stream', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: VIEWER }),
    });
    const text = await res.text();
    expect(text).toMatch(/Only persisted operations/);
    // As over HTTP, without the hints of Yoga's HTTP answer (`extensions.http`).
    expect(text).toMatch(/"code":"BAD_USER_INPUT"/);
    expect(text).not.toMatch(/"http"/);
    expect(r.calls).toEqual([]);
    expect((await r.post({ documentId: 'viewer1' }, token)).json.data?.viewer.displayName).toBe('Ada admin');
  });

  it('names the file and the problem when it cannot be used', () => {
    const dir = mkdtempSync(join(tmpdir(), 'persisted-'));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ a: 1 }));
    expect(() => loadPersistedOperations(join(dir, 'bad.json'))).toThrow(/bad\.json: the document of "a" is not a string/);
    expect(() => loadPersistedOperations(join(dir, 'missing.json'))).toThrow(/Cannot read the persisted operations file .*missing\.json/);
  });

  it('refuses at start a file past its bounds, or a document a request naming it would get refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'persisted-'));
    const refusal = (name: string, content: string | object, limits?: Partial<typeof DEFAULTS.limits>) => {
      const file = join(dir, name);
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
      try {
        loadPersistedOperations(file, { ...DEFAULTS.limits, ...limits });
        return 'loaded';
      } catch (error) {
        const message = (error as Error).message;
        // One line, naming the file.
        expect(message).not.toContain('\n');
        expect(message).toContain(file);
        return message.slice(message.indexOf(file) + file.length);
      }
    };
    // Read whole and kept: a 14 MB file of 300,000 ids held 229 MB of RSS; a 10 MB file of `[`, 750 MB to parse.
    expect(refusal('big.json', ' '.repeat(PERSISTED_FILE_MAX_BYTES + 1))).toBe(
      `: ${PERSISTED_FILE_MAX_BYTES + 1} bytes, more than ${PERSISTED_FILE_MAX_BYTES}`,
    );
    const many = Object.fromEntries(Array.from({ length: PERSISTED_MAX_IDS + 1 }, (_, i) => [`id${i}`, VIEWER]));
    expect(refusal('many.json', many)).toBe(`: ${PERSISTED_MAX_IDS + 1} ids, more than ${PERSISTED_MAX_IDS}`);
    // Counted before parsing: 1.7 million tiny ids in 16 MiB ran the heap out while parsing.
    const unparsed = `{${'"a":"",'.repeat(PERSISTED_MAX_IDS)}"b":"" not JSON`;
    expect(refusal('many-unparsed.json', unparsed)).toBe(`: ${PERSISTED_MAX_IDS + 1} ids, more than ${PERSISTED_MAX_IDS}`);
    expect(refusal('twice.json', `{"a": ${JSON.stringify(VIEWER)}, "b": "", "a": ${JSON.stringify(ORG)}}`)).toBe(
      ': 1 id(s) written more than once',
    );
    expect(refusal('nested.json', { a: { b: VIEWER } })).toBe(
      ': expected a JSON object of id → GraphQL document (no nested object or array)',
    );
    expect(refusal('empty-id.json', { '': VIEWER })).toBe(`: the id "" must have 1 to ${PERSISTED_ID_MAX_LENGTH} characters`);
    expect(refusal('long-id.json', { ['x'.repeat(PERSISTED_ID_MAX_LENGTH + 1)]: VIEWER })).toMatch(/^: the id "x{40}…" must have/);
    expect(refusal('syntax.json', { ok: VIEWER, broken: 'query { viewer {' })).toBe(
      ': the document of "broken" would be refused: Syntax Error: Expected Name, found <EOF> at line 1, column 17.',
    );
    // Not the token: a file of other strings named by mistake has a secret there.
    expect(refusal('secrets.json', { apiKey: 'sk_live_s3cret' })).toBe(
      ': the document of "apiKey" would be refused: Syntax Error: Unexpected Name at line 1, column 1.',
    );
    expect(refusal('unknown.json', { a: 'query { nosuch }' })).toBe(
      ': the document of "a" would be refused: Cannot query field "nosuch" on type "Query".',
    );
    expect(refusal('deep.json', { a: VIEWER }, { maxDepth: 1 })).toMatch(/^: the document of "a" would be refused: maxDepth: /);
    expect(refusal('tokens.json', { a: VIEWER }, { maxTokens: 5 })).toMatch(/^: the document of "a" would be refused: maxTokens: /);
    expect(refusal('bytes.json', { a: VIEWER + ' '.repeat(2000) }, { maxDocumentBytes: 1024 })).toMatch(/: maxDocumentBytes: /);
    // Never the text around the mistake: the start of a secret, for a file named by mistake.
    expect(refusal('.env', 'REDIS_URL=redis://:s3cret@cache:6379\n')).toBe(": Unexpected token 'R' (not valid JSON)");
    expect(refusal('json.json', '{\n  "a":\n  s3cret }')).toBe(": Unexpected token 's' (not valid JSON)");
    expect(refusal('short.json', '{"a": "')).toMatch(/^: Unterminated string in JSON at position 7/);
    // Ids are opaque: a key JSON objects have otherwise is one like any other; a byte order mark is no mistake.
    expect(refusal('proto.json', `\uFEFF{"__proto__": ${JSON.stringify(VIEWER)}, "constructor": ${JSON.stringify(ORG)}}`)).toBe('loaded');
    expect(Object.keys(loadPersistedOperations(join(dir, 'proto.json')))).toEqual(['__proto__', 'constructor']);
  });
});
