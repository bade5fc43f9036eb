import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';
import type { WorldUser } from '../helpers/world.js';

let t: TestUpstream;
let members: string;
const { as } = fixtures(() => t);
const ids = (items: any[]) => items.map((m) => m.id);

beforeAll(async () => {
  t = await startUpstream();
  members = `/orgs/${t.world.orgId}/members`;
});
afterAll(() => t.stop());

describe('GET /orgs/{organizationId}/members', () => {
  it('lists every member, newest first by default, with the seed’s shape', async () => {
    const { users } = t.world;
    const res = await as('guest').get(members);
    expect(res.status).toBe(200);
    const order: WorldUser[] = ['disabled', 'guest', 'read', 'comment', 'review', 'edit', 'create', 'admin'];
    expect(ids(res.body.items)).toEqual(order.map((w) => users[w].id));
    expect(res.body.count).toBe(8);
    const editor = res.body.items.find((m: any) => m.id === users.edit.id);
    expect(editor).toEqual({
      object: 'member',
      id: users.edit.id,
      role: 'edit',
      user: expect.objectContaining({ object: 'user', id: users.edit.id, email: 'edit@acme.test', displayName: 'Ada edit' }),
      disabled: false,
      joinedAt: expect.any(String),
      lastSeenAt: expect.any(String),
      sso: false,
      spaces: 0,
      teams: 0,
    });
    const guest = res.body.items.find((m: any) => m.id === users.guest.id);
    expect(guest.role).toBeNull();
    expect(guest.lastSeenAt).toBeUndefined();
    expect(res.body.items.find((m: any) => m.id === users.disabled.id).disabled).toBe(true);
  });

  it('order=asc lists oldest first; a bad order is 400', async () => {
    const asc = await t.api.get(members, { order: 'asc' });
    expect(asc.body.items[0].id).toBe(t.world.users.admin.id);
    const joined = asc.body.items.map((m: any) => m.joinedAt);
    expect(joined).toEqual([...joined].sort());
    const bad = await t.api.get(members, { order: 'up' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('order: must be one of asc, desc');
  });

  it('filters by role, and by guest for members without one', async () => {
    const { users } = t.world;
    expect(ids((await t.api.get(members, { role: 'review' })).body.items)).toEqual([users.review.id]);
    expect(ids((await t.api.get(members, { role: 'edit' })).body.items)).toEqual([users.disabled.id, users.edit.id]);
    expect(ids((await t.api.get(members, { role: 'guest' })).body.items)).toEqual([users.guest.id]);
    expect((await t.api.get(members, { role: 'owner' })).status).toBe(400);
  });

  it('searches display names and emails, ignoring case', async () => {
    const { users } = t.world;
    expect((await t.api.get(members, { search: 'ADA' })).body.count).toBe(6);
    expect(ids((await t.api.get(members, { search: 'gus' })).body.items)).toEqual([users.guest.id]);
    expect(ids((await t.api.get(members, { search: 'REVIEW@ACME' })).body.items)).toEqual([users.review.id]);
    expect((await t.api.get(members, { search: 'otto' })).body.count).toBe(0);
    const both = await t.api.get(members, { search: 'ada', role: 'read' });
    expect(ids(both.body.items)).toEqual([users.read.id]);
  });

  it('sort=lastSeenAt lists active members only, by last seen time', async () => {
    const { users } = t.world;
    const before = await t.api.get(members, { sort: 'lastSeenAt' });
    expect(before.body.count).toBe(6);
    expect(ids(before.body.items)).not.toContain(users.guest.id);
    await as('guest').post(`/orgs/${t.world.orgId}/ping`);
    const after = await t.api.get(members, { sort: 'lastSeenAt' });
    expect(after.body.items[0].id).toBe(users.guest.id);
    expect(after.body.count).toBe(7);
    const asc = await t.api.get(members, { sort: 'lastSeenAt', order: 'asc' });
    expect(asc.body.items.at(-1).id).toBe(users.guest.id);
    expect((await t.api.get(members, { sort: 'name' })).status).toBe(400);
  });

  it('walks every page with no duplicate and no gap', async () => {
    const all = await t.api.all(members);
    const paged = await t.api.all(members, { limit: 3 });
    expect(paged.pages).toBe(3);
    expect(ids(paged.items)).toEqual(ids(all.items));
    const seen = await t.api.all(members, { limit: 2, sort: 'lastSeenAt', order: 'asc' });
    expect(seen.pages).toBe(4);
    expect(new Set(ids(seen.items)).size).toBe(7);
  });

  it('is for members only', async () => {
    expect((await as('outsider').get(members)).status).toBe(404);
    expect((await as('disabled').get(members)).status).toBe(404);
    expect((await t.api.as(undefined).get(members)).status).toBe(401);
  });
});

describe('GET /orgs/{organizationId}/members/{userId}', () => {
  it('answers one member; 404 for non-members and to outsiders', async () => {
    const { users } = t.world;
    const res = await as('read').get(`${members}/${users.create.id}`);
    expect(res.body).toMatchObject({ object: 'member', id: users.create.id, role: 'create' });
    expect((await t.api.get(`${members}/${users.outsider.id}`)).status).toBe(404);
    expect((await as('outsider').get(`${members}/${users.create.id}`)).status).toBe(404);
  });
});

describe('PATCH /orgs/{organizationId}/members/{userId}', () => {
  it('changes the role (admin only), null makes a guest', async () => {
    const { users } = t.world;
    const target = `${members}/${users.comment.id}`;
    expect((await as('edit').patch(target, { role: 'read' })).status).toBe(403);
    expect((await as('outsider').patch(target, { role: 'read' })).status).toBe(404);
    const res = await t.api.patch(target, { role: 'review' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: users.comment.id, role: 'review' });
    expect((await t.api.patch(target, { role: null })).body.role).toBeNull();
    expect((await t.api.get(target)).body.role).toBeNull();
    expect((await t.api.patch(target, {})).body.role).toBeNull();
    expect((await t.api.patch(target, { role: 'comment' })).body.role).toBe('comment');
  });

  it('rejects unknown roles and fields, and unknown members', async () => {
    const target = `${members}/${t.world.users.comment.id}`;
    const bad = await t.api.patch(target, { role: 'owner' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('role: must be one of read, comment, review, edit, create, admin');
    expect((await t.api.patch(target, { title: 'x' })).status).toBe(400);
    expect((await t.api.patch(`${members}/nobody`, { role: 'read' })).status).toBe(404);
  });
});

describe('POST /orgs/{organizationId}/members/{userId}/sso', () => {
  it('makes the member an SSO member (admin only)', async () => {
    const { users } = t.world;
    const path = `${members}/${users.review.id}/sso`;
    expect((await as('edit').post(path)).status).toBe(403);
    const res = await t.api.post(path);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: users.review.id, sso: true });
    expect((await t.api.get(`${members}/${users.review.id}`)).body.sso).toBe(true);
    expect((await t.api.post(`${members}/nobody/sso`)).status).toBe(404);
  });
});

describe('POST /orgs/{organizationId}/ping', () => {
  it('updates the caller’s lastSeenAt and answers signed visitor claims', async () => {
    const { users } = t.world;
    const res = await as('read').post(`/orgs/${t.world.orgId}/ping`);
    expect(res.status).toBe(200);
    const parts = res.body.platformVisitorClaims.split('.');
    expect(parts).toHaveLength(3);
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: users.read.id, organization: t.world.orgId, role: 'read' });
    const member = (await t.api.get(`${members}/${users.read.id}`)).body;
    const seen = (await t.api.get(members, { sort: 'lastSeenAt' })).body.items[0];
    expect(seen.id).toBe(users.read.id);
    expect(Date.parse(member.lastSeenAt)).toBeGreaterThan(Date.parse(member.joinedAt));
  });

  it('is for members only', async () => {
    expect((await as('outsider').post(`/orgs/${t.world.orgId}/ping`)).status).toBe(404);
    expect((await t.api.post('/orgs/unknown/ping')).status).toBe(404);
  });
});

describe('GET /orgs/{organizationId}/members/{userId}/teams', () => {
  it('lists the member’s teams with their team role, filtered by title', async () => {
    const { users } = t.world;
    const teams = `/orgs/${t.world.orgId}/teams`;
    for (const title of ['Alpha', 'Beta', 'alphabet', 'Gamma', 'Delta']) await t.api.put(teams, { title, members: [users.create.id] });
    await as('create').put(teams, { title: 'Own Alpha' });
    await t.api.put(teams, { title: 'Alpha without create' });
    const path = `${members}/${users.create.id}/teams`;
    const all = await as('guest').all(path, { limit: 2 });
    expect(all.pages).toBe(3);
    expect(all.items.map((x) => x.team.title)).toEqual(['Alpha', 'Beta', 'alphabet', 'Gamma', 'Delta', 'Own Alpha']);
    expect(all.items.map((x) => x.member.role)).toEqual(['member', 'member', 'member', 'member', 'member', 'owner']);
    const alpha = await t.api.get(path, { title: 'ALPHA' });
    expect(alpha.body.items.map((x: any) => x.team.title)).toEqual(['Alpha', 'alphabet', 'Own Alpha']);
    expect((await t.api.get(`${members}/${users.create.id}`)).body.teams).toBe(6);
    expect((await as('outsider').get(path)).status).toBe(404);
    expect((await t.api.get(`${members}/nobody/teams`)).status).toBe(404);
  });
});

describe('GET /orgs/{organizationId}/members/{userId}/spaces', () => {
  it('lists the spaces the member has a role on, with that role, among those the caller sees', async () => {
    const { users, orgId } = t.world;
    const created: string[] = [];
    for (const title of ['One', 'Two', 'Three']) {
      const res = await t.api.post(`/orgs/${orgId}/spaces`, { title });
      expect(res.status).toBe(201);
      created.push(res.body.id);
    }
    const granted = await t.api.post(`/spaces/${created[1]}/permissions`, { role: 'comment', users: [users.guest.id] });
    expect(granted.status).toBe(204);

    const guestSpaces = await t.api.get(`${members}/${users.guest.id}/spaces`);
    expect(guestSpaces.status).toBe(200);
    expect(guestSpaces.body.items).toEqual([
      { permission: 'comment', space: expect.objectContaining({ object: 'space', id: created[1], title: 'Two' }) },
    ]);
    expect((await t.api.get(`${members}/${users.guest.id}`)).body.spaces).toBe(1);

    const editor = `${members}/${users.edit.id}/spaces`;
    const desc = await as('edit').all(editor, { limit: 2 });
    expect(desc.pages).toBe(2);
    expect(desc.items.map((x) => x.space.id)).toEqual([...created].reverse());
    expect(desc.items.map((x) => x.permission)).toEqual(['read', 'read', 'read']);
    const asc = await t.api.all(editor, { order: 'asc', limit: 1 });
    expect(asc.pages).toBe(3);
    expect(asc.items.map((x) => x.space.id)).toEqual(created);
    expect((await t.api.get(editor, { order: 'sideways' })).status).toBe(400);
    expect((await t.api.get(`${members}/${users.edit.id}`)).body.spaces).toBe(3);

    // The guest sees only the space shared with them, whoever's list it is.
    const seenByGuest = await as('guest').get(editor);
    expect(seenByGuest.body.items.map((x: any) => x.space.id)).toEqual([created[1]]);

    expect((await t.api.delete(`/spaces/${created[0]}`)).status).toBe(204);
    expect((await t.api.all(editor)).items.map((x) => x.space.id)).toEqual([created[2], created[1]]);
    expect((await t.api.get(`${members}/${users.edit.id}`)).body.spaces).toBe(2);
    expect((await as('outsider').get(editor)).status).toBe(404);
    expect((await t.api.get(`${members}/nobody/spaces`)).status).toBe(404);
  });
});

describe('DELETE /orgs/{organizationId}/members/{userId}', () => {
  it('admins remove members; other members cannot (403)', async () => {
    const { users } = t.world;
    expect((await as('edit').delete(`${members}/${users.comment.id}`)).status).toBe(403);
    expect((await as('outsider').delete(`${members}/${users.comment.id}`)).status).toBe(404);
    const res = await t.api.delete(`${members}/${users.comment.id}`);
    expect(res.status).toBe(204);
    expect((await t.api.get(`${members}/${users.comment.id}`)).status).toBe(404);
    expect((await as('comment').get(`/orgs/${t.world.orgId}`)).status).toBe(404);
    expect((await t.api.delete(`${members}/${users.comment.id}`)).status).toBe(404);
  });

  it('a member may leave the organization, and loses its team memberships', async () => {
    const { users } = t.world;
    const team = (await t.api.put(`/orgs/${t.world.orgId}/teams`, { title: 'Leavers', members: [users.read.id] })).body;
    expect((await as('read').delete(`${members}/${users.read.id}`)).status).toBe(204);
    expect((await as('read').get(members)).status).toBe(404);
    expect((await t.api.get(`/orgs/${t.world.orgId}/teams/${team.id}`)).body.members).toBe(1);
  });
});

describe('the last admin', () => {
  let u: TestUpstream;
  beforeAll(async () => {
    u = await startUpstream();
  });
  afterAll(() => u.stop());

  it('cannot be demoted or removed (409) until another admin exists', async () => {
    const { users, orgId } = u.world;
    const path = `/orgs/${orgId}/members`;
    const demote = await u.api.patch(`${path}/${users.admin.id}`, { role: 'edit' });
    expect(demote.status).toBe(409);
    expect(demote.body.error.message).toMatch(/last admin/);
    expect((await u.api.patch(`${path}/${users.admin.id}`, { role: null })).status).toBe(409);
    expect((await u.api.delete(`${path}/${users.admin.id}`)).status).toBe(409);
    expect((await u.api.patch(`${path}/${users.admin.id}`, { role: 'admin' })).status).toBe(200);
    // A disabled admin does not count as a remaining admin.
    await u.api.patch(`${path}/${users.disabled.id}`, { role: 'admin' });
    expect((await u.api.delete(`${path}/${users.admin.id}`)).status).toBe(409);

    await u.api.patch(`${path}/${users.create.id}`, { role: 'admin' });
    expect((await u.api.patch(`${path}/${users.admin.id}`, { role: 'edit' })).body.role).toBe('edit');
    const newAdmin = u.api.as(users.create.token);
    expect((await newAdmin.delete(`${path}/${users.create.id}`)).status).toBe(409);
    expect((await newAdmin.patch(`${path}/${users.disabled.id}`, { role: 'read' })).body.role).toBe('read');
    expect((await newAdmin.delete(`${path}/${users.admin.id}`)).status).toBe(204);
  });
});
