import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { callList, walkConnection } from '../helpers/walk.js';

let t: TestStack;
let org: string;
const spaceIds: string[] = [];
beforeAll(async () => {
  t = await startStack();
  org = t.world.orgId;
  for (let i = 1; i <= 3; i++)
    spaceIds.push(insertSpace(t.upstream.db, t.clock.now().toISOString(), { organizationId: org, title: `Space ${i}` }).id);
  const team = await t.api.put(`/orgs/${org}/teams`, { title: 'Writers', members: [t.world.users.edit.id] });
  expect(team.status).toBe(201);
  await t.api.put(`/orgs/${org}/teams`, { title: 'Editors', members: [t.world.users.edit.id] });
});
afterAll(() => t.stop());

const enumOf = (v: string | null | undefined) => (v ? v.toUpperCase() : null);

/** What the graph shows of a REST member. */
const fromRest = (m: any) => ({
  restId: m.id,
  role: enumOf(m.role),
  disabled: m.disabled,
  joinedAt: m.joinedAt,
  lastSeenAt: m.lastSeenAt ?? null,
  sso: m.sso,
  spacesCount: m.spaces,
  teamsCount: m.teams,
  user: { restId: m.user.id, displayName: m.user.displayName, email: m.user.email },
});

const MEMBER_FIELDS = 'restId role disabled joinedAt lastSeenAt sso spacesCount teamsCount user { restId displayName email }';

const MEMBERS = `query($org: String!, $first: Int, $after: String, $role: MemberRoleFilter, $search: String, $sort: MemberSort, $order: SortOrder) {
  organization(organizationId: $org) {
    members(first: $first, after: $after, role: $role, search: $search, sort: $sort, order: $order) {
      nodes { ${MEMBER_FIELDS} }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

const walkMembers = (filters: Record<string, unknown> = {}, first = 3) =>
  walkConnection(t, MEMBERS, { org, first, ...filters }, (d) => d.organization.members);

describe('Organization.members', () => {
  it('walks to the end equal to REST, one list call per page and none for users', async () => {
    const rest = await t.api.all(`/orgs/${org}/members`);
    expect(rest.items.length).toBe(8);
    const walk = await walkMembers();
    expect(walk.nodes).toEqual(rest.items.map(fromRest));
    expect(walk.pageCalls).toHaveLength(3);
    for (const calls of walk.pageCalls) expect(calls.sort()).toEqual([`GET /orgs/${org}/members`]);
  });

  it.each([
    [{ role: 'GUEST' }, { role: 'guest' }],
    [{ role: 'EDIT' }, { role: 'edit' }],
    [{ search: 'ADA' }, { search: 'ADA' }],
    [{ search: 'otto' }, { search: 'otto' }],
    [
      { sort: 'LAST_SEEN_AT', order: 'ASC' },
      { sort: 'lastSeenAt', order: 'asc' },
    ],
  ])('filters %j like REST %j', async (filters, query) => {
    const rest = await t.api.all(`/orgs/${org}/members`, query);
    const walk = await walkMembers(filters, 2);
    expect(walk.nodes.map((n: any) => n.restId)).toEqual(rest.items.map((m: any) => m.id));
  });

  it('the guest filter lists the guest with a null role', async () => {
    const walk = await walkMembers({ role: 'GUEST' });
    expect(walk.nodes).toEqual([expect.objectContaining({ restId: t.world.users.guest.id, role: null })]);
  });

  it('Member.user costs no call beyond the list', async () => {
    t.resetCalls();
    const data = await t.data(
      `query($org: String!) { organization(organizationId: $org) { members(first: 20) { nodes { user { id restId displayName } } } } }`,
      { org },
    );
    expect(data.organization.members.nodes).toHaveLength(8);
    expect(callList(t).sort()).toEqual([`GET /orgs/${org}/members`]);
  });

  it('node(id) round-trips a member with one REST call', async () => {
    const data = await t.data(
      `query($org: String!) { member(organizationId: $org, userId: "${t.world.users.edit.id}") { id ${MEMBER_FIELDS} } }`,
      { org },
    );
    const rest = await t.api.get(`/orgs/${org}/members/${t.world.users.edit.id}`);
    expect(data.member).toEqual({ id: data.member.id, ...fromRest(rest.body) });
    t.resetCalls();
    const again = await t.data(`query($id: ID!) { node(id: $id) { id ... on Member { ${MEMBER_FIELDS} organization { restId } } } }`, {
      id: data.member.id,
    });
    expect(again.node).toEqual({ ...data.member, organization: { restId: org } });
    expect(callList(t).sort()).toEqual([`GET /orgs/${org}`, `GET /orgs/${org}/members/${t.world.users.edit.id}`]);
  });
});

describe('Member.spaces and Member.teams', () => {
  const SPACES = `query($org: String!, $user: String!, $first: Int, $after: String, $order: SortOrder) {
    member(organizationId: $org, userId: $user) {
      spaces(first: $first, after: $after, order: $order) {
        edges { permission node { restId title visibility } }
        nodes { restId }
        pageInfo { hasNextPage endCursor }
      }
    }
  }`;

  it('spaces walk to the end with the permission on each edge, equal to REST, no call per space', async () => {
    const user = t.world.users.edit.id;
    for (const order of ['ASC', 'DESC']) {
      const rest = await t.api.all(`/orgs/${org}/members/${user}/spaces`, { order: order.toLowerCase() });
      expect(rest.items.length).toBe(3);
      const edges: any[] = [];
      const walk = await walkConnection(t, SPACES, { org, user, first: 2, order }, (d) => {
        edges.push(...d.member.spaces.edges);
        return d.member.spaces;
      });
      expect(edges).toEqual(
        rest.items.map((i: any) => ({
          permission: enumOf(i.permission),
          node: { restId: i.space.id, title: i.space.title, visibility: i.space.visibility.toUpperCase() },
        })),
      );
      // The member lookup is a reference: its own GET is not needed for its spaces.
      for (const calls of walk.pageCalls) expect(calls.sort()).toEqual([`GET /orgs/${org}/members/${user}/spaces`]);
    }
  });

  it('Member.spaces.space needs no call even when its organization edge is walked', async () => {
    const user = t.world.users.read.id;
    t.resetCalls();
    const data = await t.data(
      `query($org: String!, $user: String!) { member(organizationId: $org, userId: $user) {
        spaces { edges { permission node { restId organization { restId } } } } } }`,
      { org, user },
    );
    expect(data.member.spaces.edges.map((e: any) => e.node.restId).sort()).toEqual([...spaceIds].sort());
    expect(data.member.spaces.edges.every((e: any) => e.permission === 'READ')).toBe(true);
    expect(callList(t).sort()).toEqual([`GET /orgs/${org}`, `GET /orgs/${org}/members/${user}/spaces`]);
  });

  const TEAMS = `query($org: String!, $user: String!, $title: String) {
    member(organizationId: $org, userId: $user) {
      teamsCount
      teams(title: $title) { edges { role node { id restId title membersCount } } }
    }
  }`;

  it('teams carry the member role on each edge, filter by title, and equal REST', async () => {
    const edit = await t.data(TEAMS, { org, user: t.world.users.edit.id });
    const rest = await t.api.all(`/orgs/${org}/members/${t.world.users.edit.id}/teams`);
    expect(edit.member.teamsCount).toBe(2);
    expect(edit.member.teams.edges.map((e: any) => ({ ...e.node, id: undefined, role: e.role }))).toEqual(
      rest.items.map((i: any) => ({ id: undefined, restId: i.team.id, title: i.team.title, membersCount: i.team.members, role: 'MEMBER' })),
    );
    const admin = await t.data(TEAMS, { org, user: t.world.users.admin.id, title: 'WRIT' });
    expect(admin.member.teams.edges).toEqual([
      expect.objectContaining({ role: 'OWNER', node: expect.objectContaining({ title: 'Writers' }) }),
    ]);
  });

  it('a team listed under a member is not fetched again by node(id) in a later field', async () => {
    const first = await t.data(TEAMS, { org, user: t.world.users.edit.id });
    const teamId = first.member.teams.edges[0].node.id;
    t.resetCalls();
    const again = await t.data(`query($id: ID!) { node(id: $id) { ... on Team { restId title } } }`, { id: teamId });
    expect(again.node.title).toBe(first.member.teams.edges[0].node.title);
    expect(callList(t)).toEqual([`GET /orgs/${org}/teams/${first.member.teams.edges[0].node.restId}`]);
  });
});

describe('member errors', () => {
  it('an outsider gets NOT_FOUND at organization and at member, the rest resolves', async () => {
    const res = await t.gql(
      `query($org: String!, $user: String!) {
        viewer { restId }
        organization(organizationId: $org) { members { nodes { restId } } }
        member(organizationId: $org, userId: $user) { role }
      }`,
      { org, user: t.world.users.edit.id },
      t.world.users.outsider.token,
    );
    // The lookup makes no GET of its own (only a list is selected): NOT_FOUND comes at the list.
    expect(res.data).toEqual({ viewer: { restId: t.world.users.outsider.id }, organization: { members: null }, member: null });
    expect(res.errors?.map((e) => [e.path, e.extensions?.code]).sort()).toEqual([
      [['member'], 'NOT_FOUND'],
      [['organization', 'members'], 'NOT_FOUND'],
    ]);
  });

  it('an unknown member id in node() is NOT_FOUND at its path', async () => {
    const res = await t.gql(`query($org: String!) { member(organizationId: $org, userId: "nobody") { role } }`, { org });
    expect(res.errors?.[0]).toMatchObject({ path: ['member'], extensions: { code: 'NOT_FOUND' } });
  });
});

const UPDATE = `mutation($input: UpdateMemberInput!) { updateMember(input: $input) { clientMutationId member { id restId role } } }`;
const READ_MEMBER = `query($org: String!, $user: String!) { member(organizationId: $org, userId: $user) { role sso lastSeenAt } }`;

describe('member mutations', () => {
  it('updateMember changes the role, and null makes a guest; both read back through a query', async () => {
    const user = t.world.users.comment.id;
    const res = await t.data(UPDATE, { input: { organizationId: org, userId: user, role: 'REVIEW', clientMutationId: 'c1' } });
    expect(res.updateMember).toMatchObject({ clientMutationId: 'c1', member: { restId: user, role: 'REVIEW' } });
    expect((await t.data(READ_MEMBER, { org, user })).member.role).toBe('REVIEW');
    await t.data(UPDATE, { input: { organizationId: org, userId: user, role: null } });
    expect((await t.data(READ_MEMBER, { org, user })).member.role).toBeNull();
    expect((await t.api.get(`/orgs/${org}/members/${user}`)).body.role).toBeNull();
    await t.data(UPDATE, { input: { organizationId: org, userId: user, role: 'COMMENT' } });
  });

  it('a later read in the same operation sees the new role', async () => {
    const user = t.world.users.review.id;
    const res = await t.data(
      `mutation($org: String!, $user: String!) {
        updateMember(input: { organizationId: $org, userId: $user, role: CREATE }) {
          member { role organization { members(role: CREATE) { nodes { restId } } } }
        }
        again: setMemberSso(input: { organizationId: $org, userId: $user }) { member { role sso } }
      }`,
      { org, user },
    );
    expect(res.updateMember.member.organization.members.nodes.map((n: any) => n.restId).sort()).toEqual(
      [t.world.users.create.id, user].sort(),
    );
    expect(res.again.member).toEqual({ role: 'CREATE', sso: true });
    expect((await t.data(READ_MEMBER, { org, user })).member).toMatchObject({ role: 'CREATE', sso: true });
    await t.data(UPDATE, { input: { organizationId: org, userId: user, role: 'REVIEW' } });
  });

  it('demoting the last admin is CONFLICT at the mutation path, and nothing changes', async () => {
    const res = await t.gql(UPDATE, { input: { organizationId: org, userId: t.world.users.admin.id, role: 'EDIT' } });
    expect(res.data).toEqual({ updateMember: null });
    expect(res.errors?.[0]).toMatchObject({ path: ['updateMember'], extensions: { code: 'CONFLICT', upstream: { status: 409 } } });
    expect((await t.data(READ_MEMBER, { org, user: t.world.users.admin.id })).member.role).toBe('ADMIN');
  });

  it('a non-admin is FORBIDDEN, an outsider NOT_FOUND', async () => {
    const input = { organizationId: org, userId: t.world.users.read.id, role: 'EDIT' };
    const forbidden = await t.gql(UPDATE, { input }, t.world.users.edit.token);
    expect(forbidden.errors?.[0]).toMatchObject({ path: ['updateMember'], extensions: { code: 'FORBIDDEN' } });
    const outsider = await t.gql(UPDATE, { input }, t.world.users.outsider.token);
    expect(outsider.errors?.[0]).toMatchObject({ path: ['updateMember'], extensions: { code: 'NOT_FOUND' } });
    expect((await t.data(READ_MEMBER, { org, user: t.world.users.read.id })).member.role).toBe('READ');
  });

  it('pingOrganization returns visitor claims and makes the caller the most recently seen member', async () => {
    const res = await t.data(
      `mutation($org: String!) { pingOrganization(input: { organizationId: $org }) {
        platformVisitorClaims
        organization { members(sort: LAST_SEEN_AT, order: DESC, first: 1) { nodes { restId lastSeenAt } } }
      } }`,
      { org },
      t.world.users.read.token,
    );
    const { platformVisitorClaims, organization } = res.pingOrganization;
    expect(platformVisitorClaims.split('.')).toHaveLength(3);
    const claims = JSON.parse(Buffer.from(platformVisitorClaims.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: t.world.users.read.id, organization: org, role: 'read' });
    expect(organization.members.nodes[0].restId).toBe(t.world.users.read.id);
    const rest = await t.api.get(`/orgs/${org}/members/${t.world.users.read.id}`);
    expect((await t.data(READ_MEMBER, { org, user: t.world.users.read.id })).member.lastSeenAt).toBe(rest.body.lastSeenAt);
  });

  it('removeMember returns the member global id and the organization without it', async () => {
    const user = t.world.users.disabled.id;
    const before = await t.data(`query($org: String!, $user: String!) { member(organizationId: $org, userId: $user) { id } }`, {
      org,
      user,
    });
    const res = await t.data(
      `mutation($org: String!, $user: String!) { removeMember(input: { organizationId: $org, userId: $user }) {
        deletedId organization { members(first: 50) { nodes { restId } } } } }`,
      { org, user },
    );
    expect(res.removeMember.deletedId).toBe(before.member.id);
    expect(res.removeMember.organization.members.nodes.map((n: any) => n.restId)).not.toContain(user);
    const gone = await t.gql(`query($id: ID!) { node(id: $id) { id } }`, { id: before.member.id });
    expect(gone.errors?.[0]).toMatchObject({ path: ['node'], extensions: { code: 'NOT_FOUND' } });
    expect((await t.api.get(`/orgs/${org}/members/${user}`)).status).toBe(404);
  });

  it('removing the last admin is CONFLICT', async () => {
    const res = await t.gql(
      `mutation($org: String!, $user: String!) { removeMember(input: { organizationId: $org, userId: $user }) { deletedId } }`,
      {
        org,
        user: t.world.users.admin.id,
      },
    );
    expect(res.errors?.[0]).toMatchObject({ path: ['removeMember'], extensions: { code: 'CONFLICT' } });
  });
});
