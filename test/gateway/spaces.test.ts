import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagesOf } from '../../src/upstream/content/revisions.js';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import { enumName, startStack, type TestStack } from '../helpers/gateway.js';
import { restUrls, urls } from './urls.js';

let t: TestStack;
const spaceIds: string[] = [];
/** URLs (with their query) the upstream answered, in order. */
const upstreamUrls: string[] = [];
beforeAll(async () => {
  t = await startStack({}, { log: (line) => upstreamUrls.push(line.path) });
  for (let i = 1; i <= 7; i++) {
    spaceIds.push(insertSpace(t.upstream.db, t.clock.now().toISOString(), { organizationId: t.world.orgId, title: `Space ${i}` }).id);
  }
});
afterAll(() => t.stop());

const SPACES = `query($org: String!, $first: Int, $after: String) {
  organization(organizationId: $org) {
    spaces(first: $first, after: $after) {
      edges { cursor node { id restId title } }
      nodes { restId }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

describe('Organization.spaces connection', () => {
  it('walks to the end in order with no gap, each resume costing one REST call', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      t.resetCalls();
      const data = await t.data(SPACES, { org: t.world.orgId, first: 3, after });
      const conn = data.organization.spaces;
      seen.push(...conn.nodes.map((n: any) => n.restId));
      const listCalls = t.calls.filter((c) => c.path.endsWith('/spaces'));
      expect(listCalls).toHaveLength(1);
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(seen).toEqual(spaceIds);
  });

  it('a listed space is not fetched again when asked for by node id', async () => {
    const data = await t.data(SPACES, { org: t.world.orgId, first: 2 });
    const ids = data.organization.spaces.nodes.map((n: any) => n.restId);
    t.resetCalls();
    const q = `query($org: String!) { organization(organizationId: $org) {
      spaces(first: 2) { nodes { restId title organization { restId } } } } }`;
    const again = await t.data(q, { org: t.world.orgId });
    expect(again.organization.spaces.nodes.map((n: any) => n.restId)).toEqual(ids);
    // GET /orgs/{id} once (shared by the root and every space's organization edge), the list once.
    expect(t.calls.map((c) => `${c.method} ${c.path}`).sort()).toEqual([`GET /orgs/${t.world.orgId}`, `GET /orgs/${t.world.orgId}/spaces`]);
  });

  it('a cursor edited to a larger page size makes REST read no more than the cursor and `first` need', async () => {
    const data = await t.data(SPACES, { org: t.world.orgId, first: 2 });
    const cursor = JSON.parse(Buffer.from(data.organization.spaces.edges[0].cursor, 'base64url').toString('utf8'));
    expect(cursor).toMatchObject({ s: 1, l: 2 });
    const forged = (l: number) => Buffer.from(JSON.stringify({ ...cursor, l })).toString('base64url');
    upstreamUrls.splice(0);
    const resumed = await t.data(SPACES, { org: t.world.orgId, first: 2, after: forged(50) });
    expect(resumed.organization.spaces.nodes.map((n: any) => n.restId)).toEqual(spaceIds.slice(1, 3));
    await new Promise((r) => setImmediate(r));
    const lists = upstreamUrls.filter((u) => u.startsWith(`/v1/orgs/${t.world.orgId}/spaces?`));
    // One page from the cursor's token: the one item skipped and the two asked for, not 50.
    expect(lists.map((u) => new URL(u, 'http://x').searchParams.get('limit'))).toEqual(['3']);
    const over = await t.gql(SPACES, { org: t.world.orgId, first: 2, after: forged(1000) });
    expect(over.errors?.[0]).toMatchObject({ path: ['organization', 'spaces'], extensions: { code: 'BAD_USER_INPUT' } });
  });

  it('first over the maximum is BAD_USER_INPUT at the field, with no REST list call', async () => {
    t.resetCalls();
    const res = await t.gql(SPACES, { org: t.world.orgId, first: 101 });
    expect(res.errors?.[0]).toMatchObject({ path: ['organization', 'spaces'], extensions: { code: 'BAD_USER_INPUT' } });
    expect(res.data?.organization).toEqual({ spaces: null });
    expect(t.calls.filter((c) => c.path.endsWith('/spaces'))).toHaveLength(0);
  });
});

describe('space mutations', () => {
  it('updateSpace validates before any REST call', async () => {
    t.resetCalls();
    const res = await t.gql('mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { title } } }', {
      input: { spaceId: spaceIds[0], title: 'x'.repeat(51) },
    });
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.title' });
    expect(t.calls).toHaveLength(0);
  });

  it('updateSpace writes, echoes clientMutationId, and a later read in the same operation is fresh', async () => {
    const res = await t.data(
      `mutation($input: UpdateSpaceInput!, $id: String!) {
        updateSpace(input: $input) { clientMutationId space { title } }
        after: updateSpace(input: { spaceId: $id, emoji: "🚀" }) { space { title emoji } }
      }`,
      { input: { spaceId: spaceIds[0], title: 'Renamed', clientMutationId: 'm1' }, id: spaceIds[0] },
    );
    expect(res.updateSpace).toEqual({ clientMutationId: 'm1', space: { title: 'Renamed' } });
    expect(res.after.space).toEqual({ title: 'Renamed', emoji: '🚀' });
    const check = await t.data('query($id: String!) { space(spaceId: $id) { title emoji } }', { id: spaceIds[0] });
    expect(check.space).toEqual({ title: 'Renamed', emoji: '🚀' });
  });
});

const SPACE = `id restId title emoji visibility createdAt updatedAt deletedAt editMode ${urls('Space')} revision defaultLevel
  commentsCount changeRequestsCount changeRequestsOpenCount changeRequestsDraftCount
  permissions { access admin edit comment merge review } organization { restId } parent { restId }`;

/** What the graph shows of a REST space. */
const graphSpace = (s: any) => ({
  restId: s.id,
  title: s.title,
  emoji: s.emoji,
  visibility: enumName(s.visibility),
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
  deletedAt: s.deletedAt ?? null,
  editMode: enumName(s.editMode),
  urls: restUrls('Space', s.urls),
  revision: s.revision,
  defaultLevel: enumName(s.defaultLevel),
  commentsCount: s.comments,
  changeRequestsCount: s.changeRequests,
  changeRequestsOpenCount: s.changeRequestsOpen,
  changeRequestsDraftCount: s.changeRequestsDraft,
  permissions: s.permissions,
  organization: { restId: s.organization },
  parent: s.parent ? { restId: s.parent } : null,
});

const readSpace = async (spaceId: string, token?: string | null) =>
  (await t.data(`query($id: String!) { space(spaceId: $id) { ${SPACE} } }`, { id: spaceId }, token)).space;

describe('Space', () => {
  it('equals REST for each role, and node(id) round-trips it with no REST call', async () => {
    for (const role of ['admin', 'edit', 'read'] as const) {
      const { token } = t.world.users[role];
      const rest = await t.api.as(token).get(`/spaces/${spaceIds[1]}`);
      const space = await readSpace(spaceIds[1], token);
      expect(space).toEqual({ id: expect.any(String), ...graphSpace(rest.body) });
      t.resetCalls();
      const again = await t.data(`query($id: ID!) { node(id: $id) { id ... on Space { restId title } } }`, { id: space.id }, token);
      expect(again.node).toEqual({ id: space.id, restId: spaceIds[1], title: rest.body.title });
      expect(t.calls.map((c) => `${c.method} ${c.path}`)).toEqual([`GET /spaces/${spaceIds[1]}`]);
    }
  });

  it('is NOT_FOUND for an outsider while the rest of the query resolves', async () => {
    const res = await t.gql(
      'query($id: String!) { viewer { restId } space(spaceId: $id) { title } }',
      { id: spaceIds[1] },
      t.world.users.outsider.token,
    );
    expect(res.data).toEqual({ viewer: { restId: t.world.users.outsider.id }, space: null });
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]).toMatchObject({ path: ['space'], extensions: { code: 'NOT_FOUND', upstream: { status: 404 } } });
  });
});

describe('Space.links', () => {
  const pages = [
    {
      title: 'Home',
      markdown: 'See [setup](guides/setup), [gone](missing-page), [web](https://example.com/x) and [app](/app/o/acme).',
    },
    { title: 'Setup', path: 'guides/setup', markdown: 'Back [home](../home.md), [sibling](advanced), [dead](page:nope).' },
    { title: 'Advanced', path: 'guides/advanced', markdown: 'Nothing.' },
  ];
  const LINKS = `query($id: String!, $status: LinkStatus, $first: Int, $after: String) {
    space(spaceId: $id) {
      links(status: $status, first: $first, after: $after) {
        stats { total broken { total changeRequest } }
        edges { cursor node { status url target { kind page url } source { kind page url } } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }`;
  const graphLink = (l: any) => ({
    status: enumName(l.status),
    url: l.url,
    target: { kind: l.target.kind, page: l.target.page ?? null, url: l.target.url ?? null },
    source: { kind: l.source.kind, page: l.source.page ?? null, url: l.source.url ?? null },
  });

  /** Walks the connection to its end, `first` at a time; returns the nodes, the stats of each page, the pages read. */
  async function walk(spaceId: string, status: string | undefined, first: number) {
    const nodes: any[] = [];
    const stats: any[] = [];
    let after: string | undefined;
    for (;;) {
      const res = await t.data(LINKS, { id: spaceId, status, first, after });
      const conn = res.space.links;
      nodes.push(...conn.edges.map((e: any) => e.node));
      stats.push(conn.stats);
      if (!conn.pageInfo.hasNextPage) return { nodes, stats };
      after = conn.pageInfo.endCursor;
    }
  }

  it('walks every link to the end, equal to REST, with the REST stats on each page', async () => {
    const row = insertSpace(t.upstream.db, t.clock.now().toISOString(), { organizationId: t.world.orgId, title: 'Links', pages });
    const rest = await t.api.all(`/spaces/${row.id}/links`);
    const restStats = (await t.api.get(`/spaces/${row.id}/links`)).body.stats;
    expect(rest.items).toHaveLength(7);
    const { nodes, stats } = await walk(row.id, undefined, 3);
    expect(nodes).toEqual(rest.items.map(graphLink));
    expect(stats).toHaveLength(3);
    for (const s of stats) expect(s).toEqual(restStats);
    expect(restStats).toEqual({ total: 7, broken: { total: 2, changeRequest: 0 } });
    const setup = pagesOf(t.upstream.db, row.revision_id).find((p) => p.title === 'Setup')!;
    expect(nodes[0]).toMatchObject({ status: 'OK', target: { kind: 'page', page: setup.page_id } });
  });

  it('filters by status (stats stay over every link) and counts broken links of open change requests', async () => {
    const row = insertSpace(t.upstream.db, t.clock.now().toISOString(), { organizationId: t.world.orgId, title: 'Links', pages });
    const broken = await walk(row.id, 'BROKEN', 1);
    expect(broken.nodes.map((n) => n.url)).toEqual(['missing-page', 'page:nope']);
    expect(broken.nodes.every((n) => n.status === 'BROKEN')).toBe(true);
    expect(broken.stats[0]).toEqual({ total: 7, broken: { total: 2, changeRequest: 0 } });
    const inApp = await walk(row.id, 'IN_APP', 20);
    expect(inApp.nodes.map((n) => n.url)).toEqual(['/app/o/acme']);
    const cr = await t.api.post(`/spaces/${row.id}/change-requests`, { subject: 'Draft' });
    await t.api.patch(`/spaces/${row.id}/change-requests/${cr.body.id}`, { status: 'open' });
    t.resetCalls();
    const res = await t.data(LINKS, { id: row.id, first: 0 });
    expect(res.space.links.stats.broken).toEqual({ total: 2, changeRequest: 2 });
    // Only the list: no field of the space itself was asked, so the lookup did not GET it.
    expect(t.calls.map((c) => `${c.method} ${c.path}`)).toEqual([`GET /spaces/${row.id}/links`]);
  });

  it('needs read access: NOT_FOUND for an outsider (at the list: the space was looked up without its GET)', async () => {
    const res = await t.gql(LINKS, { id: spaceIds[0] }, t.world.users.outsider.token);
    expect(res.errors?.[0]).toMatchObject({ path: ['space', 'links'], extensions: { code: 'NOT_FOUND' } });
  });
});

describe('createSpace, duplicateSpace', () => {
  it('creates a space in the organization, read back through the organization', async () => {
    const created = await t.payload(
      'createSpace',
      { organizationId: t.world.orgId, title: 'Created', emoji: '📘', clientMutationId: 'c1' },
      `clientMutationId space { ${SPACE} } organization { restId }`,
    );
    expect(created.clientMutationId).toBe('c1');
    expect(created.organization).toEqual({ restId: t.world.orgId });
    const rest = await t.api.get(`/spaces/${created.space.restId}`);
    expect(created.space).toEqual({ id: expect.any(String), ...graphSpace(rest.body) });
    expect(created.space).toMatchObject({ title: 'Created', emoji: '📘', parent: null });
    const all = await t.api.all(`/orgs/${t.world.orgId}/spaces`);
    expect(all.items.map((s: any) => s.id)).toContain(created.space.restId);
  });

  it("the organization's space list read earlier in the same operation is fresh after the create", async () => {
    const res = await t.data(
      `mutation($org: String!, $id: String!) {
        before: updateSpace(input: { spaceId: $id, emoji: "📗" }) { space { organization { spaces(first: 100) { nodes { restId } } } } }
        createSpace(input: { organizationId: $org, title: "Fresh" }) { space { restId } organization { spaces(first: 100) { nodes { restId } } } }
      }`,
      { org: t.world.orgId, id: spaceIds[0] },
    );
    const before = res.before.space.organization.spaces.nodes.map((n: any) => n.restId);
    const after = res.createSpace.organization.spaces.nodes.map((n: any) => n.restId);
    expect(before).not.toContain(res.createSpace.space.restId);
    expect(after).toEqual([...before, res.createSpace.space.restId]);
  });

  it('validates title just over the limit before any REST call, and accepts it at the limit', async () => {
    t.resetCalls();
    const res = await t.mutate('createSpace', { organizationId: t.world.orgId, title: 'x'.repeat(51) }, 'space { id }');
    expect(res.errors?.[0]).toMatchObject({ path: ['createSpace'], extensions: { code: 'BAD_USER_INPUT', field: 'input.title' } });
    expect(t.calls).toHaveLength(0);
    const ok = await t.payload('createSpace', { organizationId: t.world.orgId, title: 'x'.repeat(50) }, 'space { title }');
    expect(ok.space.title).toBe('x'.repeat(50));
  });

  it('is FORBIDDEN for a read-only member and NOT_FOUND for an outsider', async () => {
    const input = { organizationId: t.world.orgId, title: 'Nope' };
    const read = await t.mutate('createSpace', input, 'space { id }', t.world.users.read.token);
    expect(read.errors?.[0]).toMatchObject({ path: ['createSpace'], extensions: { code: 'FORBIDDEN' } });
    expect(read.data).toEqual({ createSpace: null });
    const outsider = await t.mutate('createSpace', input, 'space { id }', t.world.users.outsider.token);
    expect(outsider.errors?.[0]).toMatchObject({ path: ['createSpace'], extensions: { code: 'NOT_FOUND' } });
  });

  it('duplicateSpace returns the copy and its organization; the copy has the pages of the original', async () => {
    const source = spaceIds[2];
    const dup = await t.payload('duplicateSpace', { spaceId: source }, 'space { restId title } organization { restId }');
    expect(dup.space.restId).not.toBe(source);
    expect(dup.space.title).toBe('Space 3 (copy)');
    expect(dup.organization).toEqual({ restId: t.world.orgId });
    const copy = await readSpace(dup.space.restId);
    expect(copy).toMatchObject({ title: 'Space 3 (copy)', organization: { restId: t.world.orgId } });
    const original = (await t.api.get(`/spaces/${source}`)).body;
    const rest = (await t.api.get(`/spaces/${dup.space.restId}`)).body;
    expect(pagesOf(t.upstream.db, rest.revision).map((p) => p.title)).toEqual(
      pagesOf(t.upstream.db, original.revision).map((p) => p.title),
    );
  });
});

describe('deleteSpace, restoreSpace', () => {
  it('delete → restore → delete, 8 days later restore is NOT_FOUND', async () => {
    const space = await readSpace(spaceIds[3]);
    const del = await t.payload('deleteSpace', { spaceId: spaceIds[3] }, 'deletedId organization { restId }');
    expect(del).toEqual({ deletedId: space.id, organization: { restId: t.world.orgId } });
    expect((await readSpace(spaceIds[3])).deletedAt).toEqual(expect.any(String));
    const listed = await t.api.all(`/orgs/${t.world.orgId}/spaces`);
    expect(listed.items.map((s: any) => s.id)).not.toContain(spaceIds[3]);

    const restored = await t.payload('restoreSpace', { spaceId: spaceIds[3] }, 'space { restId deletedAt } organization { restId }');
    expect(restored).toEqual({ space: { restId: spaceIds[3], deletedAt: null }, organization: { restId: t.world.orgId } });
    expect((await readSpace(spaceIds[3])).deletedAt).toBeNull();

    await t.payload('deleteSpace', { spaceId: spaceIds[3] }, 'deletedId');
    t.clock.advanceDays(8);
    const late = await t.mutate('restoreSpace', { spaceId: spaceIds[3] }, 'space { restId }');
    expect(late.errors?.[0]).toMatchObject({ path: ['restoreSpace'], extensions: { code: 'NOT_FOUND' } });
    const gone = await t.gql('query($id: String!) { space(spaceId: $id) { title } }', { id: spaceIds[3] });
    expect(gone.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });

  it('restoring a space that is not deleted is CONFLICT', async () => {
    const res = await t.mutate('restoreSpace', { spaceId: spaceIds[4] }, 'space { restId }');
    expect(res.errors?.[0]).toMatchObject({ path: ['restoreSpace'], extensions: { code: 'CONFLICT' } });
  });

  it('a read-only member is FORBIDDEN, an outsider NOT_FOUND, and the space stays', async () => {
    const read = await t.mutate('deleteSpace', { spaceId: spaceIds[4] }, 'deletedId', t.world.users.read.token);
    expect(read.errors?.[0]).toMatchObject({ path: ['deleteSpace'], extensions: { code: 'FORBIDDEN' } });
    const outsider = await t.mutate('deleteSpace', { spaceId: spaceIds[4] }, 'deletedId', t.world.users.outsider.token);
    expect(outsider.errors?.[0]).toMatchObject({ path: ['deleteSpace'], extensions: { code: 'NOT_FOUND' } });
    expect((await readSpace(spaceIds[4])).deletedAt).toBeNull();
  });
});

describe('moveSpace', () => {
  const collectionSpaces = async (collectionId: string) =>
    (
      await t.data('query($id: String!) { collection(collectionId: $id) { spaces { nodes { restId } } } }', { id: collectionId })
    ).collection.spaces.nodes.map((n: any) => n.restId);
  const inCollection = async (collectionId: string, title: string) =>
    (await t.payload('createSpace', { organizationId: t.world.orgId, title, parent: collectionId }, 'space { restId parent { restId } }'))
      .space;

  it('orders spaces before and after siblings, into and out of a collection', async () => {
    const c = (await t.api.post(`/orgs/${t.world.orgId}/collections`, { title: 'Shelf' })).body;
    const a = await inCollection(c.id, 'A');
    expect(a.parent).toEqual({ restId: c.id });
    const b = await inCollection(c.id, 'B');
    const d = await inCollection(c.id, 'D');
    expect(await collectionSpaces(c.id)).toEqual([a.restId, b.restId, d.restId]);

    const sel = 'space { restId parent { restId } } parent { restId title }';
    const moved = await t.payload('moveSpace', { spaceId: d.restId, position: { before: { type: 'SPACE', space: a.restId } } }, sel);
    expect(moved).toEqual({ space: { restId: d.restId, parent: { restId: c.id } }, parent: { restId: c.id, title: 'Shelf' } });
    expect(await collectionSpaces(c.id)).toEqual([d.restId, a.restId, b.restId]);

    await t.payload('moveSpace', { spaceId: d.restId, position: { after: { type: 'SPACE', space: b.restId } } }, sel);
    expect(await collectionSpaces(c.id)).toEqual([a.restId, b.restId, d.restId]);

    const out = await t.payload('moveSpace', { spaceId: b.restId, parent: null }, sel);
    expect(out).toEqual({ space: { restId: b.restId, parent: null }, parent: null });
    expect(await collectionSpaces(c.id)).toEqual([a.restId, d.restId]);
    expect((await readSpace(b.restId)).parent).toBeNull();

    const back = await t.payload(
      'moveSpace',
      { spaceId: b.restId, parent: c.id, position: { after: { type: 'SPACE', space: a.restId } } },
      sel,
    );
    expect(back.parent).toEqual({ restId: c.id, title: 'Shelf' });
    expect(await collectionSpaces(c.id)).toEqual([a.restId, b.restId, d.restId]);
  });

  it('a list read earlier in the same operation is fresh after the move', async () => {
    const c = (await t.api.post(`/orgs/${t.world.orgId}/collections`, { title: 'Fresh' })).body;
    const first = await inCollection(c.id, 'First');
    const res = await t.data(
      `mutation($first: String!, $id: String!, $c: String!) {
        before: updateSpace(input: { spaceId: $first, emoji: "🧭" }) { space { parent { spaces { nodes { restId } } } } }
        moveSpace(input: { spaceId: $id, parent: $c }) { parent { spaces { nodes { restId } } } }
      }`,
      { first: first.restId, id: spaceIds[5], c: c.id },
    );
    expect(res.before.space.parent.spaces.nodes).toEqual([{ restId: first.restId }]);
    expect(res.moveSpace.parent.spaces.nodes).toEqual([{ restId: first.restId }, { restId: spaceIds[5] }]);
  });

  it('before and after together, or a pointer without its id, is BAD_USER_INPUT with no REST call', async () => {
    t.resetCalls();
    const both = await t.mutate(
      'moveSpace',
      { spaceId: spaceIds[0], position: { before: { type: 'SPACE', space: spaceIds[1] }, after: { type: 'SPACE', space: spaceIds[2] } } },
      'space { id }',
    );
    expect(both.errors?.[0]).toMatchObject({ path: ['moveSpace'], extensions: { code: 'BAD_USER_INPUT', field: 'input.position' } });
    const noId = await t.mutate(
      'moveSpace',
      { spaceId: spaceIds[0], position: { before: { type: 'COLLECTION', space: spaceIds[1] } } },
      'space { id }',
    );
    expect(noId.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'input.position.before' } });
    expect(t.calls).toHaveLength(0);
  });

  it('a read-only member is FORBIDDEN', async () => {
    const res = await t.mutate('moveSpace', { spaceId: spaceIds[0], parent: null }, 'space { id }', t.world.users.read.token);
    expect(res.errors?.[0]).toMatchObject({ path: ['moveSpace'], extensions: { code: 'FORBIDDEN' } });
  });
});

describe('transferSpace', () => {
  it('moves a space from acme to globex; read back, it belongs to globex and left the acme list', async () => {
    const { space } = await t.payload('createSpace', { organizationId: t.world.orgId, title: 'Travels' }, 'space { restId }');
    const res = await t.payload(
      'transferSpace',
      { spaceId: space.restId, organization: t.world.otherOrgId },
      'space { restId organization { restId } } organization { restId title }',
    );
    expect(res).toEqual({
      space: { restId: space.restId, organization: { restId: t.world.otherOrgId } },
      organization: { restId: t.world.otherOrgId, title: 'Globex' },
    });
    const check = await t.data(
      `query($id: String!, $acme: String!, $globex: String!) {
        space(spaceId: $id) { organization { restId } }
        acme: organization(organizationId: $acme) { spaces(first: 100) { nodes { restId } } }
        globex: organization(organizationId: $globex) { spaces(first: 100) { nodes { restId } } }
      }`,
      { id: space.restId, acme: t.world.orgId, globex: t.world.otherOrgId },
    );
    expect(check.space.organization.restId).toBe(t.world.otherOrgId);
    expect(check.acme.spaces.nodes.map((n: any) => n.restId)).not.toContain(space.restId);
    expect(check.globex.spaces.nodes.map((n: any) => n.restId)).toContain(space.restId);
  });

  it('without organization is a GraphQL validation error; to the same organization is CONFLICT', async () => {
    const missing = await t.mutate('transferSpace', { spaceId: spaceIds[0] }, 'space { id }');
    expect(missing.errors?.[0].message).toMatch(/organization/);
    const same = await t.mutate('transferSpace', { spaceId: spaceIds[0], organization: t.world.orgId }, 'space { id }');
    expect(same.errors?.[0]).toMatchObject({ path: ['transferSpace'], extensions: { code: 'CONFLICT' } });
  });

  it('an outsider is NOT_FOUND', async () => {
    const res = await t.mutate(
      'transferSpace',
      { spaceId: spaceIds[0], organization: t.world.otherOrgId },
      'space { id }',
      t.world.users.outsider.token,
    );
    expect(res.errors?.[0]).toMatchObject({ path: ['transferSpace'], extensions: { code: 'NOT_FOUND' } });
  });
});

describe('updateSpace roles', () => {
  it('a read-only member is FORBIDDEN, an outsider NOT_FOUND; the title is unchanged', async () => {
    const before = await readSpace(spaceIds[6]);
    const read = await t.mutate('updateSpace', { spaceId: spaceIds[6], title: 'Hijack' }, 'space { title }', t.world.users.read.token);
    expect(read.errors?.[0]).toMatchObject({
      path: ['updateSpace'],
      extensions: { code: 'FORBIDDEN', upstream: { status: 403, method: 'PATCH' } },
    });
    const outsider = await t.mutate(
      'updateSpace',
      { spaceId: spaceIds[6], title: 'Hijack' },
      'space { title }',
      t.world.users.outsider.token,
    );
    expect(outsider.errors?.[0]).toMatchObject({ path: ['updateSpace'], extensions: { code: 'NOT_FOUND' } });
    expect((await readSpace(spaceIds[6])).title).toBe(before.title);
  });

  it('with default level EDIT an editor changes the title but not the edit mode (admin only)', async () => {
    const admin = await t.payload('updateSpace', { spaceId: spaceIds[6], defaultLevel: 'EDIT' }, 'space { defaultLevel }');
    expect(admin.space.defaultLevel).toBe('EDIT');
    const ok = await t.payload('updateSpace', { spaceId: spaceIds[6], title: 'Edited' }, 'space { title }', t.world.users.edit.token);
    expect(ok.space.title).toBe('Edited');
    const res = await t.mutate('updateSpace', { spaceId: spaceIds[6], editMode: 'LOCKED' }, 'space { editMode }', t.world.users.edit.token);
    expect(res.errors?.[0]).toMatchObject({ path: ['updateSpace'], extensions: { code: 'FORBIDDEN' } });
    await t.payload('updateSpace', { spaceId: spaceIds[6], editMode: 'LOCKED' }, 'space { editMode }');
    expect(await readSpace(spaceIds[6])).toMatchObject({ title: 'Edited', editMode: 'LOCKED', defaultLevel: 'EDIT' });
  });
});

describe('lockSpace, unlockSpace (the edit-mode transition)', () => {
  it('lock → unlock, each read back from REST; clientMutationId is echoed; a later read in the operation is fresh', async () => {
    const spaceId = spaceIds[5];
    t.resetCalls();
    const res = await t.data(
      `mutation($id: String!) { lockSpace(input: { spaceId: $id, clientMutationId: "l1" }) { clientMutationId space { restId editMode } } }`,
      { id: spaceId },
    );
    expect(res.lockSpace).toEqual({ clientMutationId: 'l1', space: { restId: spaceId, editMode: 'LOCKED' } });
    expect(t.calls.map((c) => `${c.method} ${c.path}`)).toEqual([`PATCH /spaces/${spaceId}`]);
    expect((await t.api.get(`/spaces/${spaceId}`)).body.editMode).toBe('locked');
    expect((await readSpace(spaceId)).editMode).toBe('LOCKED');
    const unlocked = await t.payload('unlockSpace', { spaceId }, 'space { editMode }');
    expect(unlocked.space.editMode).toBe('LIVE');
    expect((await t.api.get(`/spaces/${spaceId}`)).body.editMode).toBe('live');
  });

  it('needs admin: an editor is FORBIDDEN and the mode stays; an outsider is NOT_FOUND', async () => {
    const spaceId = spaceIds[5];
    const editor = await t.mutate('lockSpace', { spaceId }, 'space { editMode }', t.world.users.edit.token);
    expect(editor.errors?.[0]).toMatchObject({
      path: ['lockSpace'],
      extensions: { code: 'FORBIDDEN', upstream: { status: 403, method: 'PATCH' } },
    });
    const outsider = await t.mutate('unlockSpace', { spaceId }, 'space { editMode }', t.world.users.outsider.token);
    expect(outsider.errors?.[0]).toMatchObject({ path: ['unlockSpace'], extensions: { code: 'NOT_FOUND' } });
    expect((await readSpace(spaceId)).editMode).toBe('LIVE');
  });
});
