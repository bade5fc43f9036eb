/**
 * Access invalidation scoped to one user (issue 18, item 4), in process and in Redis: a write that
 * can only change one user's access (`updateMember`, `removeMember`, `removeSpaceUserPermission`,
 * …) makes that user's cached results stale (every token of theirs, known to the gateway or not
 * yet) and leaves other callers' results cached; a write with a wider effect (teams, transfers)
 * still makes every result stale. The gateway learns a session's user with one `GET /user`, only
 * for a token whose result it stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/api/roles.js';
import { issueToken } from '../../src/upstream/auth.js';
import { cachedRead as readTwice, CR, newReader, revoked as refused } from '../helpers/cachedReads.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { TESTS_REDIS, dumpRedis, startRedis, startReplica, waitFor, type TestRedis } from '../helpers/redis.js';
import { buildGateway } from '../../src/gateway/app.js';
import { startChaosProxy } from '../helpers/chaosProxy.js';
import { startUpstream } from '../helpers/upstream.js';

const SPACE = `query($spaceId: String!) { space(spaceId: $spaceId) { title } }`;
// Not `viewer`, whose resolver asks `GET /user` too.
const WARM = `query Warm { integrations(first: 1) { nodes { name } } }`;

for (const store of ['memory', 'redis'] as const) {
  describe(`response cache, access writes scoped to one user (${store})`, () => {
    let t: TestStack;
    let redis: TestRedis | undefined;
    const userLookups = () => t.calls.filter((c) => c.method === 'GET' && c.path === '/user').length;

    beforeAll(async () => {
      redis = store === 'redis' ? await startRedis() : undefined;
      t = await startStack({ responseCacheTtlMs: 60_000, ...(redis ? { redisUrl: redis.url, redis: TESTS_REDIS } : {}) });
      if (redis) await waitFor(() => t.gateway.redis!.isRedisReady());
    });
    afterAll(async () => {
      await t?.stop();
      await redis?.stop();
    });

    const member = (role: Role | null) => newReader(t, role, 'Scoped');

    /** A first stored result of `token`'s session, then its user lookup, done (the gateway knows whose it is). */
    async function known(token: string) {
      const before = userLookups();
      expect((await t.gql(WARM, {}, token)).extensions?.responseCache).toMatchObject({ didCache: true });
      await waitFor(() => userLookups() > before, 'the user lookup');
    }

    /**
     * Another admin's token, known to the gateway: its results are keyed by its user, so only the
     * invalidation of what they hold (not the unknown-user generation a user's write renews) makes
     * them stale.
     */
    async function knownAdmin() {
      const token = issueToken(t.upstream.db, t.world.users.admin.id, t.clock.now().toISOString(), 'another admin');
      await known(token);
      return token;
    }

    const cachedRead = (token: string, spaceId: string, cr: string) => readTwice(t, token, spaceId, cr);
    const revoked = (token: string, spaceId: string, cr: string) => refused(t, token, spaceId, cr);

    /** A reader known to the gateway whose read of its space is cached (its second read a hit): the reader, and that read. */
    async function cachedSpaceRead() {
      const b = await member('read');
      await known(b.user.token);
      const read = () => t.gql(SPACE, { spaceId: b.spaceId }, b.user.token);
      await read();
      expect((await read()).extensions?.responseCache.hit).toBe(true);
      return { b, read };
    }

    it("an admin's updateMember of user A leaves caller B's cached results cached", async () => {
      const a = await member('read');
      const b = await member('read');
      await known(b.user.token);
      await t.gql(SPACE, { spaceId: b.spaceId }, b.user.token);
      expect((await t.gql(SPACE, { spaceId: b.spaceId }, b.user.token)).extensions?.responseCache.hit).toBe(true);
      for (const role of ['ADMIN', 'READ']) {
        await t.payload('updateMember', { organizationId: t.world.orgId, userId: a.user.id, role }, 'member { role }');
        t.resetCalls();
        const after = await t.gql(SPACE, { spaceId: b.spaceId }, b.user.token);
        expect(after.extensions?.responseCache.hit).toBe(true);
        expect(after.data?.space.title).toBe(b.title);
        expect(t.calls).toEqual([]);
      }
    });

    it("updateMember of A: A's own cached results are stale, another admin's cached member list shows the new role", async () => {
      const a = await member('read');
      await known(a.user.token);
      const ROLE = `query($org: String!, $user: String!) { member(organizationId: $org, userId: $user) { role } }`;
      const vars = { org: t.world.orgId, user: a.user.id };
      const admin = await knownAdmin();
      expect((await t.data(ROLE, vars, admin)).member.role).toBe('READ');
      expect((await t.gql(ROLE, vars, admin)).extensions?.responseCache.hit).toBe(true);
      const PERMS = `query($spaceId: String!) { space(spaceId: $spaceId) { permissions { admin } } }`;
      expect((await t.data(PERMS, { spaceId: a.spaceId }, a.user.token)).space.permissions.admin).toBe(false);
      expect((await t.gql(PERMS, { spaceId: a.spaceId }, a.user.token)).extensions?.responseCache.hit).toBe(true);
      await t.payload('updateMember', { organizationId: t.world.orgId, userId: a.user.id, role: 'ADMIN' }, 'clientMutationId');
      const mine = await t.gql(PERMS, { spaceId: a.spaceId }, a.user.token);
      expect(mine.extensions?.responseCache.hit).toBe(false);
      expect(mine.data?.space.permissions.admin).toBe(true);
      const theirs = await t.gql(ROLE, vars, admin);
      expect(theirs.extensions?.responseCache.hit).toBe(false);
      expect(theirs.data?.member.role).toBe('ADMIN');
    });

    it("updateMember of A: other callers' lists A joins are read again; their results holding the organization alone are kept", async () => {
      const a = await member(null);
      const b = await member('read');
      const admin = await knownAdmin();
      const AGGREGATE = `query($spaceId: String!) { space(spaceId: $spaceId) { aggregatePermissions(first: 100) { nodes { restId } } } }`;
      const ADMINS = `query($org: String!) { organization(organizationId: $org) { members(first: 100, role: ADMIN) { nodes { restId } } } }`;
      const SPACES = `query($org: String!) { organization(organizationId: $org) { title spaces(first: 1) { nodes { title } } } }`;
      const ids = (nodes: Array<{ restId: string }>) => nodes.map((node) => node.restId);
      const aggregate = async () => ids((await t.data(AGGREGATE, { spaceId: b.spaceId }, admin)).space.aggregatePermissions.nodes);
      const admins = async () => ids((await t.data(ADMINS, { org: t.world.orgId }, admin)).organization.members.nodes);
      expect(await aggregate()).not.toContain(a.user.id);
      expect(await admins()).not.toContain(a.user.id);
      await known(b.user.token);
      await t.gql(SPACES, { org: t.world.orgId }, b.user.token);
      expect((await t.gql(AGGREGATE, { spaceId: b.spaceId }, admin)).extensions?.responseCache.hit).toBe(true);
      expect((await t.gql(ADMINS, { org: t.world.orgId }, admin)).extensions?.responseCache.hit).toBe(true);
      expect((await t.gql(SPACES, { org: t.world.orgId }, b.user.token)).extensions?.responseCache.hit).toBe(true);

      await t.payload('updateMember', { organizationId: t.world.orgId, userId: a.user.id, role: 'ADMIN' }, 'clientMutationId');
      expect(await aggregate()).toContain(a.user.id);
      expect(await admins()).toContain(a.user.id);
      t.resetCalls();
      expect((await t.gql(SPACES, { org: t.world.orgId }, b.user.token)).extensions?.responseCache.hit).toBe(true);
      expect(t.calls).toEqual([]);
    });

    for (const user of ['known', 'not yet known'] as const)
      it(`removeMember and removeSpaceUserPermission of A make A's cached results stale (A's user ${user})`, async () => {
        const a = await member('read');
        // A second token of A: its session is another, the user is the same.
        const other = issueToken(t.upstream.db, a.user.id, t.clock.now().toISOString(), 'second');
        if (user === 'known') await known(a.user.token);
        else
          expect((await t.gql(CR, { spaceId: a.spaceId, cr: a.cr }, other)).extensions?.responseCache).toMatchObject({
            hit: false,
            didCache: true,
          });
        if (user === 'known') await cachedRead(a.user.token, a.spaceId, a.cr);
        await t.payload('removeMember', { organizationId: t.world.orgId, userId: a.user.id }, 'deletedId');
        if (user === 'known') await revoked(a.user.token, a.spaceId, a.cr);
        await revoked(other, a.spaceId, a.cr);

        // A guest with a role on one space only.
        const g = await member(null);
        const token = user === 'known' ? g.user.token : issueToken(t.upstream.db, g.user.id, t.clock.now().toISOString(), 'fresh');
        await t.payload('grantSpacePermission', { spaceId: g.spaceId, role: 'READ', users: [g.user.id] }, 'clientMutationId');
        if (user === 'known') {
          await known(token);
          await cachedRead(token, g.spaceId, g.cr);
        } else expect((await t.gql(CR, { spaceId: g.spaceId, cr: g.cr }, token)).extensions?.responseCache.didCache).toBe(true);
        await t.payload('removeSpaceUserPermission', { spaceId: g.spaceId, userId: g.user.id }, 'clientMutationId');
        await revoked(token, g.spaceId, g.cr);
      });

    it("removeMember of A: another admin's cached team of A shows one member fewer", async () => {
      const a = await member('read');
      const created = await t.payload(
        'createTeam',
        { organizationId: t.world.orgId, title: `Team of ${a.title}`, members: [a.user.id] },
        'team { restId membersCount }',
      );
      const TEAM = `query($org: String!, $team: String!) { team(organizationId: $org, teamId: $team) { membersCount } }`;
      const admin = await knownAdmin();
      const vars = { org: t.world.orgId, team: created.team.restId };
      const count = (await t.data(TEAM, vars, admin)).team.membersCount;
      expect((await t.gql(TEAM, vars, admin)).extensions?.responseCache.hit).toBe(true);
      await t.payload('removeMember', { organizationId: t.world.orgId, userId: a.user.id }, 'deletedId');
      const after = await t.gql(TEAM, vars, admin);
      expect(after.extensions?.responseCache.hit).toBe(false);
      expect(after.data?.team.membersCount).toBe(count - 1);
    });

    it("removeSpaceUserPermission of A: another admin's cached member A counts one space fewer", async () => {
      const g = await member(null);
      await t.payload('grantSpacePermission', { spaceId: g.spaceId, role: 'READ', users: [g.user.id] }, 'clientMutationId');
      const admin = await knownAdmin();
      const MEMBER = `query($org: String!, $user: String!) { member(organizationId: $org, userId: $user) { spacesCount } }`;
      const vars = { org: t.world.orgId, user: g.user.id };
      expect((await t.data(MEMBER, vars, admin)).member.spacesCount).toBe(1);
      expect((await t.gql(MEMBER, vars, admin)).extensions?.responseCache.hit).toBe(true);
      await t.payload('removeSpaceUserPermission', { spaceId: g.spaceId, userId: g.user.id }, 'clientMutationId');
      const after = await t.gql(MEMBER, vars, admin);
      expect(after.extensions?.responseCache.hit).toBe(false);
      expect(after.data?.member.spacesCount).toBe(0);
    });

    it('a write inside a fragment at the mutation root is seen as well (inline or named)', async () => {
      for (const [i, document] of [
        'mutation($input: RemoveMemberInput!) { ... on Mutation { removeMember(input: $input) { deletedId } } }',
        'mutation($input: RemoveMemberInput!) { ...Leave } fragment Leave on Mutation { removeMember(input: $input) { deletedId } }',
      ].entries()) {
        const a = await member('read');
        if (i === 0) await known(a.user.token);
        await cachedRead(a.user.token, a.spaceId, a.cr);
        const removed = await t.gql(document, { input: { organizationId: t.world.orgId, userId: a.user.id } });
        expect(removed.errors).toBeUndefined();
        await revoked(a.user.token, a.spaceId, a.cr);
      }
    });

    it("a write that may change several users' access (a team, a transfer) still makes every caller's results stale", async () => {
      const { b, read } = await cachedSpaceRead();
      await t.payload('createTeam', { organizationId: t.world.orgId, title: `Team of ${b.title}` }, 'clientMutationId');
      expect((await read()).extensions?.responseCache.hit).toBe(false);
      expect((await read()).extensions?.responseCache.hit).toBe(true);
      const elsewhere = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Moved away' })).body.id as string;
      await t.payload('transferSpace', { spaceId: elsewhere, organization: t.world.otherOrgId }, 'clientMutationId');
      expect((await read()).extensions?.responseCache.hit).toBe(false);
    });

    it('a write the REST API or the gateway refused (no token, a junk token, a reader forbidden, a member not found, bad input) makes nothing stale, renews nothing', async () => {
      const { b, read } = await cachedSpaceRead();
      const reader = await member('read');
      // Every generation key with its value: none made, none renewed.
      const generations = async () => {
        if (!redis) return [];
        const keys = (await redis.client.keys('dg:rc:g*')).sort();
        const values = keys.length ? await redis.client.mget(...keys) : [];
        return keys.map((key, i) => `${key}=${values[i]}`);
      };
      const before = await generations();
      const TEAM = `mutation($i: CreateTeamInput!) { createTeam(input: $i) { clientMutationId } }`;
      const MEMBER = `mutation($i: UpdateMemberInput!) { member: updateMember(input: $i) { clientMutationId } }`;
      const codes: unknown[] = [];
      for (const token of [null, 'junk-token-that-the-upstream-rejects', reader.user.token])
        for (let i = 0; i < 3; i++) {
          // A reader may create teams (a write made): only its member write is refused.
          if (token !== reader.user.token) {
            const team = await t.gql(TEAM, { i: { organizationId: t.world.orgId, title: `Refused ${i}` } }, token);
            codes.push(team.errors?.[0]?.extensions?.code);
          }
          const role = await t.gql(MEMBER, { i: { organizationId: t.world.orgId, userId: `nobody${i}`, role: 'ADMIN' } }, token);
          codes.push(role.errors?.[0]?.extensions?.code);
        }
      // An admin's write to a member that does not exist (404: not applied).
      for (let i = 0; i < 3; i++) {
        const missing = await t.gql(MEMBER, { i: { organizationId: t.world.orgId, userId: `nobody${i}`, role: 'ADMIN' } });
        codes.push(missing.errors?.[0]?.extensions?.code);
      }
      // Input the gateway refuses before any REST call, from anyone: a grant to no one (an access
      // write: it renewed the global generation), an id that is no path segment (a delete: it forgot
      // every cached space).
      const GRANT = `mutation($i: GrantSpacePermissionInput!) { grantSpacePermission(input: $i) { clientMutationId } }`;
      const DELETE = `mutation($i: DeleteSpaceInput!) { deleteSpace(input: $i) { deletedId } }`;
      for (const token of [null, 'junk-token-that-the-upstream-rejects', reader.user.token, undefined]) {
        const grant = await t.gql(GRANT, { i: { spaceId: b.spaceId, role: 'READ' } }, token);
        const deleted = await t.gql(DELETE, { i: { spaceId: '..' } }, token);
        codes.push(grant.errors?.[0]?.extensions?.code, deleted.errors?.[0]?.extensions?.code);
      }
      expect(new Set(codes)).toEqual(new Set(['UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'BAD_USER_INPUT']));
      t.resetCalls();
      const after = await read();
      expect(after.extensions?.responseCache.hit).toBe(true);
      expect(t.calls).toEqual([]);
      // No generation made or renewed: a caller without a token cannot grow Redis by one key a request.
      if (redis) expect(await generations()).toEqual(before);
    });

    it("a write whose read before it failed (another organization's token deleting what it cannot see) makes nothing stale", async () => {
      const { b, read } = await cachedSpaceRead();
      // The outsider (globex only) deletes acme's space, one that does not exist, and a collection;
      // a reader merges a change request by a number that does not exist. Each read before its write
      // is answered 404, and no write is sent.
      const outsider = t.world.users.outsider.token;
      const writes: Array<[string, Record<string, unknown>, string]> = [
        ['deleteSpace', { spaceId: b.spaceId }, outsider],
        ['deleteSpace', { spaceId: 'no-such-space' }, outsider],
        ['deleteCollection', { collectionId: 'no-such-collection' }, outsider],
        ['mergeChangeRequest', { spaceId: b.spaceId, changeRequestId: '999' }, b.user.token],
      ];
      for (const [name, input, token] of writes) {
        t.resetCalls();
        const res = await t.mutate(name, input, 'clientMutationId', token);
        expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', upstream: { method: 'GET', status: 404 } });
        expect(t.calls.filter((c) => c.method !== 'GET')).toEqual([]);
      }
      t.resetCalls();
      expect((await read()).extensions?.responseCache.hit).toBe(true);
      expect(t.calls).toEqual([]);
    });

    it('looks a session up once (GET /user), not for a junk token nor without a token', async () => {
      const b = await member('read');
      const before = userLookups();
      const junk = 'junk-token-that-the-upstream-rejects';
      for (let i = 0; i < 3; i++) {
        await t.gql(`query Junk${i} { __typename }`, {}, junk);
        await t.gql(`query Anonymous${i} { __typename }`, {}, null);
      }
      for (let i = 0; i < 5; i++)
        expect(
          (await t.gql(`query Q${i}($spaceId: String!) { space(spaceId: $spaceId) { title } }`, { spaceId: b.spaceId }, b.user.token))
            .extensions?.responseCache.didCache,
        ).toBe(true);
      await waitFor(() => userLookups() > before, 'the user lookup');
      await t.gql(`query Again { space(spaceId: "${b.spaceId}") { title } }`, {}, b.user.token);
      expect(userLookups() - before).toBe(1);
    });

    if (store === 'redis')
      it("a user's renewal that fails while Redis is frozen renews the global generation once Redis is back", async () => {
        let now = 0;
        const r = startReplica(t.url, {
          responseCacheTtlMs: 60_000,
          redisUrl: redis!.url,
          redis: { commandTimeoutMs: 300, coolDownMs: 5000, now: () => now },
        });
        try {
          await waitFor(() => r.gateway.redis!.isRedisReady());
          const a = await member('read');
          const b = await member('read');
          const read = (u: typeof a) => r.post({ query: CR, variables: { spaceId: u.spaceId, cr: u.cr } }, u.user.token);
          for (const u of [a, b]) {
            await r.post({ query: WARM }, u.user.token);
            await waitFor(() => r.calls.filter((c) => c.path === '/user').length >= (u === a ? 1 : 2), 'the user lookup');
            await read(u);
            await waitFor(async () => (await read(u)).json.extensions?.responseCache.hit === true, 'a cached read');
          }
          redis!.freeze(true);
          try {
            const removed = await r.post(
              {
                query: 'mutation($input: RemoveMemberInput!) { removeMember(input: $input) { deletedId } }',
                variables: { input: { organizationId: t.world.orgId, userId: a.user.id } },
              },
              t.world.users.admin.token,
            );
            expect(removed.json.errors).toBeUndefined();
          } finally {
            redis!.freeze(false);
          }
          now += 5000;
          await waitFor(() => r.gateway.redis!.isRedisReady());
          const after = await read(a);
          expect(after.json.extensions?.responseCache?.hit).not.toBe(true);
          expect(after.json.data?.changeRequest ?? null).toBeNull();
          // Renewed as the global generation: B's results are read again too.
          expect((await read(b)).json.extensions?.responseCache?.hit).not.toBe(true);
        } finally {
          await r.stop();
        }
      });

    if (store === 'redis')
      it('a second replica on the same Redis sees the write scoped to A, and keeps B cached', async () => {
        const other = startReplica(t.url, { responseCacheTtlMs: 60_000, redisUrl: redis!.url });
        try {
          await waitFor(() => other.gateway.redis!.isRedisReady());
          const a = await member('read');
          const b = await member('read');
          const read = (token: string, spaceId: string, cr: string) => other.post({ query: CR, variables: { spaceId, cr } }, token);
          // A and B known on the second replica (a stored result each, then the lookup).
          for (const u of [a, b]) {
            await other.post({ query: WARM }, u.user.token);
            await waitFor(
              () =>
                other.calls.some((c) => c.path === '/user') && other.calls.filter((c) => c.path === '/user').length >= (u === a ? 1 : 2),
            );
            await read(u.user.token, u.spaceId, u.cr);
            expect((await read(u.user.token, u.spaceId, u.cr)).json.extensions?.responseCache.hit).toBe(true);
          }
          await t.payload('removeMember', { organizationId: t.world.orgId, userId: a.user.id }, 'deletedId');
          const after = await read(a.user.token, a.spaceId, a.cr);
          expect(after.json.extensions?.responseCache?.hit).not.toBe(true);
          expect(after.json.data?.changeRequest ?? null).toBeNull();
          other.calls.splice(0);
          expect((await read(b.user.token, b.spaceId, b.cr)).json.extensions?.responseCache.hit).toBe(true);
          expect(other.calls).toEqual([]);
          // Users' generations are keyed by a hash of the id, never the id, and expire.
          const all = await dumpRedis(redis!.client);
          expect([...all.keys()].filter((k) => k.startsWith('dg:rc:g:u:')).length).toBeGreaterThanOrEqual(2);
          for (const [key, value] of all) for (const id of [a.user.id, b.user.id]) expect(`${key}\n${value}`).not.toContain(id);
          for (const key of all.keys()) if (key.startsWith('dg:rc:g')) expect(await redis!.client.pttl(key), key).toBeGreaterThan(0);
        } finally {
          await other.stop();
        }
      });
  });
}

describe('response cache, a write that failed without a refusal', () => {
  it('an access write answered 500 (it may have been made) still makes every result stale', async () => {
    await using upstream = await startUpstream();
    await using proxy = await startChaosProxy(upstream.url, { failRate: 0, faults: [500] });
    const gateway = buildGateway({ upstreamUrl: proxy.url, responseCacheTtlMs: 60_000, rest: { retries: 0 } });
    try {
      const url = await gateway.start();
      const gql = async (query: string, variables: Record<string, unknown>) =>
        (await (
          await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${upstream.world.users.admin.token}` },
            body: JSON.stringify({ query, variables }),
          })
        ).json()) as { data?: any; errors?: Array<{ extensions?: { code?: string } }>; extensions?: any };
      const spaceId = (await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Kept' })).body.id as string;
      await gql(SPACE, { spaceId });
      expect((await gql(SPACE, { spaceId })).extensions?.responseCache.hit).toBe(true);
      proxy.configure({ failRate: 1, faults: [500], methods: ['PUT'], paths: /\/teams$/ });
      const team = await gql(`mutation($i: CreateTeamInput!) { createTeam(input: $i) { clientMutationId } }`, {
        i: { organizationId: upstream.world.orgId, title: 'Maybe made' },
      });
      expect(team.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
      expect((await gql(SPACE, { spaceId })).extensions?.responseCache.hit).toBe(false);
    } finally {
      await gateway.stop();
    }
  });
});

describe("response cache in Redis, the tests' own waits", () => {
  it('a Redis reply later than the production command timeout leaves the next hits hits (a loaded machine)', async () => {
    await using redis = await startRedis();
    const t = await startStack({ responseCacheTtlMs: 60_000, redisUrl: redis.url, redis: TESTS_REDIS });
    try {
      await waitFor(() => t.gateway.redis!.isRedisReady());
      const a = await newReader(t, 'read');
      await t.gql(CR, { spaceId: a.spaceId, cr: a.cr }, a.user.token);
      // Redis stalled past 250 ms (the production command timeout) while a request waits for it, as
      // a redis-server on a machine at load 8 was: before, the breaker opened and the rest of the
      // file's expected hits were misses for its 5 s cool-down.
      redis.freeze(true);
      const stalled = t.gql(CR, { spaceId: a.spaceId, cr: a.cr }, a.user.token);
      await new Promise((resolve) => setTimeout(resolve, 300));
      redis.freeze(false);
      await stalled;
      const b = await newReader(t, 'read');
      await readTwice(t, b.user.token, b.spaceId, b.cr);
    } finally {
      await t.stop();
    }
  });
});
