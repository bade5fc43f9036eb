/**
 * A mutation's root fields run one after the other, and each payload reads through the request's
 * loader, which the earlier fields' payloads filled: a later field's payload must show its own
 * write wherever REST shows the written object, embedded ones included (a site section embeds its
 * site spaces' spaces, a member's space list embeds the spaces), and wherever REST shows what the
 * write changed (a space's aggregate permissions after a role or a collection's permission
 * changed), as a REST read after it would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { newSite } from './siteFixture.js';

let t: TestStack;
beforeAll(async () => {
  t = await startStack();
});
afterAll(() => t.stop());

/** The titles of every object of `value` whose `restId` is `id`. */
function titlesOf(value: unknown, id: string): string[] {
  if (!value || typeof value !== 'object') return [];
  const own = (value as { restId?: unknown; title?: unknown }).restId === id ? [(value as { title: string }).title] : [];
  return [...own, ...Object.values(value).flatMap((v) => titlesOf(v, id))];
}

describe('a later root field of a mutation sees an earlier field’s write', () => {
  /** Two renames of the space, each payload reading the space as `where` embeds it. */
  async function renameTwice(spaceId: string, where: string) {
    const rename = (alias: string, title: string) =>
      `${alias}: updateSpace(input: { spaceId: $spaceId, title: "${title}" }) { space { title organization { ${where} } } }`;
    const result = await t.gql(`mutation($spaceId: String!) { ${rename('a', 'First')} ${rename('b', 'Second')} }`, { spaceId });
    expect(result.errors).toBeUndefined();
    return result.data as { a: unknown; b: { space: { title: string } } };
  }

  it('a site section’s embedded space, read in the first payload, shows the second rename in the second', async () => {
    const site = newSite(t);
    const [spaceId] = site.spaceIds;
    const data = await renameTwice(
      spaceId,
      'sites(first: 100) { nodes { sections(first: 100) { nodes { siteSpaces { space { restId title } } } } } }',
    );
    expect(titlesOf(data.a, spaceId)).toEqual(['First']);
    expect(data.b.space.title).toBe('Second');
    expect(titlesOf(data.b, spaceId)).toEqual(['Second']);
    // As REST says after the mutation.
    const sections = (await t.api.get(`${site.base}/sections`)).body.items as Array<{ siteSpaces: Array<{ space: { title: string } }> }>;
    expect(sections[0].siteSpaces[0].space.title).toBe('Second');
  });

  it('a member’s embedded spaces, read in the first payload, show the second rename in the second', async () => {
    const { id: spaceId } = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Before' })).body;
    const data = await renameTwice(spaceId, 'members(first: 100) { nodes { spaces(first: 100) { nodes { restId title } } } }');
    expect(titlesOf(data.a, spaceId).length).toBeGreaterThan(0);
    expect(new Set(titlesOf(data.a, spaceId))).toEqual(new Set(['First']));
    expect(new Set(titlesOf(data.b, spaceId))).toEqual(new Set(['Second']));
  });

  /** The role `aggregatePermissions` of the space gives user `userId` in `value`, wherever it appears. */
  function rolesOf(value: unknown, userId: string): string[] {
    if (!value || typeof value !== 'object') return [];
    const edge = value as { node?: { restId?: string }; permission?: string };
    const own = edge.node?.restId === userId && edge.permission ? [edge.permission] : [];
    return [...own, ...Object.values(value).flatMap((v) => rolesOf(v, userId))];
  }
  const AGGREGATE = 'aggregatePermissions(first: 100) { edges { permission node { restId } } }';

  it('a space’s aggregate permissions show a member’s new role in the payload of the write that changed it', async () => {
    const { id: spaceId } = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Roles' })).body;
    // Members get their organization role on it, up to edit.
    await t.api.patch(`/spaces/${spaceId}`, { defaultLevel: 'edit' });
    const userId = t.world.users.read.id;
    const role = (alias: string, to: string) =>
      `${alias}: updateMember(input: { organizationId: $org, userId: $user, role: ${to} }) { member { role } organization { space: spaces(first: 100) { nodes { restId ${AGGREGATE} } } } }`;
    const result = await t.gql(`mutation($org: String!, $user: String!) { ${role('a', 'COMMENT')} ${role('b', 'EDIT')} }`, {
      org: t.world.orgId,
      user: userId,
    });
    expect(result.errors).toBeUndefined();
    const data = result.data as { a: unknown; b: { member: { role: string } } };
    expect(data.b.member.role).toBe('EDIT');
    const ofSpace = (payload: any) => payload.organization.space.nodes.find((n: { restId: string }) => n.restId === spaceId);
    expect(rolesOf(ofSpace(data.a), userId)).toEqual(['COMMENT']);
    expect(rolesOf(ofSpace(data.b), userId)).toEqual(['EDIT']);
    const rest = (await t.api.get(`/spaces/${spaceId}/permissions/aggregate`, { limit: 1000 })).body.items;
    expect(rest.filter((i: { user: { id: string } }) => i.user.id === userId).map((i: { permission: string }) => i.permission)).toEqual([
      'edit',
    ]);
  });

  it('a space’s aggregate permissions show a role given on its collection in the payload of that grant', async () => {
    const { id: collectionId } = (await t.api.post(`/orgs/${t.world.orgId}/collections`, { title: 'Shelf' })).body;
    const { id: spaceId } = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Inside', parent: collectionId })).body;
    const userId = t.world.users.guest.id;
    const space = `organization { space: spaces(first: 100) { nodes { restId ${AGGREGATE} } } }`;
    const result = await t.gql(
      `mutation($c: String!, $u: String!) {
        a: updateCollection(input: { collectionId: $c, title: "Shelf" }) { collection { ${space} } }
        b: grantCollectionPermission(input: { collectionId: $c, role: EDIT, users: [$u] }) { collection { ${space} } }
      }`,
      { c: collectionId, u: userId },
    );
    expect(result.errors).toBeUndefined();
    const data = result.data as { a: any; b: any };
    const ofSpace = (payload: any) => payload.collection.organization.space.nodes.find((n: { restId: string }) => n.restId === spaceId);
    expect(rolesOf(ofSpace(data.a), userId)).toEqual([]);
    expect(rolesOf(ofSpace(data.b), userId)).toEqual(['EDIT']);
  });

  it('a space’s aggregate permissions show a user who joined the organization in the payload of the invite', async () => {
    const { id: spaceId } = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Joined' })).body;
    await t.api.patch(`/spaces/${spaceId}`, { defaultLevel: 'edit' });
    const { outsider } = t.world.users;
    const space = `space: spaces(first: 100) { nodes { restId ${AGGREGATE} } }`;
    const result = await t.gql(
      `mutation($s: String!, $org: String!) {
        a: updateSpace(input: { spaceId: $s, title: "Joined" }) { space { organization { ${space} } } }
        b: inviteToOrganization(input: { organizationId: $org, emails: ["otto@globex.test"], role: EDIT }) { users { restId } organization { ${space} } }
      }`,
      { s: spaceId, org: t.world.orgId },
    );
    expect(result.errors).toBeUndefined();
    const data = result.data as { a: any; b: any };
    expect(data.b.users).toEqual([{ restId: outsider.id }]);
    const ofSpace = (organization: any) => organization.space.nodes.find((n: { restId: string }) => n.restId === spaceId);
    expect(rolesOf(ofSpace(data.a.space.organization), outsider.id)).toEqual([]);
    expect(rolesOf(ofSpace(data.b.organization), outsider.id)).toEqual(['EDIT']);
    const rest = (await t.api.get(`/spaces/${spaceId}/permissions/aggregate`, { limit: 1000 })).body.items;
    expect(
      rest.filter((i: { user: { id: string } }) => i.user.id === outsider.id).map((i: { permission: string }) => i.permission),
    ).toEqual(['edit']);
  });

  it('a space’s change request count, read in a list by the first payload, counts the second change request in the second', async () => {
    const { id: spaceId } = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Counted' })).body;
    const create = (alias: string) =>
      `${alias}: createChangeRequest(input: { spaceId: $s, subject: "${alias}" }) { space { organization { spaces(first: 100) { nodes { restId changeRequestsCount } } } } }`;
    const result = await t.gql(`mutation($s: String!) { ${create('a')} ${create('b')} }`, { s: spaceId });
    expect(result.errors).toBeUndefined();
    const data = result.data as { a: any; b: any };
    const count = (payload: any) =>
      payload.space.organization.spaces.nodes.find((n: { restId: string }) => n.restId === spaceId).changeRequestsCount;
    expect([count(data.a), count(data.b)]).toEqual([1, 2]);
    expect((await t.api.get(`/spaces/${spaceId}`)).body.changeRequests).toBe(2);
  });
});
