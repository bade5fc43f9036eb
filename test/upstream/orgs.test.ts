import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
beforeAll(async () => {
  t = await startUpstream();
});
afterAll(() => t.stop());

describe('users', () => {
  it('GET /user answers the caller', async () => {
    const res = await t.api.get('/user');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'user', id: t.world.users.admin.id, email: 'admin@acme.test' });
  });

  it('401 without a token or with an unknown one', async () => {
    expect((await t.api.as(undefined).get('/user')).status).toBe(401);
    const res = await t.api.as('nope').get('/user');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 401, message: expect.any(String) } });
  });

  it('GET /users/{userId}: members of a shared organization only', async () => {
    const { users } = t.world;
    expect((await t.api.get(`/users/${users.read.id}`)).body.displayName).toBe('Ada read');
    expect((await t.api.as(users.read.token).get(`/users/${users.outsider.id}`)).status).toBe(404);
    expect((await t.api.get('/users/unknown')).status).toBe(404);
  });
});

describe('organizations', () => {
  it('GET /orgs lists the caller’s organizations', async () => {
    const res = await t.api.get('/orgs');
    expect(res.status).toBe(200);
    expect(res.body.items.map((o: any) => o.title)).toEqual(['Acme', 'Globex']);
    expect(res.body.count).toBe(2);
    expect(res.body.next).toBeUndefined();
    const reader = await t.api.as(t.world.users.read.token).get('/orgs');
    expect(reader.body.items.map((o: any) => o.title)).toEqual(['Acme']);
  });

  it('pages through with limit and an opaque page token', async () => {
    const first = await t.api.get('/orgs', { limit: 1 });
    expect(first.body.items).toHaveLength(1);
    expect(first.body.next.page).toEqual(expect.any(String));
    const second = await t.api.get('/orgs', { limit: 1, page: first.body.next.page });
    expect(second.body.items[0].title).toBe('Globex');
    expect(second.body.next).toBeUndefined();
  });

  it('rejects limit outside 1..1000 and a forged page token', async () => {
    for (const limit of [0, 1001, 'x']) {
      const res = await t.api.get('/orgs', { limit });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/^limit:/);
    }
    expect((await t.api.get('/orgs', { limit: 1000 })).status).toBe(200);
    expect((await t.api.get('/orgs', { page: 'garbage' })).status).toBe(400);
  });

  it('GET /orgs/{organizationId} computes permissions from the role', async () => {
    const admin = await t.api.get(`/orgs/${t.world.orgId}`);
    expect(admin.body.permissions).toEqual({ admin: true, createContent: true });
    const editor = await t.api.as(t.world.users.edit.token).get(`/orgs/${t.world.orgId}`);
    expect(editor.body.permissions).toEqual({ admin: false, createContent: false });
    const outsider = await t.api.as(t.world.users.outsider.token).get(`/orgs/${t.world.orgId}`);
    expect(outsider.status).toBe(404);
    const disabled = await t.api.as(t.world.users.disabled.token).get(`/orgs/${t.world.orgId}`);
    expect(disabled.status).toBe(404);
  });

  it('unknown routes are 404 and wrong methods 405, as JSON errors', async () => {
    expect((await t.api.get('/nothing')).body).toEqual({ error: { code: 404, message: expect.any(String) } });
    expect((await t.api.put('/orgs')).status).toBe(405);
  });
});
