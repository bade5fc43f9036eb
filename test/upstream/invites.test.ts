import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/upstream/bootstrap.js';
import { invitationFor } from '../../src/upstream/domain/invites.js';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
let org: string;
const { as } = fixtures(() => t);
/** A user who signs up after being invited (users are not created through REST). */
const signUp = (email: string) => createUser(t.upstream.db, t.clock, { displayName: email, email });
/** A user of no organization (the world's outsider gets invited into acme below). */
let strangerToken: string;
const stranger = () => t.api.as(strangerToken);

beforeAll(async () => {
  t = await startUpstream();
  org = `/orgs/${t.world.orgId}`;
  strangerToken = signUp('stranger@example.com').token;
});
afterAll(() => t.stop());

describe('POST /orgs/{organizationId}/invites', () => {
  it('adds existing users at once and invites the other emails', async () => {
    const { users } = t.world;
    const res = await t.api.post(`${org}/invites`, {
      emails: ['OTTO@globex.test', 'new1@example.com', 'new2@example.com', 'New1@Example.com', 'edit@acme.test'],
      role: 'comment',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ users: [users.outsider.id], invited: 2, failedSSOEmails: [] });
    const otto = await t.api.get(`${org}/members/${users.outsider.id}`);
    expect(otto.body).toMatchObject({ role: 'comment', sso: false });
    expect((await t.api.get(`${org}/members/${users.edit.id}`)).body.role).toBe('edit');
    expect(invitationFor(t.upstream.db, t.world.orgId, 'new1@example.com')).toEqual(expect.any(String));
  });

  it('uses the organization’s default role when none is given; null invites guests', async () => {
    const a = signUp('default-role@example.com');
    const b = signUp('guest-role@example.com');
    await t.api.post(`${org}/invites`, { emails: [a.email] });
    await t.api.post(`${org}/invites`, { emails: [b.email], role: null });
    expect((await t.api.get(`${org}/members/${a.id}`)).body.role).toBe('read');
    expect((await t.api.get(`${org}/members/${b.id}`)).body.role).toBeNull();
  });

  it('validates the body', async () => {
    for (const [body, message] of [
      [{}, 'emails: is required'],
      [{ emails: [] }, 'emails: must have at least 1 item'],
      [{ emails: 'a@b.co' }, 'emails: must be an array, got string'],
      [{ emails: ['a@b.co', 'not-an-email'] }, /^emails\[1\]: must match the pattern/],
      [{ emails: ['a@b'] }, /^emails\[0\]: must match the pattern/],
      [{ emails: [3] }, 'emails[0]: must be a string, got number'],
      [{ emails: ['a@b.co'], role: 'owner' }, /^role: must be one of/],
      [{ emails: ['a@b.co'], sso: 'yes' }, 'sso: must be a boolean, got string'],
      [{ emails: Array.from({ length: 1001 }, (_, i) => `many${i}@example.com`) }, 'emails: must have at most 1000 items'],
    ] as const) {
      const res = await t.api.post(`${org}/invites`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(message);
    }
    expect((await t.api.post(`${org}/invites`)).status).toBe(400);
  });

  it('is for organization admins', async () => {
    expect((await as('create').post(`${org}/invites`, { emails: ['x@example.com'] })).status).toBe(403);
    expect((await as('outsider').post(`/orgs/${t.world.otherOrgId}/invites`, { emails: ['x@example.com'] })).status).toBe(200);
    expect((await as('read').post(`/orgs/${t.world.otherOrgId}/invites`, { emails: ['x@example.com'] })).status).toBe(404);
  });
});

describe('SSO invites', () => {
  it('fail for every email while the organization has no SAML provider (they join without SSO)', async () => {
    const user = signUp('sso-early@example.com');
    const res = await t.api.post(`${org}/invites`, { emails: [user.email, 'sso-later@example.com'], sso: true });
    expect(res.body).toEqual({ users: [user.id], invited: 1, failedSSOEmails: [user.email, 'sso-later@example.com'] });
    expect((await t.api.get(`${org}/members/${user.id}`)).body.sso).toBe(false);
  });

  it('succeed once a SAML provider exists, except for users of another organization', async () => {
    await t.api.post(`${org}/saml`, { label: 'Okta' });
    const fresh = signUp('sso-fresh@example.com');
    const res = await t.api.post(`${org}/invites`, {
      emails: [fresh.email, 'sso-pending@example.com', t.world.users.outsider.email],
      sso: true,
    });
    expect(res.body).toEqual({ users: [fresh.id], invited: 1, failedSSOEmails: [t.world.users.outsider.email] });
    expect((await t.api.get(`${org}/members/${fresh.id}`)).body.sso).toBe(true);
    const pending = signUp('sso-pending@example.com');
    const inviteId = invitationFor(t.upstream.db, t.world.orgId, pending.email);
    expect((await t.api.as(pending.token).post(`${org}/invites/${inviteId}`)).body).toEqual({});
    expect((await t.api.get(`${org}/members/${pending.id}`)).body).toMatchObject({ sso: true, role: 'read' });
  });
});

describe('POST /orgs/{organizationId}/invites/{inviteId}', () => {
  it('lets the invited email’s user join once, with the invite’s role', async () => {
    await t.api.post(`${org}/invites`, { emails: ['late@example.com'], role: 'review' });
    const inviteId = invitationFor(t.upstream.db, t.world.orgId, 'late@example.com')!;
    const someoneElse = signUp('someone-else@example.com');
    expect((await t.api.as(someoneElse.token).post(`${org}/invites/${inviteId}`)).status).toBe(403);
    const late = signUp('Late@Example.com');
    const res = await t.api.as(late.token).post(`${org}/invites/${inviteId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await t.api.get(`${org}/members/${late.id}`)).body).toMatchObject({ role: 'review', sso: false });
    expect((await t.api.as(late.token).post(`${org}/invites/${inviteId}`)).status).toBe(404);
    expect(invitationFor(t.upstream.db, t.world.orgId, 'late@example.com')).toBeUndefined();
  });

  it('re-inviting an email updates the pending invite', async () => {
    await t.api.post(`${org}/invites`, { emails: ['twice@example.com'], role: 'read' });
    const first = invitationFor(t.upstream.db, t.world.orgId, 'twice@example.com');
    const again = await t.api.post(`${org}/invites`, { emails: ['twice@example.com'], role: 'edit' });
    expect(again.body.invited).toBe(1);
    expect(invitationFor(t.upstream.db, t.world.orgId, 'twice@example.com')).toBe(first);
    const user = signUp('twice@example.com');
    await t.api.as(user.token).post(`${org}/invites/${first}`);
    expect((await t.api.get(`${org}/members/${user.id}`)).body.role).toBe('edit');
  });

  it('answers 404 for unknown invites and invites of another organization', async () => {
    const link = (await t.api.post(`${org}/link-invites`, { role: 'read' })).body;
    expect((await stranger().post(`${org}/invites/unknown`)).status).toBe(404);
    expect((await stranger().post(`/orgs/${t.world.otherOrgId}/invites/${link.id}`)).status).toBe(404);
    expect((await t.api.as(undefined).post(`${org}/invites/${link.id}`)).status).toBe(401);
  });
});

describe('link invites', () => {
  const links = () => `${org}/link-invites`;

  it('POST creates an invite (admin only), the body is optional', async () => {
    const plain = await t.api.post(links());
    expect(plain.status).toBe(201);
    expect(plain.body).toEqual({
      object: 'invite',
      id: expect.any(String),
      role: 'read',
      redundant: true,
      urls: {
        location: `${t.url}/orgs/${t.world.orgId}/link-invites/${plain.body.id}`,
        app: expect.stringMatching(/^http:\/\//),
      },
    });
    expect((await t.api.post(links(), { role: 'admin' })).body).toMatchObject({ role: 'admin', redundant: true });
    expect((await t.api.post(links(), { role: null })).body.role).toBeNull();
    expect((await t.api.post(links(), {})).body.role).toBe('read');
    const bad = await t.api.post(links(), { role: 'owner' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^role: must be one of/);
    expect((await t.api.post(links(), { level: 'read' })).body.error.message).toBe('level: is not a known field');
    expect((await as('create').post(links(), { role: 'read' })).status).toBe(403);
    expect((await stranger().post(links(), { role: 'read' })).status).toBe(404);
  });

  it('GET reads an invite; redundant tells whether the caller already has its role', async () => {
    const invite = (await t.api.post(links(), { role: 'edit' })).body;
    expect((await as('read').get(`${links()}/${invite.id}`)).body).toMatchObject({ id: invite.id, role: 'edit', redundant: false });
    expect((await as('create').get(`${links()}/${invite.id}`)).body.redundant).toBe(true);
    expect((await stranger().get(`${links()}/${invite.id}`)).status).toBe(404);
    expect((await t.api.get(`${links()}/unknown`)).status).toBe(404);
    expect((await t.api.get(`/orgs/${t.world.otherOrgId}/link-invites/${invite.id}`)).status).toBe(404);
  });

  it('GET lists the invites, every page with no duplicate and no gap', async () => {
    const all = await t.api.all(links());
    expect(all.items.length).toBeGreaterThanOrEqual(6);
    const paged = await t.api.all(links(), { limit: 4 });
    expect(paged.pages).toBe(Math.ceil(all.items.length / 4));
    expect(paged.items.map((x) => x.id)).toEqual(all.items.map((x) => x.id));
    expect(new Set(paged.items.map((x) => x.id)).size).toBe(all.items.length);
    expect((await stranger().get(links())).status).toBe(404);
  });

  it('GET lists to each member only the invites that grant no more than their own role', async () => {
    const roles = ['admin', 'create', 'edit', 'read', null];
    for (const role of roles) await t.api.post(links(), { role });
    const seen = async (who: Parameters<typeof as>[0]) => new Set((await as(who).all(links())).items.map((x) => x.role));
    expect(await seen('admin')).toEqual(new Set(['admin', 'create', 'edit', 'read', null]));
    expect(await seen('edit')).toEqual(new Set(['edit', 'read', null]));
    expect(await seen('read')).toEqual(new Set(['read', null]));
    expect(await seen('guest')).toEqual(new Set([null]));
    // A read member cannot find an admin link to join a second account with.
    const admins = (await t.api.all(links())).items.filter((x) => x.role === 'admin');
    const readable = (await as('read').all(links(), { limit: 1 })).items.map((x) => x.id);
    expect(admins.some((x) => readable.includes(x.id))).toBe(false);
  });

  it('PATCH changes the role (admin only, role required)', async () => {
    const invite = (await t.api.post(links(), { role: 'read' })).body;
    const path = `${links()}/${invite.id}`;
    expect((await as('edit').patch(path, { role: 'admin' })).status).toBe(403);
    const res = await t.api.patch(path, { role: 'create' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: invite.id, role: 'create' });
    expect((await t.api.patch(path, { role: null })).body.role).toBeNull();
    expect((await t.api.get(path)).body.role).toBeNull();
    expect((await t.api.patch(path, {})).body.error.message).toBe('role: is required');
    expect((await t.api.patch(path, { role: 'x' })).status).toBe(400);
    expect((await t.api.patch(`${links()}/unknown`, { role: 'read' })).status).toBe(404);
  });

  it('anyone holding a link invite joins with its role; it stays usable; members keep their role', async () => {
    const invite = (await t.api.post(links(), { role: 'edit' })).body;
    const a = signUp('link-a@example.com');
    const b = signUp('link-b@example.com');
    for (const user of [a, b]) {
      expect((await t.api.as(user.token).post(`${org}/invites/${invite.id}`)).body).toEqual({});
      expect((await t.api.get(`${org}/members/${user.id}`)).body.role).toBe('edit');
    }
    expect((await as('read').post(`${org}/invites/${invite.id}`)).status).toBe(200);
    expect((await t.api.get(`${org}/members/${t.world.users.read.id}`)).body.role).toBe('read');
    expect((await as('disabled').post(`${org}/invites/${invite.id}`)).status).toBe(403);
  });

  it('DELETE removes an invite (admin only); it can no longer be used', async () => {
    const invite = (await t.api.post(links(), { role: 'read' })).body;
    const path = `${links()}/${invite.id}`;
    expect((await as('create').delete(path)).status).toBe(403);
    expect((await stranger().delete(path)).status).toBe(404);
    const res = await t.api.delete(path);
    expect(res.status).toBe(204);
    expect((await t.api.get(path)).status).toBe(404);
    expect((await t.api.delete(path)).status).toBe(404);
    const late = signUp('too-late@example.com');
    expect((await t.api.as(late.token).post(`${org}/invites/${invite.id}`)).status).toBe(404);
  });
});
