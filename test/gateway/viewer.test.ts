import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

let t: TestStack;
beforeAll(async () => {
  t = await startStack();
});
afterAll(() => t.stop());

describe('viewer and root lookups', () => {
  it('viewer is the caller, with one REST call', async () => {
    t.resetCalls();
    const data = await t.data('{ viewer { id restId displayName email } }');
    expect(data.viewer).toMatchObject({ restId: t.world.users.admin.id, displayName: 'Ada admin', email: 'admin@acme.test' });
    expect(t.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /user']);
  });

  it('organization by REST id, and node(id) round-trips it', async () => {
    const data = await t.data('query($id: String!) { organization(organizationId: $id) { id restId title permissions { admin } } }', {
      id: t.world.orgId,
    });
    expect(data.organization).toMatchObject({ restId: t.world.orgId, title: 'Acme', permissions: { admin: true } });
    const again = await t.data('query($id: ID!) { node(id: $id) { id ... on Organization { title } } }', { id: data.organization.id });
    expect(again.node).toEqual({ id: data.organization.id, title: 'Acme' });
  });

  it('user(userId:) and node(id) round-trip a User', async () => {
    const data = await t.data('query($id: String!) { user(userId: $id) { id restId displayName } }', { id: t.world.users.read.id });
    expect(data.user).toMatchObject({ restId: t.world.users.read.id, displayName: 'Ada read' });
    const again = await t.data('query($id: ID!) { node(id: $id) { __typename id ... on User { restId } } }', { id: data.user.id });
    expect(again.node).toEqual({ __typename: 'User', id: data.user.id, restId: t.world.users.read.id });
  });

  it('a bad token is UNAUTHENTICATED at the field path', async () => {
    const res = await t.gql('{ viewer { id } }', undefined, 'bad-token');
    expect(res.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    expect(res.errors?.[0].path).toEqual(['viewer']);
    expect(res.errors?.[0].extensions?.upstream).toMatchObject({ status: 401, method: 'GET', path: '/user' });
  });

  it('an unknown organization is NOT_FOUND while the rest of the query resolves', async () => {
    const res = await t.gql('{ viewer { restId } organization(organizationId: "nope") { title } }');
    expect(res.data?.viewer.restId).toBe(t.world.users.admin.id);
    expect(res.data?.organization).toBeNull();
    expect(res.errors?.[0]).toMatchObject({ path: ['organization'], extensions: { code: 'NOT_FOUND' } });
  });
});

describe('organizations', () => {
  it('lists the caller’s organizations, and a listed one is not fetched again', async () => {
    t.resetCalls();
    const data = await t.data('{ organizations(first: 10) { nodes { restId title } } }');
    expect(data.organizations.nodes).toEqual([
      { restId: t.world.orgId, title: 'Acme' },
      { restId: t.world.otherOrgId, title: 'Globex' },
    ]);
    const reader = await t.data('{ organizations { nodes { title } } }', undefined, t.world.users.read.token);
    expect(reader.organizations.nodes).toEqual([{ title: 'Acme' }]);
    // The organizations' spaces come after the list, so each space's organization edge is served
    // from the listed organizations (no GET /orgs/{id}).
    insertSpace(t.upstream.db, t.clock.now().toISOString(), { organizationId: t.world.orgId, title: 'Docs' });
    t.resetCalls();
    const nested = await t.data('{ organizations { nodes { spaces(first: 1) { nodes { organization { title } } } } } }');
    expect(nested.organizations.nodes[0].spaces.nodes).toEqual([{ organization: { title: 'Acme' } }]);
    expect(t.calls.map((c) => c.path).sort()).toEqual(
      ['/orgs', `/orgs/${t.world.orgId}/spaces`, `/orgs/${t.world.otherOrgId}/spaces`].sort(),
    );
  });
});

describe('cursors', () => {
  it('a cursor of another connection, or a forged one, is BAD_USER_INPUT on `after` with no REST list call', async () => {
    const orgs = await t.data('{ organizations(first: 1) { pageInfo { endCursor } } }');
    const cursor = orgs.organizations.pageInfo.endCursor;
    const q =
      'query($id: String!, $after: String) { organization(organizationId: $id) { title spaces(first: 1, after: $after) { nodes { title } } } }';
    for (const after of [cursor, 'forged', Buffer.from('{"s":0,"l":5,"k":"x"}').toString('base64url')]) {
      t.resetCalls();
      const res = await t.gql(q, { id: t.world.orgId, after });
      expect(res.errors?.[0]).toMatchObject({ path: ['organization', 'spaces'], extensions: { code: 'BAD_USER_INPUT', field: 'after' } });
      expect(res.data?.organization.title).toBe('Acme');
      expect(t.calls.filter((c) => c.path.endsWith('/spaces'))).toHaveLength(0);
    }
    // The cursor still works on its own connection.
    const next = await t.data('query($after: String) { organizations(first: 1, after: $after) { nodes { title } } }', { after: cursor });
    expect(next.organizations.nodes).toEqual([{ title: 'Globex' }]);
  });
});
