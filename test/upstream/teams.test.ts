import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
let teams: string;
const { as } = fixtures(() => t);

beforeAll(async () => {
  t = await startUpstream();
  teams = `/orgs/${t.world.orgId}/teams`;
});
afterAll(() => t.stop());

describe('PUT /orgs/{organizationId}/teams', () => {
  it('creates a team owned by its creator, with the listed members', async () => {
    const { users } = t.world;
    const res = await as('edit').put(teams, { title: 'Writers', members: [users.read.id, users.guest.id] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'team',
      id: expect.any(String),
      title: 'Writers',
      members: 3,
      spaces: 0,
      createdAt: expect.any(String),
      permissions: { admin: true, view: true },
    });
    const asMember = await as('read').get(`${teams}/${res.body.id}`);
    expect(asMember.body.permissions).toEqual({ admin: false, view: true });
    const owned = await t.api.get(`/orgs/${t.world.orgId}/members/${users.edit.id}/teams`, { title: 'writers' });
    expect(owned.body.items).toEqual([{ team: expect.objectContaining({ id: res.body.id }), member: { role: 'owner' } }]);
  });

  it('counts the creator once when they list themselves', async () => {
    const res = await t.api.put(teams, { title: 'Solo', members: [t.world.users.admin.id] });
    expect(res.body.members).toBe(1);
  });

  it('enforces the title limits (1 to 64, required)', async () => {
    expect((await t.api.put(teams, { title: 'x'.repeat(64) })).status).toBe(201);
    expect((await t.api.put(teams, { title: 'x' })).status).toBe(201);
    for (const [body, message] of [
      [{ title: 'x'.repeat(65) }, 'title: must be at most 64 characters long'],
      [{ title: '' }, 'title: must be at least 1 characters long'],
      [{}, 'title: is required'],
      [{ title: 'T', members: 'x' }, 'members: must be an array, got string'],
      [{ title: 'T', extra: 1 }, 'extra: is not a known field'],
    ] as const) {
      const res = await t.api.put(teams, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
  });

  it('rejects members that are not active members of the organization', async () => {
    const { users } = t.world;
    for (const id of [users.outsider.id, users.disabled.id, 'nobody']) {
      const res = await t.api.put(teams, { title: 'Bad', members: [users.read.id, id] });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('members[1]: is not a member of the organization');
    }
  });

  it('guests cannot create teams (403), outsiders do not see the organization (404)', async () => {
    expect((await as('guest').put(teams, { title: 'G' })).status).toBe(403);
    expect((await as('outsider').put(teams, { title: 'O' })).status).toBe(404);
    expect((await as('disabled').put(teams, { title: 'D' })).status).toBe(404);
    expect((await as('read').put(teams, { title: 'Readers' })).status).toBe(201);
  });
});

describe('GET /orgs/{organizationId}/teams', () => {
  it('filters by title, ignoring case', async () => {
    await t.api.put(teams, { title: 'Design Guild' });
    await t.api.put(teams, { title: 'design ops' });
    const res = await as('guest').get(teams, { title: 'DESIGN' });
    expect(res.status).toBe(200);
    expect(res.body.items.map((x: any) => x.title)).toEqual(['Design Guild', 'design ops']);
    expect((await t.api.get(teams, { title: 'no such team' })).body).toEqual({ items: [], count: 0 });
  });

  it('filters by owner: the teams that member can manage (all for an organization admin)', async () => {
    const { users } = t.world;
    const all = await t.api.all(teams);
    const byAdmin = await t.api.all(teams, { owner: users.admin.id });
    expect(byAdmin.items.map((x: any) => x.id)).toEqual(all.items.map((x: any) => x.id));
    const byEditor = await t.api.all(teams, { owner: users.edit.id });
    expect(byEditor.items.map((x: any) => x.title)).toEqual(['Writers']);
    const byReader = await t.api.all(teams, { owner: users.read.id });
    expect(byReader.items.map((x: any) => x.title)).toEqual(['Readers']);
    expect((await t.api.all(teams, { owner: users.outsider.id })).items).toEqual([]);
  });

  it('walks every page with no duplicate and no gap', async () => {
    const all = await t.api.all(teams);
    const paged = await t.api.all(teams, { limit: 3 });
    expect(paged.pages).toBe(Math.ceil(all.items.length / 3));
    expect(paged.items.map((x: any) => x.id)).toEqual(all.items.map((x: any) => x.id));
    expect(new Set(paged.items.map((x: any) => x.id)).size).toBe(all.items.length);
    const createdAt = all.items.map((x: any) => x.createdAt);
    expect(createdAt).toEqual([...createdAt].sort());
  });

  it('is for members only', async () => {
    expect((await as('outsider').get(teams)).status).toBe(404);
    expect((await t.api.get(teams, { limit: 0 })).status).toBe(400);
  });
});

describe('GET, PATCH, DELETE /orgs/{organizationId}/teams/{teamId}', () => {
  let teamId: string;
  beforeAll(async () => {
    const { users } = t.world;
    teamId = (await as('create').put(teams, { title: 'Platform', members: [users.comment.id] })).body.id;
  });

  it('GET answers the team to members, 404 otherwise', async () => {
    expect((await as('guest').get(`${teams}/${teamId}`)).body).toMatchObject({ id: teamId, title: 'Platform', members: 2 });
    expect((await as('outsider').get(`${teams}/${teamId}`)).status).toBe(404);
    expect((await t.api.get(`${teams}/unknown`)).status).toBe(404);
    expect((await t.api.get(`/orgs/${t.world.otherOrgId}/teams/${teamId}`)).status).toBe(404);
  });

  it('PATCH renames: owner and admins only, title 1 to 64', async () => {
    expect((await as('comment').patch(`${teams}/${teamId}`, { title: 'Mine' })).status).toBe(403);
    expect((await as('edit').patch(`${teams}/${teamId}`, { title: 'Mine' })).status).toBe(403);
    const byOwner = await as('create').patch(`${teams}/${teamId}`, { title: 'y'.repeat(64) });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body.title).toBe('y'.repeat(64));
    const byAdmin = await t.api.patch(`${teams}/${teamId}`, { title: 'Core' });
    expect(byAdmin.body).toMatchObject({ title: 'Core', members: 2 });
    expect((await t.api.get(`${teams}/${teamId}`)).body.title).toBe('Core');
    expect((await t.api.patch(`${teams}/${teamId}`, { title: 'y'.repeat(65) })).status).toBe(400);
    expect((await t.api.patch(`${teams}/${teamId}`, { title: '' })).status).toBe(400);
    expect((await t.api.patch(`${teams}/${teamId}`, {})).body.error.message).toBe('title: is required');
  });

  it('counts the live spaces granted to the team, directly or through a collection', async () => {
    const org = t.world.orgId;
    const direct = (await t.api.post(`/orgs/${org}/spaces`, { title: 'Direct' })).body.id;
    const collection = (await t.api.post(`/orgs/${org}/collections`, { title: 'Shelf' })).body.id;
    await t.api.post(`/orgs/${org}/spaces`, { title: 'On shelf', parent: collection });
    await t.api.post(`/orgs/${org}/spaces`, { title: 'Elsewhere' });
    expect((await t.api.post(`/spaces/${direct}/permissions`, { role: 'edit', teams: [teamId] })).status).toBe(204);
    expect((await t.api.get(`${teams}/${teamId}`)).body.spaces).toBe(1);
    expect((await t.api.post(`/collections/${collection}/permissions`, { role: 'read', teams: [teamId] })).status).toBe(204);
    expect((await t.api.get(`${teams}/${teamId}`)).body.spaces).toBe(2);
    await t.api.delete(`/spaces/${direct}`);
    expect((await t.api.get(`${teams}/${teamId}`)).body.spaces).toBe(1);
  });

  it('DELETE removes the team: owner and admins only', async () => {
    expect((await as('comment').delete(`${teams}/${teamId}`)).status).toBe(403);
    expect((await as('outsider').delete(`${teams}/${teamId}`)).status).toBe(404);
    const res = await as('create').delete(`${teams}/${teamId}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await t.api.get(`${teams}/${teamId}`)).status).toBe(404);
    expect((await t.api.delete(`${teams}/${teamId}`)).status).toBe(404);
    const member = await t.api.get(`/orgs/${t.world.orgId}/members/${t.world.users.comment.id}`);
    expect(member.body.teams).toBe(0);
  });
});
