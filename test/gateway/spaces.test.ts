import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSpace } from '../../src/upstream/routes/spaces.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

let t: TestStack;
const spaceIds: string[] = [];
beforeAll(async () => {
  t = await startStack();
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
