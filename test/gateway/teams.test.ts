import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { callList, walkConnection } from '../helpers/walk.js';

let t: TestStack;
let org: string;
const teamIds: string[] = [];
beforeAll(async () => {
  t = await startStack();
  org = t.world.orgId;
  for (const title of ['Alpha', 'Beta', 'Gamma', 'Delta', 'Alphabet'])
    teamIds.push((await t.api.put(`/orgs/${org}/teams`, { title, members: [t.world.users.read.id] })).body.id);
  // A team owned by the editor (not an organization admin).
  teamIds.push((await t.api.as(t.world.users.edit.token).put(`/orgs/${org}/teams`, { title: 'Edit crew' })).body.id);
});
afterAll(() => t.stop());

const TEAM_FIELDS = 'restId title membersCount spacesCount createdAt permissions { admin view }';
const fromRest = (team: any) => ({
  restId: team.id,
  title: team.title,
  membersCount: team.members,
  spacesCount: team.spaces,
  createdAt: team.createdAt,
  permissions: team.permissions,
});

const TEAMS = `query($org: String!, $first: Int, $after: String, $owner: String, $title: String) {
  organization(organizationId: $org) {
    teams(first: $first, after: $after, owner: $owner, title: $title) {
      nodes { ${TEAM_FIELDS} }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

const walkTeams = (filters: Record<string, unknown> = {}, token?: string) =>
  walkConnection(t, TEAMS, { org, first: 2, ...filters }, (d) => d.organization.teams, token);

describe('Organization.teams', () => {
  it('walks to the end equal to REST, one list call per page', async () => {
    const rest = await t.api.all(`/orgs/${org}/teams`);
    const walk = await walkTeams();
    expect(walk.nodes).toEqual(rest.items.map(fromRest));
    expect(walk.nodes.map((n: any) => n.restId)).toEqual(teamIds);
    expect(walk.pageCalls).toHaveLength(3);
    for (const calls of walk.pageCalls) expect(calls.sort()).toEqual([`GET /orgs/${org}/teams`]);
  });

  it('filters by title and by owner like REST', async () => {
    const cases = [
      { title: 'alpha' },
      { owner: t.world.users.admin.id },
      { owner: t.world.users.edit.id },
      { owner: t.world.users.read.id },
      { owner: t.world.users.edit.id, title: 'crew' },
    ];
    for (const filters of cases) {
      const rest = await t.api.all(`/orgs/${org}/teams`, filters);
      const walk = await walkTeams(filters);
      expect(walk.nodes.map((n: any) => n.restId)).toEqual(rest.items.map((i: any) => i.id));
    }
    expect((await walkTeams({ title: 'alpha' })).nodes.map((n: any) => n.title)).toEqual(['Alpha', 'Alphabet']);
    expect((await walkTeams({ owner: t.world.users.edit.id })).nodes.map((n: any) => n.title)).toEqual(['Edit crew']);
  });

  it('permissions are those of the caller', async () => {
    const walk = await walkTeams({ title: 'crew' }, t.world.users.edit.token);
    expect(walk.nodes[0].permissions).toEqual({ admin: true, view: true });
    const read = await walkTeams({ title: 'crew' }, t.world.users.read.token);
    expect(read.nodes[0].permissions).toEqual({ admin: false, view: true });
  });

  it('node(id) round-trips a team; a listed team costs no call when walked to its organization', async () => {
    const data = await t.data(`query($org: String!, $team: String!) { team(organizationId: $org, teamId: $team) { id ${TEAM_FIELDS} } }`, {
      org,
      team: teamIds[1],
    });
    expect(data.team).toEqual({ id: data.team.id, ...fromRest((await t.api.get(`/orgs/${org}/teams/${teamIds[1]}`)).body) });
    t.resetCalls();
    const again = await t.data(`query($id: ID!) { node(id: $id) { id ... on Team { ${TEAM_FIELDS} } } }`, { id: data.team.id });
    expect(again.node).toEqual(data.team);
    expect(callList(t)).toEqual([`GET /orgs/${org}/teams/${teamIds[1]}`]);
  });

  it('an outsider gets NOT_FOUND; the rest of the query resolves', async () => {
    const res = await t.gql(
      `query($org: String!, $team: String!) { viewer { restId } team(organizationId: $org, teamId: $team) { title } }`,
      { org, team: teamIds[0] },
      t.world.users.outsider.token,
    );
    expect(res.data).toEqual({ viewer: { restId: t.world.users.outsider.id }, team: null });
    expect(res.errors?.[0]).toMatchObject({ path: ['team'], extensions: { code: 'NOT_FOUND' } });
  });
});

const CREATE = `mutation($input: CreateTeamInput!) {
  createTeam(input: $input) { clientMutationId team { id restId title membersCount } organization { teams(title: "Fresh") { nodes { restId } } } }
}`;
const UPDATE = `mutation($input: UpdateTeamInput!) { updateTeam(input: $input) { team { restId title } } }`;
const READ_TEAM = `query($org: String!, $team: String!) { team(organizationId: $org, teamId: $team) { title membersCount } }`;

describe('team mutations', () => {
  it('createTeam (REST PUT) returns the team and the organization list holding it; reads back', async () => {
    t.resetCalls();
    const res = await t.data(CREATE, {
      input: { organizationId: org, title: 'Fresh team', members: [t.world.users.comment.id], clientMutationId: 'x' },
    });
    const { team, organization, clientMutationId } = res.createTeam;
    expect(clientMutationId).toBe('x');
    expect(team).toMatchObject({ title: 'Fresh team', membersCount: 2 });
    expect(organization.teams.nodes).toEqual([{ restId: team.restId }]);
    expect(t.calls.filter((c) => c.method === 'PUT').map((c) => c.path)).toEqual([`/orgs/${org}/teams`]);
    expect((await t.data(READ_TEAM, { org, team: team.restId })).team).toEqual({ title: 'Fresh team', membersCount: 2 });
    const member = await t.data(
      `query($org: String!, $user: String!) { member(organizationId: $org, userId: $user) { teams { nodes { restId } } } }`,
      { org, user: t.world.users.comment.id },
    );
    expect(member.member.teams.nodes).toEqual([{ restId: team.restId }]);
  });

  it('a member count read earlier in the operation is fresh after createTeam', async () => {
    const user = t.world.users.review.id;
    const res = await t.data(
      `mutation($org: String!, $user: String!) {
        createTeam(input: { organizationId: $org, title: "Reviewers", members: [$user] }) {
          organization { members(role: REVIEW) { nodes { restId teamsCount } } }
        }
      }`,
      { org, user },
    );
    expect(res.createTeam.organization.members.nodes).toEqual([{ restId: user, teamsCount: 1 }]);
  });

  it('a title over 64 characters or an empty one is BAD_USER_INPUT with no REST call; 64 is accepted', async () => {
    for (const title of ['x'.repeat(65), '']) {
      t.resetCalls();
      const res = await t.gql(CREATE, { input: { organizationId: org, title } });
      expect(res.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.title' });
      expect(t.calls).toHaveLength(0);
      t.resetCalls();
      const update = await t.gql(UPDATE, { input: { organizationId: org, teamId: teamIds[0], title } });
      expect(update.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.title' });
      expect(t.calls).toHaveLength(0);
    }
    const ok = await t.data(UPDATE, { input: { organizationId: org, teamId: teamIds[0], title: 'y'.repeat(64) } });
    expect(ok.updateTeam.team.title).toBe('y'.repeat(64));
  });

  it('a non-member in members is BAD_USER_INPUT from REST', async () => {
    const res = await t.gql(CREATE, { input: { organizationId: org, title: 'Bad', members: [t.world.users.outsider.id] } });
    expect(res.errors?.[0]).toMatchObject({ path: ['createTeam'], extensions: { code: 'BAD_USER_INPUT', upstream: { status: 400 } } });
  });

  it('updateTeam renames and reads back; a plain member is FORBIDDEN, an outsider NOT_FOUND', async () => {
    const res = await t.data(UPDATE, { input: { organizationId: org, teamId: teamIds[2], title: 'Gamma ray' } });
    expect(res.updateTeam.team).toEqual({ restId: teamIds[2], title: 'Gamma ray' });
    expect((await t.data(READ_TEAM, { org, team: teamIds[2] })).team.title).toBe('Gamma ray');
    const input = { organizationId: org, teamId: teamIds[2], title: 'Hijacked' };
    const forbidden = await t.gql(UPDATE, { input }, t.world.users.read.token);
    expect(forbidden.errors?.[0]).toMatchObject({ path: ['updateTeam'], extensions: { code: 'FORBIDDEN' } });
    const outsider = await t.gql(UPDATE, { input }, t.world.users.outsider.token);
    expect(outsider.errors?.[0]).toMatchObject({ path: ['updateTeam'], extensions: { code: 'NOT_FOUND' } });
    expect((await t.data(READ_TEAM, { org, team: teamIds[2] })).team.title).toBe('Gamma ray');
  });

  it('the owner of a team may rename it', async () => {
    const res = await t.data(
      UPDATE,
      { input: { organizationId: org, teamId: teamIds[5], title: 'Edit crew 2' } },
      t.world.users.edit.token,
    );
    expect(res.updateTeam.team.title).toBe('Edit crew 2');
  });

  it('deleteTeam returns the team global id and the organization without it', async () => {
    const { team } = await t.data(`query($org: String!, $team: String!) { team(organizationId: $org, teamId: $team) { id } }`, {
      org,
      team: teamIds[3],
    });
    const res = await t.data(
      `mutation($org: String!, $team: String!) { deleteTeam(input: { organizationId: $org, teamId: $team }) {
        deletedId organization { teams(first: 50) { nodes { restId } } } } }`,
      { org, team: teamIds[3] },
    );
    expect(res.deleteTeam.deletedId).toBe(team.id);
    expect(res.deleteTeam.organization.teams.nodes.map((n: any) => n.restId)).not.toContain(teamIds[3]);
    const gone = await t.gql(READ_TEAM, { org, team: teamIds[3] });
    expect(gone.errors?.[0]).toMatchObject({ path: ['team'], extensions: { code: 'NOT_FOUND' } });
  });
});
