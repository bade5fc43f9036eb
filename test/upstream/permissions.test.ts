import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createUser } from '../../src/upstream/bootstrap.js';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
beforeAll(async () => {
  t = await startUpstream();
});
afterAll(() => t.stop());

const { as } = fixtures(() => t);

/** Both bases behave the same: every test runs against a fresh space and a fresh collection. */
const targets = [
  { type: 'space', create: 'spaces', base: (id: string) => `/spaces/${id}` },
  { type: 'collection', create: 'collections', base: (id: string) => `/collections/${id}` },
] as const;

describe.each(targets)('$type permissions', (target) => {
  async function fresh(title = 'Target') {
    const res = await t.api.post(`/orgs/${t.world.orgId}/${target.create}`, { title });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, path: `${target.base(res.body.id)}/permissions`, self: target.base(res.body.id) };
  }

  it('POST grants a role to users; GET users lists explicit grants; PATCH and DELETE change them', async () => {
    const { path, self } = await fresh();
    const { guest, read } = t.world.users;
    expect((await as('guest').get(self)).status).toBe(404);
    const res = await t.api.post(path, { role: 'comment', users: [guest.id, read.id] });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    const listed = await t.api.get(`${path}/users`);
    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(2);
    expect(listed.body.items).toEqual(
      expect.arrayContaining([
        { permission: 'comment', user: expect.objectContaining({ object: 'user', id: guest.id }) },
        { permission: 'comment', user: expect.objectContaining({ id: read.id }) },
      ]),
    );
    expect((await as('guest').get(self)).status).toBe(200);

    expect((await t.api.patch(`${path}/users/${guest.id}`, { role: 'read' })).status).toBe(204);
    const patched = (await t.api.get(`${path}/users`)).body.items.find((i: any) => i.user.id === guest.id);
    expect(patched.permission).toBe('read');

    expect((await t.api.patch(`${path}/users/${guest.id}`, { role: null })).status).toBe(204);
    expect((await as('guest').get(self)).status).toBe(404);
    expect((await t.api.delete(`${path}/users/${read.id}`)).status).toBe(204);
    expect((await t.api.get(`${path}/users`)).body).toEqual({ items: [], count: 0 });
    // Removing what is not there is fine.
    expect((await t.api.delete(`${path}/users/${read.id}`)).status).toBe(204);
  });

  it('users/{userId} of someone who is not a member: 404 for PATCH and DELETE alike', async () => {
    const { path } = await fresh();
    for (const userId of ['nobody', t.world.users.outsider.id]) {
      expect((await t.api.delete(`${path}/users/${userId}`)).body.error).toEqual({ code: 404, message: 'User not found' });
      expect((await t.api.patch(`${path}/users/${userId}`, { role: 'read' })).status).toBe(404);
    }
  });

  it('the grants of a disabled member open nothing; they can still be removed, not given', async () => {
    const { path, self } = await fresh();
    const user = createUser(t.upstream.db, t.clock, { displayName: 'Later disabled', email: `disabled-${target.type}@acme.test` });
    addMember(t.upstream.db, t.clock, t.world.orgId, user.id, null);
    expect((await t.api.post(path, { role: 'admin', users: [user.id] })).status).toBe(204);
    expect((await t.api.as(user.token).get(self)).body.permissions.admin).toBe(true);
    // No REST operation disables a member: the hosted service does it (e.g. seat limits, SSO).
    t.upstream.db.prepare('UPDATE members SET disabled = 1 WHERE organization_id = ? AND user_id = ?').run(t.world.orgId, user.id);
    expect((await t.api.as(user.token).get(self)).status).toBe(404);
    expect((await t.api.as(user.token).patch(self, { title: 'Still mine?' })).status).toBe(404);
    const aggregate = (await t.api.all(`${path}/aggregate`)).items.map((x) => x.user.id);
    expect(aggregate).not.toContain(user.id);
    expect((await t.api.patch(`${path}/users/${user.id}`, { role: 'edit' })).status).toBe(404);
    expect((await t.api.delete(`${path}/users/${user.id}`)).status).toBe(204);
    expect((await t.api.get(`${path}/users`)).body.count).toBe(0);
  });

  it('an explicit admin grant lets a guest administer the target; removing it takes that away', async () => {
    const { path, self } = await fresh();
    const guest = t.world.users.guest;
    await t.api.post(path, { role: 'admin', users: [guest.id] });
    const got = await as('guest').get(self);
    expect(got.body.permissions.admin).toBe(true);
    expect((await as('guest').patch(self, { title: 'Renamed by guest' })).status).toBe(200);
    await t.api.delete(`${path}/users/${guest.id}`);
    expect((await as('guest').patch(self, { title: 'Again' })).status).toBe(404);
  });

  it('team grants give access to team members', async () => {
    const { path, self } = await fresh();
    const team = await t.api.put(`/orgs/${t.world.orgId}/teams`, { title: `Team ${target.type}`, members: [t.world.users.guest.id] });
    expect(team.status).toBe(201);
    expect((await t.api.post(path, { role: 'read', teams: [team.body.id] })).status).toBe(204);
    expect((await as('guest').get(self)).status).toBe(200);
    // Team grants are not user grants.
    expect((await t.api.get(`${path}/users`)).body.items).toEqual([]);
    const aggregate = await t.api.all(`${path}/aggregate`);
    expect(aggregate.items.find((i: any) => i.user.id === t.world.users.guest.id)?.permission).toBe('read');
  });

  it('validates the invite: role required, teams or users, known members and teams of the organization', async () => {
    const { path } = await fresh();
    const { guest, outsider } = t.world.users;
    const cases: Array<[unknown, number, string | RegExp]> = [
      [{ users: [guest.id] }, 400, 'role: is required'],
      [{ role: 'owner', users: [guest.id] }, 400, 'role: must be one of read, comment, review, edit, create, admin'],
      [{ role: 'read' }, 400, 'users: users or teams is required'],
      [{ role: 'read', users: [] }, 400, 'users: must have at least 1 item'],
      [{ role: 'read', users: [guest.id, outsider.id] }, 404, /^users\[1\]: user .* is not a member of this organization/],
      [{ role: 'read', users: [t.world.users.disabled.id] }, 404, /^users\[0\]:/],
      [{ role: 'read', teams: ['nope'] }, 404, 'teams[0]: no team nope in this organization'],
      [{ role: 'read', emails: ['a@b.c'] }, 400, 'emails: is not a known field'],
    ];
    for (const [body, status, message] of cases) {
      const res = await t.api.post(path, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.message).toMatch(message);
    }
    const globexTeam = await t.api.put(`/orgs/${t.world.otherOrgId}/teams`, { title: 'Globex team' });
    const foreign = await t.api.post(path, { role: 'read', teams: [globexTeam.body.id] });
    expect(foreign.status).toBe(404);
    // Nothing was granted by the failed calls.
    expect((await t.api.get(`${path}/users`)).body.count).toBe(0);
    const patch = await t.api.patch(`${path}/users/${outsider.id}`, { role: 'read' });
    expect(patch.status).toBe(404);
    expect((await t.api.patch(`${path}/users/${guest.id}`, { role: 'boss' })).status).toBe(400);
  });

  it('writes need admin on the target, reads need access; outsiders get 404', async () => {
    const { path } = await fresh();
    const body = { role: 'read', users: [t.world.users.guest.id] };
    expect((await as('create').post(path, body)).status).toBe(403);
    expect((await as('create').patch(`${path}/users/${t.world.users.guest.id}`, { role: 'read' })).status).toBe(403);
    expect((await as('create').delete(`${path}/users/${t.world.users.guest.id}`)).status).toBe(403);
    expect((await as('read').get(`${path}/users`)).status).toBe(200);
    expect((await as('read').get(`${path}/aggregate`)).status).toBe(200);
    expect((await as('outsider').get(`${path}/users`)).status).toBe(404);
    expect((await as('outsider').post(path, body)).status).toBe(404);
    expect((await as('guest').get(`${path}/aggregate`)).status).toBe(404);
    expect((await t.api.get(`${target.base('nope')}/permissions/users`)).status).toBe(404);
  });

  it('aggregate: every member with access, strongest permission each, filtered by role', async () => {
    const { path } = await fresh();
    const { users } = t.world;
    await t.api.post(path, { role: 'edit', users: [users.read.id, users.guest.id] });
    const all = await t.api.all(`${path}/aggregate`);
    const byUser = Object.fromEntries(all.items.map((i: any) => [i.user.id, i.permission]));
    expect(byUser).toEqual({
      [users.admin.id]: 'admin',
      [users.create.id]: 'read',
      [users.edit.id]: 'read',
      [users.review.id]: 'read',
      [users.comment.id]: 'read',
      [users.read.id]: 'edit',
      [users.guest.id]: 'edit',
    });
    const editors = await t.api.all(`${path}/aggregate`, { role: 'edit' });
    expect(editors.items.map((i: any) => i.user.id).sort()).toEqual([users.read.id, users.guest.id].sort());
    expect((await t.api.get(`${path}/aggregate`, { role: 'owner' })).status).toBe(400);
    const walked = await t.api.all(`${path}/aggregate`, { limit: 2 });
    expect(walked.items.map((i: any) => i.user.id)).toEqual(all.items.map((i: any) => i.user.id));
    expect(walked.pages).toBe(4);
  });

  it('GET users pages to the end with no duplicate and no gap', async () => {
    const { path } = await fresh();
    const { users } = t.world;
    const ids = [users.create.id, users.edit.id, users.review.id, users.comment.id, users.read.id, users.guest.id];
    for (const id of ids) await t.api.post(path, { role: 'review', users: [id] });
    const walked = await t.api.all(`${path}/users`, { limit: 4 });
    expect(walked.items.map((i: any) => i.user.id)).toEqual(ids);
    expect(walked.pages).toBe(2);
  });
});

describe('grants on a collection apply to what it holds', () => {
  it('a guest with edit on a collection edits its spaces; losing the grant removes access', async () => {
    const collection = (await t.api.post(`/orgs/${t.world.orgId}/collections`, { title: 'Team docs' })).body;
    const space = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Team space', parent: collection.id })).body;
    const guest = t.world.users.guest;
    expect((await as('guest').patch(`/spaces/${space.id}`, { title: 'x' })).status).toBe(404);
    await t.api.post(`/collections/${collection.id}/permissions`, { role: 'edit', users: [guest.id] });
    const edited = await as('guest').patch(`/spaces/${space.id}`, { title: 'Edited by guest' });
    expect(edited.status).toBe(200);
    expect(edited.body.permissions).toMatchObject({ edit: true, admin: false });
    const aggregate = await t.api.all(`/spaces/${space.id}/permissions/aggregate`, { role: 'edit' });
    expect(aggregate.items.map((i: any) => i.user.id)).toEqual([guest.id]);
    await t.api.patch(`/collections/${collection.id}/permissions/users/${guest.id}`, { role: null });
    expect((await as('guest').get(`/spaces/${space.id}`)).status).toBe(404);
  });
});
