/**
 * A lookup never delays what hangs below it: a root lookup by REST ids (and an edge to an object
 * whose id is known) resolves to a reference at once; the object's own GET is made only when a
 * selected field needs its JSON, concurrently with the lists below it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from '../helpers/gateway.js';

const LATENCY_MS = 300;
let t: TestStack;
beforeAll(async () => {
  t = await startStack({}, { latencyMs: LATENCY_MS });
  await Promise.all(Array.from({ length: 5 }, (_, i) => t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: `Lookup ${i}` })));
});
afterAll(() => t.stop());

const nested = (own: string) => `query($org: String!) {
  organization(organizationId: $org) { ${own}
    spaces(first: 5) { nodes { restId changeRequests(first: 3) { nodes { restId } } } }
  }
}`;

/** Runs a query and answers its data, the REST calls it made and how many ran one after another. */
async function timed(query: string, variables: Record<string, unknown>) {
  t.resetCalls();
  const res = await t.gql(query, variables);
  return { res, rounds: t.rounds(), calls: t.calls.map((c) => `${c.method} ${c.path}`) };
}

describe('organization → spaces(first: 5) → changeRequests(first: 3)', () => {
  it('makes the 6 calls of 2 sequential levels: the lookup makes no GET of its own', async () => {
    await t.data(nested(''), { org: t.world.orgId }); // warm up connections and code paths
    const { res, rounds, calls } = await timed(nested(''), { org: t.world.orgId });
    expect(res.errors).toBeUndefined();
    expect(res.data.organization.spaces.nodes).toHaveLength(5);
    expect(calls).toHaveLength(6);
    expect(calls).not.toContain(`GET /orgs/${t.world.orgId}`);
    // 2 round trips one after another (the spaces, then their change requests); a GET of the
    // organization before them would make 3. The upstream's latency keeps the calls of one level
    // in flight together, so the count does not depend on the machine's speed.
    expect(rounds).toBe(2);
  });

  it("with the organization's own fields: its GET runs beside the spaces list, still 2 levels", async () => {
    const { res, rounds, calls } = await timed(nested('title'), { org: t.world.orgId });
    expect(res.errors).toBeUndefined();
    expect(res.data.organization.title).toBe((await t.api.get(`/orgs/${t.world.orgId}`)).body.title);
    expect(calls.filter((c) => c === `GET /orgs/${t.world.orgId}`)).toHaveLength(1);
    expect(calls).toHaveLength(7);
    expect(rounds).toBe(2);
  });
});

describe('an unknown id', () => {
  it('is NOT_FOUND at the lookup when its own fields are asked (alone or beside lists)', async () => {
    for (const own of ['title', 'title restId']) {
      const only = await t.gql(`{ organization(organizationId: "nope") { ${own} } }`);
      expect(only.errors?.[0]).toMatchObject({ path: ['organization'], extensions: { code: 'NOT_FOUND' } });
      expect(only.data).toEqual({ organization: null });
    }
    const both = await t.gql(nested('title'), { org: 'nope' });
    expect(both.errors?.map((e) => e.extensions?.code)).toContain('NOT_FOUND');
    expect(both.data).toEqual({ organization: null });
  });

  it('is NOT_FOUND at the child lists when only lists are asked', async () => {
    const res = await t.gql(nested('restId'), { org: 'nope' });
    expect(res.errors?.[0]).toMatchObject({ path: ['organization', 'spaces'], extensions: { code: 'NOT_FOUND' } });
    expect(res.data).toEqual({ organization: { restId: 'nope', spaces: null } });
  });
});

describe('a key no REST path can hold ("", ".", "..")', () => {
  // A stack of its own: a call still in flight from another test (the upstream's latency) would
  // land among this one's.
  let own: TestStack;
  beforeAll(async () => {
    own = await startStack();
  });
  afterAll(() => own.stop());

  it('is BAD_USER_INPUT at the lookup, with no call', async () => {
    // A reference to such a key answered `id` (a global id that node(id:) refuses as none of the
    // graph's) while each list below it failed.
    for (const org of ['', '.', '..']) {
      own.resetCalls();
      const res = await own.gql(nested('id'), { org });
      expect(res.errors).toEqual([expect.objectContaining({ path: ['organization'], extensions: { code: 'BAD_USER_INPUT' } })]);
      expect(res.data).toEqual({ organization: null });
      expect(own.calls).toEqual([]);
    }
  });
});

describe('edges to objects whose ids are known', () => {
  it('Space.organization lists its spaces without its GET, and fetches it once when its fields are asked', async () => {
    const spaceId = (await t.api.get(`/orgs/${t.world.orgId}/spaces`)).body.items[0].id;
    const q = (own: string) =>
      `query($id: String!) { space(spaceId: $id) { organization { ${own} spaces(first: 1) { nodes { restId } } } } }`;
    const lists = await timed(q('restId'), { id: spaceId });
    expect(lists.res.data.space.organization.restId).toBe(t.world.orgId);
    // The space's GET (to read its organization id) and the list: no GET of the organization.
    expect(lists.calls.sort()).toEqual([`GET /orgs/${t.world.orgId}/spaces`, `GET /spaces/${spaceId}`]);
    const own = await timed(q('title'), { id: spaceId });
    expect(own.res.errors).toBeUndefined();
    expect(own.calls).toHaveLength(3);
  });

  it('a change request looked up by number has the global id of the one looked up by id', async () => {
    const spaceId = (await t.api.get(`/orgs/${t.world.orgId}/spaces`)).body.items[0].id;
    const cr = (await t.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'By number' })).body;
    const q = `query($s: String!, $byId: String!, $byNumber: String!) {
      a: changeRequest(spaceId: $s, changeRequestId: $byId) { id comments(first: 1) { nodes { id } } }
      b: changeRequest(spaceId: $s, changeRequestId: $byNumber) { id subject }
    }`;
    const data = await t.data(q, { s: spaceId, byId: cr.id, byNumber: String(cr.number) });
    expect(data.a.id).toBe(data.b.id);
    expect(data.b.subject).toBe('By number');
  });
});
