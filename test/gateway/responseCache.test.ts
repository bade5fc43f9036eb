/**
 * The response cache in process (no Redis): a hit answers without any REST call and says so in
 * `extensions.responseCache.hit`; each caller has its own entries; a mutation makes every cached
 * result holding what it changed a miss (payload nodes, `deletedId`, the lists a create or delete
 * changes), even when the client never selected an `id`; errors are never cached.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from '../helpers/gateway.js';

const SPACE = `query($spaceId: String!) { space(spaceId: $spaceId) { title permissions { admin edit } } }`;
const SPACES = `query($org: String!) { organization(organizationId: $org) { spaces(first: 50) { nodes { title } } } }`;

describe('response cache (in process)', () => {
  let t: TestStack;
  let spaceId: string;
  const hits: boolean[] = [];

  beforeAll(async () => {
    t = await startStack({ responseCacheTtlMs: 60_000, onResponseCache: (hit) => hits.push(hit) });
    spaceId = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Cached' })).body.id;
  });
  afterAll(() => t?.stop());
  beforeEach(() => {
    t.resetCalls();
    hits.splice(0);
  });

  it('answers a repeated query from the cache, with no REST call, and marks it', async () => {
    const first = await t.gql(SPACE, { spaceId });
    expect(first.data.space).toEqual({ title: 'Cached', permissions: { admin: true, edit: true } });
    expect(first.extensions?.responseCache).toMatchObject({ hit: false, didCache: true });
    expect(t.calls.length).toBeGreaterThan(0);
    t.resetCalls();
    const second = await t.gql(SPACE, { spaceId });
    expect(second.data).toEqual(first.data);
    expect(second.extensions?.responseCache).toMatchObject({ hit: true });
    expect(t.calls).toEqual([]);
    expect(hits).toEqual([false, true]);
  });

  it('keeps each caller to its own entries (another token, no token)', async () => {
    await t.gql(SPACE, { spaceId });
    t.resetCalls();
    const reader = await t.gql(SPACE, { spaceId }, t.world.users.read.token);
    expect(reader.extensions?.responseCache).toMatchObject({ hit: false });
    expect(reader.data.space.permissions).toEqual({ admin: false, edit: false });
    expect(t.calls.length).toBeGreaterThan(0);
    const anonymous = await t.gql(SPACE, { spaceId }, null);
    expect(anonymous.extensions?.responseCache?.hit).not.toBe(true);
  });

  it('never caches a result with errors', async () => {
    for (let i = 0; i < 2; i++) {
      t.resetCalls();
      const res = await t.gql(SPACE, { spaceId: 'no-such-space' });
      expect(res.errors?.[0].extensions?.code).toBe('NOT_FOUND');
      expect(res.extensions?.responseCache?.hit).not.toBe(true);
      expect(t.calls.length).toBeGreaterThan(0);
    }
  });

  it('a mutation whose payload selects nothing of the object still invalidates it (by its input ids)', async () => {
    await t.gql(SPACE, { spaceId });
    expect((await t.gql(SPACE, { spaceId })).extensions?.responseCache.hit).toBe(true);
    await t.payload('updateSpace', { spaceId, title: 'Renamed' }, 'clientMutationId');
    t.resetCalls();
    const after = await t.gql(SPACE, { spaceId });
    expect(after.extensions?.responseCache.hit).toBe(false);
    expect(after.data.space.title).toBe('Renamed');
    expect(t.calls.length).toBeGreaterThan(0);
  });

  it('a write that changes who may see what invalidates other callers\' results too', async () => {
    const reader = t.world.users.read;
    const before = await t.gql(SPACE, { spaceId }, reader.token);
    expect(before.data.space.permissions).toEqual({ admin: false, edit: false });
    expect((await t.gql(SPACE, { spaceId }, reader.token)).extensions?.responseCache.hit).toBe(true);
    // The reader's cached result holds the space only, not the member the admin changes.
    await t.payload('updateMember', { organizationId: t.world.orgId, userId: reader.id, role: 'ADMIN' }, 'clientMutationId');
    const after = await t.gql(SPACE, { spaceId }, reader.token);
    expect(after.extensions?.responseCache.hit).toBe(false);
    expect(after.data.space.permissions).toEqual({ admin: true, edit: true });
    await t.payload('updateMember', { organizationId: t.world.orgId, userId: reader.id, role: 'READ' }, 'clientMutationId');
  });

  it('a create and a delete change the cached lists that hold (or would hold) the object', async () => {
    const titles = async () => ((await t.data(SPACES, { org: t.world.orgId })).organization.spaces.nodes as Array<{ title: string }>).map((s) => s.title);
    const before = await titles();
    expect((await t.gql(SPACES, { org: t.world.orgId })).extensions?.responseCache.hit).toBe(true);

    const created = await t.payload('createSpace', { organizationId: t.world.orgId, title: 'Fresh' }, 'space { restId }');
    expect(await titles()).toEqual([...before, 'Fresh']);

    expect((await t.gql(SPACES, { org: t.world.orgId })).extensions?.responseCache.hit).toBe(true);
    // The list query selected no id: the deleted space is still found by its global id (deletedId).
    await t.payload('deleteSpace', { spaceId: created.space.restId }, 'deletedId');
    expect(await titles()).toEqual(before);
  });
});
