/**
 * A write that changes who reaches what (a space created or deleted, a grant, a role, a team
 * deleted), after a read of what it changes in the same operation: the payload shows REST as it
 * is after the write (members' and teams' space counts, aggregatePermissions), not the earlier
 * field's read still held by the request's loader. Likewise for a content write and the lists that
 * embed its space with the space's counts and revision.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { newSite, restAll } from './siteFixture.js';

let t: TestStack;
beforeAll(async () => {
  t = await startStack();
});
afterAll(() => t.stop());

const Input = (m: string) => `${m[0].toUpperCase()}${m.slice(1)}Input`;

/** `first` then `second` in one operation; answers the second's payload. */
async function twoWrites(first: [string, object, string], second: [string, object, string]) {
  const [m1, i1, s1] = first;
  const [m2, i2, s2] = second;
  const data = await t.data(
    `mutation($a: ${Input(m1)}!, $b: ${Input(m2)}!) { a: ${m1}(input: $a) { ${s1} } b: ${m2}(input: $b) { ${s2} } }`,
    {
      a: i1,
      b: i2,
    },
  );
  return data.b;
}

const COUNTS = 'members(first: 100) { nodes { restId spacesCount } } teams(first: 100) { nodes { restId spacesCount } }';
const AGGREGATE = 'aggregatePermissions(first: 100) { edges { permission node { restId } } }';

/** REST's `{id: spaces}` of the organization's members and teams. */
async function restCounts() {
  const org = t.world.orgId;
  const count = async (path: string) =>
    Object.fromEntries((await t.api.all(path)).items.map((i: { id: string; spaces: number }) => [i.id, i.spaces]));
  return { members: await count(`/orgs/${org}/members`), teams: await count(`/orgs/${org}/teams`) };
}
const graphCounts = (org: any) => ({
  members: Object.fromEntries(org.members.nodes.map((n: any) => [n.restId, n.spacesCount])),
  teams: Object.fromEntries(org.teams.nodes.map((n: any) => [n.restId, n.spacesCount])),
});
const restAggregate = async (path: string) =>
  (await t.api.all(`${path}/permissions/aggregate`)).items.map((i: any) => [i.user.id, i.permission.toUpperCase()]);
const graphAggregate = (target: any) => target.aggregatePermissions.edges.map((e: any) => [e.node.restId, e.permission]);

describe('a write after a read of what it changes, in one operation', () => {
  const ping = () => ['pingOrganization', { organizationId: t.world.orgId }, `organization { ${COUNTS} }`] as [string, object, string];

  it('createSpace and deleteSpace: the members’ and teams’ space counts are REST’s after the write', async () => {
    const org = t.world.orgId;
    // A team granted on a collection counts the spaces created in it.
    const team = (await t.api.put(`/orgs/${org}/teams`, { title: 'Counted', members: [t.world.users.guest.id] })).body;
    const collection = (await t.api.post(`/orgs/${org}/collections`, { title: 'Granted' })).body;
    await t.api.post(`/collections/${collection.id}/permissions`, { role: 'read', teams: [team.id] });

    const created = await twoWrites(ping(), [
      'createSpace',
      { organizationId: org, title: 'Counted', parent: collection.id },
      `space { restId } organization { ${COUNTS} }`,
    ]);
    const after = await restCounts();
    expect(after.teams[team.id]).toBe(1);
    expect(graphCounts(created.organization)).toEqual(after);

    const deleted = await twoWrites(ping(), ['deleteSpace', { spaceId: created.space.restId }, `organization { ${COUNTS} }`]);
    expect(graphCounts(deleted.organization)).toEqual(await restCounts());
  });

  it('grantSpacePermission to a team: its space count is REST’s after the write', async () => {
    const org = t.world.orgId;
    const team = (await t.api.put(`/orgs/${org}/teams`, { title: 'Granted later' })).body;
    const space = (await t.api.post(`/orgs/${org}/spaces`, { title: 'Granted to a team' })).body;
    const granted = await twoWrites(ping(), [
      'grantSpacePermission',
      { spaceId: space.id, role: 'EDIT', teams: [team.id] },
      `space { organization { ${COUNTS} } }`,
    ]);
    const after = await restCounts();
    expect(after.teams[team.id]).toBe(1);
    expect(graphCounts(granted.space.organization)).toEqual(after);
  });

  it('updateMember: every space’s aggregatePermissions is REST’s after the new role', async () => {
    const org = t.world.orgId;
    const space = (await t.api.post(`/orgs/${org}/spaces`, { title: 'Aggregated' })).body;
    const user = t.world.users.review.id;
    const read = ['updateSpace', { spaceId: space.id, title: 'Read first' }, `space { ${AGGREGATE} }`] as [string, object, string];
    const promoted = await twoWrites(read, [
      'updateMember',
      { organizationId: org, userId: user, role: 'ADMIN' },
      `organization { space: spaces(first: 100) { nodes { restId ${AGGREGATE} } } }`,
    ]);
    const target = promoted.organization.space.nodes.find((n: any) => n.restId === space.id);
    const after = await restAggregate(`/spaces/${space.id}`);
    expect(after).toContainEqual([user, 'ADMIN']);
    expect(graphAggregate(target)).toEqual(after);
    await t.api.patch(`/orgs/${org}/members/${user}`, { role: 'review' });
  });

  it('grantCollectionPermission: the aggregatePermissions of the spaces it holds are REST’s after the write', async () => {
    const org = t.world.orgId;
    const collection = (await t.api.post(`/orgs/${org}/collections`, { title: 'Holding' })).body;
    const space = (await t.api.post(`/orgs/${org}/spaces`, { title: 'Held', parent: collection.id })).body;
    const user = t.world.users.comment.id;
    const read = ['updateSpace', { spaceId: space.id, title: 'Read first' }, `space { ${AGGREGATE} }`] as [string, object, string];
    const granted = await twoWrites(read, [
      'grantCollectionPermission',
      { collectionId: collection.id, role: 'ADMIN', users: [user] },
      `collection { spaces(first: 100) { nodes { restId ${AGGREGATE} } } }`,
    ]);
    const after = await restAggregate(`/spaces/${space.id}`);
    expect(after).toContainEqual([user, 'ADMIN']);
    expect(graphAggregate(granted.collection.spaces.nodes[0])).toEqual(after);
  });

  it('deleteTeam: the aggregatePermissions its grant gave are REST’s after the write', async () => {
    const org = t.world.orgId;
    const team = (await t.api.put(`/orgs/${org}/teams`, { title: 'Leaving', members: [t.world.users.guest.id] })).body;
    const space = (await t.api.post(`/orgs/${org}/spaces`, { title: 'Team-granted' })).body;
    await t.api.post(`/spaces/${space.id}/permissions`, { role: 'admin', teams: [team.id] });
    const read = ['updateSpace', { spaceId: space.id, title: 'Read first' }, `space { ${AGGREGATE} }`] as [string, object, string];
    const deleted = await twoWrites(read, [
      'deleteTeam',
      { organizationId: org, teamId: team.id },
      `organization { space: spaces(first: 100) { nodes { restId ${AGGREGATE} } } }`,
    ]);
    const target = deleted.organization.space.nodes.find((n: any) => n.restId === space.id);
    const after = await restAggregate(`/spaces/${space.id}`);
    expect(after.map(([u]: string[]) => u)).not.toContain(t.world.users.guest.id);
    expect(graphAggregate(target)).toEqual(after);
  });
  it('inviteToOrganization of an existing user: every space’s aggregatePermissions holds the new member', async () => {
    const org = t.world.orgId;
    const space = (await t.api.post(`/orgs/${org}/spaces`, { title: 'Joined' })).body;
    const outsider = t.world.users.outsider;
    const read = ['updateSpace', { spaceId: space.id, title: 'Read first' }, `space { ${AGGREGATE} }`] as [string, object, string];
    const invited = await twoWrites(read, [
      'inviteToOrganization',
      { organizationId: org, emails: [outsider.email], role: 'EDIT' },
      `users { restId } organization { space: spaces(first: 100) { nodes { restId ${AGGREGATE} } } }`,
    ]);
    expect(invited.users).toEqual([{ restId: outsider.id }]);
    const target = invited.organization.space.nodes.find((n: any) => n.restId === space.id);
    const after = await restAggregate(`/spaces/${space.id}`);
    expect(after.map(([u]: string[]) => u)).toContain(outsider.id);
    expect(graphAggregate(target)).toEqual(after);
  });
  it('updateSpace and deleteSpace of a published space: the sites’ sections show REST’s after the write', async () => {
    const site = newSite(t, { spaces: 2 });
    const [kept, changed] = site.spaceIds;
    const SITE = `sites(first: 100) { nodes { restId siteSpacesCount
      sections(first: 100) { nodes { restId siteSpaces { restId space { restId title } } } } } }`;
    const ofSite = (org: any) => org.sites.nodes.find((n: any) => n.restId === site.siteId);
    const sections = async () =>
      (await restAll(t, `${site.base}/sections`)).map((s) => ({
        restId: s.id,
        siteSpaces: s.siteSpaces.map((ss: any) => ({ restId: ss.id, space: { restId: ss.space.id, title: ss.space.title } })),
      }));
    const read = ['updateSpace', { spaceId: kept, title: 'Read first' }, `space { organization { ${SITE} } }`] as [string, object, string];

    const renamed = await twoWrites(read, ['updateSpace', { spaceId: changed, title: 'Renamed' }, `space { organization { ${SITE} } }`]);
    expect(ofSite(renamed.space.organization).sections.nodes).toEqual(await sections());

    const deleted = await twoWrites(read, ['deleteSpace', { spaceId: changed }, `organization { ${SITE} }`]);
    const after = (await t.api.get(site.base)).body;
    expect(after.siteSpaces).toBe(1);
    expect(ofSite(deleted.organization).siteSpacesCount).toBe(after.siteSpaces);
    expect(ofSite(deleted.organization).sections.nodes).toEqual(await sections());
  });
  it('createComment, createChangeRequest, mergeChangeRequest: lists embedding the space show its counts and revision after the write', async () => {
    const org = t.world.orgId;
    const site = newSite(t, { spaces: 1 });
    const [spaceId] = site.spaceIds;
    const cr = (await t.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Embedded' })).body;
    await t.api.patch(`/spaces/${spaceId}/change-requests/${cr.id}`, { status: 'open' });
    const SPACE = 'restId commentsCount changeRequestsCount changeRequestsOpenCount revision';
    const LISTS = `spaces(first: 100) { nodes { ${SPACE} } }
      sites(first: 100) { nodes { sections(first: 100) { nodes { siteSpaces { space { ${SPACE} } } } } } }`;
    const read = ['pingOrganization', { organizationId: org }, `organization { ${LISTS} }`] as [string, object, string];
    /** The space as each list holds it, and as REST answers it. */
    const check = async (organization: any) => {
      const space = (await t.api.get(`/spaces/${spaceId}`)).body;
      const expected = {
        restId: spaceId,
        commentsCount: space.comments,
        changeRequestsCount: space.changeRequests,
        changeRequestsOpenCount: space.changeRequestsOpen,
        revision: space.revision,
      };
      expect(organization.spaces.nodes.find((n: any) => n.restId === spaceId)).toEqual(expected);
      const published = organization.sites.nodes.flatMap((s: any) =>
        s.sections.nodes.flatMap((n: any) => n.siteSpaces.map((ss: any) => ss.space)),
      );
      expect(published.find((n: any) => n.restId === spaceId)).toEqual(expected);
      return space;
    };
    const keys = { spaceId, changeRequestId: cr.id };
    const commented = await twoWrites(read, [
      'createComment',
      { ...keys, body: { markdown: 'Counted' } },
      `changeRequest { space { organization { ${LISTS} } } }`,
    ]);
    expect((await check(commented.changeRequest.space.organization)).comments).toBe(1);
    const opened = await twoWrites(read, ['createChangeRequest', { spaceId, subject: 'Another' }, `space { organization { ${LISTS} } }`]);
    expect((await check(opened.space.organization)).changeRequests).toBe(2);
    const merged = await twoWrites(read, ['mergeChangeRequest', keys, `changeRequest { space { organization { ${LISTS} } } }`]);
    expect((await check(merged.changeRequest.space.organization)).changeRequestsOpen).toBe(0);
  });
});
