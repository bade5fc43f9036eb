import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enumName, startStack, type TestStack } from '../helpers/gateway.js';
import { restUrls, urls } from './urls.js';

let t: TestStack;
beforeAll(async () => {
  t = await startStack();
});
afterAll(() => t.stop());

const COLLECTION = `id restId title description defaultLevel ${urls('Collection')} permissions { admin create } organization { restId } parent { restId }`;

/** What the graph shows of a REST collection. */
const graphCollection = (c: any) => ({
  restId: c.id,
  title: c.title,
  description: c.description ?? null,
  defaultLevel: enumName(c.defaultLevel),
  urls: restUrls('Collection', c.urls),
  permissions: c.permissions,
  organization: { restId: c.organization },
  parent: c.parent ? { restId: c.parent } : null,
});

const readCollection = async (collectionId: string, token?: string | null) =>
  (await t.data(`query($id: String!) { collection(collectionId: $id) { ${COLLECTION} } }`, { id: collectionId }, token)).collection;

const create = async (title: string, parent?: string) =>
  (await t.payload('createCollection', { organizationId: t.world.orgId, title, ...(parent ? { parent } : {}) }, 'collection { restId }'))
    .collection.restId as string;

/** The REST ids of a connection walked to its end, `first` at a time, with the list calls made per page. */
async function walk(query: string, variables: Record<string, unknown>, pick: (data: any) => any, first: number) {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    t.resetCalls();
    const conn = pick(await t.data(query, { ...variables, first, after }));
    ids.push(...conn.nodes.map((n: any) => n.restId));
    expect(t.calls.filter((c) => /\/(spaces|collections)$/.test(c.path))).toHaveLength(1);
    if (!conn.pageInfo.hasNextPage) return ids;
    after = conn.pageInfo.endCursor;
  }
}

describe('Collection', () => {
  it('equals REST for each role; node(id) round-trips it', async () => {
    const id = await create('Guides');
    await t.payload('updateCollection', { collectionId: id, description: 'How-tos' }, 'collection { id }');
    for (const role of ['admin', 'create', 'read'] as const) {
      const { token } = t.world.users[role];
      const rest = await t.api.as(token).get(`/collections/${id}`);
      const graph = await readCollection(id, token);
      expect(graph).toEqual({ id: expect.any(String), ...graphCollection(rest.body) });
      t.resetCalls();
      const again = await t.data('query($id: ID!) { node(id: $id) { id ... on Collection { restId title } } }', { id: graph.id }, token);
      expect(again.node).toEqual({ id: graph.id, restId: id, title: 'Guides' });
      expect(t.calls.map((c) => `${c.method} ${c.path}`)).toEqual([`GET /collections/${id}`]);
    }
  });

  it('Organization.collections walks to the end, nested or not, equal to REST; listed items cost no call', async () => {
    const top = await create('Top');
    const nested = await create('Nested', top);
    await create('Other');
    const q = `query($org: String!, $nested: Boolean, $first: Int, $after: String) {
      organization(organizationId: $org) { collections(nested: $nested, first: $first, after: $after) {
        nodes { restId title parent { restId } } pageInfo { hasNextPage endCursor } } } }`;
    const pick = (d: any) => d.organization.collections;
    const all = await walk(q, { org: t.world.orgId }, pick, 2);
    expect(all).toEqual((await t.api.all(`/orgs/${t.world.orgId}/collections`)).items.map((c: any) => c.id));
    expect(all).toContain(nested);
    const roots = await walk(q, { org: t.world.orgId, nested: false }, pick, 2);
    expect(roots).toEqual((await t.api.all(`/orgs/${t.world.orgId}/collections`, { nested: false })).items.map((c: any) => c.id));
    expect(roots).not.toContain(nested);
    // Each collection's parent edge was carried by the list, and the lookup needs no GET: only the list was fetched.
    t.resetCalls();
    await t.data(q, { org: t.world.orgId, first: 100 });
    expect(t.calls.map((c) => c.path).sort()).toEqual([`/orgs/${t.world.orgId}/collections`]);
  });

  it('Collection.spaces walks to the end, equal to REST', async () => {
    const id = await create('Shelf');
    for (let i = 0; i < 5; i++) await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: `Book ${i}`, parent: id });
    const q = `query($id: String!, $first: Int, $after: String) {
      collection(collectionId: $id) { spaces(first: $first, after: $after) { nodes { restId } pageInfo { hasNextPage endCursor } } } }`;
    const ids = await walk(q, { id }, (d) => d.collection.spaces, 2);
    expect(ids).toHaveLength(5);
    expect(ids).toEqual((await t.api.all(`/collections/${id}/spaces`)).items.map((s: any) => s.id));
  });

  it('is NOT_FOUND for an outsider while the rest of the query resolves', async () => {
    const id = await create('Private');
    const res = await t.gql(
      'query($id: String!) { viewer { restId } collection(collectionId: $id) { title } }',
      { id },
      t.world.users.outsider.token,
    );
    expect(res.data).toEqual({ viewer: { restId: t.world.users.outsider.id }, collection: null });
    expect(res.errors?.[0]).toMatchObject({ path: ['collection'], extensions: { code: 'NOT_FOUND' } });
  });
});

describe('createCollection, updateCollection', () => {
  it('creates (nested too), read back through the graph and REST', async () => {
    const res = await t.payload(
      'createCollection',
      { organizationId: t.world.orgId, title: 'Made', clientMutationId: 'k' },
      `clientMutationId collection { ${COLLECTION} } organization { restId }`,
    );
    expect(res.clientMutationId).toBe('k');
    expect(res.organization).toEqual({ restId: t.world.orgId });
    expect(res.collection).toEqual({
      id: expect.any(String),
      ...graphCollection((await t.api.get(`/collections/${res.collection.restId}`)).body),
    });
    const child = await t.payload(
      'createCollection',
      { organizationId: t.world.orgId, title: 'Child', parent: res.collection.restId },
      'collection { parent { restId title } }',
    );
    expect(child.collection.parent).toEqual({ restId: res.collection.restId, title: 'Made' });
  });

  it('updates, and the update is read back', async () => {
    const id = await create('Before');
    const input = { collectionId: id, title: 'After', description: 'd', defaultLevel: 'COMMENT' };
    const res = await t.payload('updateCollection', input, 'collection { title description defaultLevel }');
    expect(res.collection).toEqual({ title: 'After', description: 'd', defaultLevel: 'COMMENT' });
    expect(await readCollection(id)).toMatchObject({ title: 'After', description: 'd', defaultLevel: 'COMMENT' });
  });

  it('limits: title 50 and description 100 pass, one more is BAD_USER_INPUT with no REST call', async () => {
    const id = await create('Limits');
    t.resetCalls();
    const long = await t.mutate('createCollection', { organizationId: t.world.orgId, title: 'x'.repeat(51) }, 'collection { id }');
    expect(long.errors?.[0]).toMatchObject({ path: ['createCollection'], extensions: { code: 'BAD_USER_INPUT', field: 'input.title' } });
    const desc = await t.mutate('updateCollection', { collectionId: id, description: 'x'.repeat(101) }, 'collection { id }');
    expect(desc.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'input.description' } });
    expect(t.calls).toHaveLength(0);
    const ok = await t.payload(
      'updateCollection',
      { collectionId: id, title: 'x'.repeat(50), description: 'y'.repeat(100) },
      'collection { title }',
    );
    expect(ok.collection.title).toBe('x'.repeat(50));
  });

  it('a read-only member is FORBIDDEN, an outsider NOT_FOUND', async () => {
    const id = await create('Guarded');
    const read = await t.mutate('updateCollection', { collectionId: id, title: 'No' }, 'collection { id }', t.world.users.read.token);
    expect(read.errors?.[0]).toMatchObject({ path: ['updateCollection'], extensions: { code: 'FORBIDDEN' } });
    const outsider = await t.mutate(
      'updateCollection',
      { collectionId: id, title: 'No' },
      'collection { id }',
      t.world.users.outsider.token,
    );
    expect(outsider.errors?.[0]).toMatchObject({ path: ['updateCollection'], extensions: { code: 'NOT_FOUND' } });
    const createRead = await t.mutate(
      'createCollection',
      { organizationId: t.world.orgId, title: 'No' },
      'collection { id }',
      t.world.users.read.token,
    );
    expect(createRead.errors?.[0]).toMatchObject({ path: ['createCollection'], extensions: { code: 'FORBIDDEN' } });
    expect((await readCollection(id)).title).toBe('Guarded');
  });
});

describe('deleteCollection', () => {
  it('deletes; its spaces move to the root, read back in the same operation', async () => {
    const id = await create('Doomed');
    const graph = await readCollection(id);
    const space = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Survivor', parent: id })).body;
    const res = await t.data(
      `mutation($id: String!, $space: String!) {
        before: updateSpace(input: { spaceId: $space, emoji: "🛟" }) { space { parent { restId } } }
        deleteCollection(input: { collectionId: $id }) { deletedId organization { restId } }
      }`,
      { id, space: space.id },
    );
    expect(res.before.space.parent).toEqual({ restId: id });
    expect(res.deleteCollection).toEqual({ deletedId: graph.id, organization: { restId: t.world.orgId } });
    const after = await t.gql(
      'query($id: String!, $space: String!) { collection(collectionId: $id) { title } space(spaceId: $space) { parent { restId } } }',
      { id, space: space.id },
    );
    expect(after.data).toEqual({ collection: null, space: { parent: null } });
    expect(after.errors?.[0]).toMatchObject({ path: ['collection'], extensions: { code: 'NOT_FOUND' } });
  });

  it('a read-only member is FORBIDDEN', async () => {
    const id = await create('Kept');
    const res = await t.mutate('deleteCollection', { collectionId: id }, 'deletedId', t.world.users.read.token);
    expect(res.errors?.[0]).toMatchObject({ path: ['deleteCollection'], extensions: { code: 'FORBIDDEN' } });
    expect((await readCollection(id)).title).toBe('Kept');
  });
});

describe('moveCollection', () => {
  const children = async (parent: string) =>
    (await t.api.all(`/orgs/${t.world.orgId}/collections`)).items.filter((c: any) => c.parent === parent).map((c: any) => c.id);

  it('orders collections before and after siblings, nests and un-nests them', async () => {
    const home = await create('Home');
    const a = await create('A', home);
    const b = await create('B', home);
    const c = await create('C', home);
    expect(await children(home)).toEqual([a, b, c]);
    const sel = 'collection { restId parent { restId } } parent { restId title }';
    const moved = await t.payload('moveCollection', { collectionId: c, position: { before: { type: 'COLLECTION', collection: a } } }, sel);
    expect(moved).toEqual({ collection: { restId: c, parent: { restId: home } }, parent: { restId: home, title: 'Home' } });
    expect(await children(home)).toEqual([c, a, b]);
    await t.payload('moveCollection', { collectionId: c, position: { after: { type: 'COLLECTION', collection: b } } }, sel);
    expect(await children(home)).toEqual([a, b, c]);
    const out = await t.payload('moveCollection', { collectionId: b, parent: null }, sel);
    expect(out).toEqual({ collection: { restId: b, parent: null }, parent: null });
    expect(await children(home)).toEqual([a, c]);
    expect((await readCollection(b)).parent).toBeNull();
  });

  it('60 concurrent moves after one sibling all land between it and the next', async () => {
    const home = await create('Crowded');
    const a = await create('A', home);
    const b = await create('B', home);
    const movers: string[] = [];
    for (let i = 0; i < 60; i++) movers.push(await create(`M${i}`));
    const after = { after: { type: 'COLLECTION', collection: a } };
    const answers = await Promise.all(
      movers.map((id) => t.mutate('moveCollection', { collectionId: id, position: after }, 'collection { restId parent { restId } }')),
    );
    expect(answers.map((r) => r.errors ?? r.data.moveCollection.collection.parent.restId)).toEqual(movers.map(() => home));
    // Each halved the gap after A: past 52 of them, the midpoint was A's own position.
    const order = await children(home);
    expect([order[0], order.at(-1), order.length]).toEqual([a, b, 62]);
    expect(order.slice(1, -1).sort()).toEqual([...movers].sort());
  });

  it('into itself is BAD_USER_INPUT from REST; before and after together is BAD_USER_INPUT with no REST call', async () => {
    const id = await create('Self');
    const self = await t.mutate('moveCollection', { collectionId: id, parent: id }, 'collection { id }');
    expect(self.errors?.[0]).toMatchObject({ path: ['moveCollection'], extensions: { code: 'BAD_USER_INPUT', upstream: { status: 400 } } });
    t.resetCalls();
    const both = await t.mutate(
      'moveCollection',
      { collectionId: id, position: { before: { type: 'COLLECTION', collection: id }, after: { type: 'COLLECTION', collection: id } } },
      'collection { id }',
    );
    expect(both.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'input.position' } });
    expect(t.calls).toHaveLength(0);
  });
});

describe('transferCollection', () => {
  it('moves a collection with its spaces from acme to globex', async () => {
    const id = await create('Moving');
    const space = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Cargo', parent: id })).body;
    const res = await t.payload(
      'transferCollection',
      { collectionId: id, organization: t.world.otherOrgId },
      'collection { restId organization { restId } spaces { nodes { restId organization { restId } } } } organization { title }',
    );
    expect(res).toEqual({
      collection: {
        restId: id,
        organization: { restId: t.world.otherOrgId },
        spaces: { nodes: [{ restId: space.id, organization: { restId: t.world.otherOrgId } }] },
      },
      organization: { title: 'Globex' },
    });
    const check = await t.data(
      `query($acme: String!, $globex: String!) {
        acme: organization(organizationId: $acme) { collections(first: 100) { nodes { restId } } }
        globex: organization(organizationId: $globex) { collections(first: 100) { nodes { restId } } }
      }`,
      { acme: t.world.orgId, globex: t.world.otherOrgId },
    );
    expect(check.acme.collections.nodes.map((n: any) => n.restId)).not.toContain(id);
    expect(check.globex.collections.nodes.map((n: any) => n.restId)).toContain(id);
  });

  it('an outsider is NOT_FOUND; a target organization the caller is not in is NOT_FOUND', async () => {
    const id = await create('Stays');
    const input = { collectionId: id, organization: t.world.otherOrgId };
    const outsider = await t.mutate('transferCollection', input, 'collection { id }', t.world.users.outsider.token);
    expect(outsider.errors?.[0]).toMatchObject({ path: ['transferCollection'], extensions: { code: 'NOT_FOUND' } });
    const nowhere = await t.mutate('transferCollection', { collectionId: id, organization: 'nope' }, 'collection { id }');
    expect(nowhere.errors?.[0]).toMatchObject({ path: ['transferCollection'], extensions: { code: 'NOT_FOUND' } });
    expect((await readCollection(id)).organization).toEqual({ restId: t.world.orgId });
  });
});
