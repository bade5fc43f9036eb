import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
let saml: string;
let teamId: string;
const { as } = fixtures(() => t);
/** An absolute URL of exactly `length` characters. */
const urlOf = (length: number) => {
  const start = 'https://idp.example.com/';
  return start + 'a'.repeat(length - start.length);
};

beforeAll(async () => {
  t = await startUpstream();
  saml = `/orgs/${t.world.orgId}/saml`;
  teamId = (await t.api.put(`/orgs/${t.world.orgId}/teams`, { title: 'SSO people' })).body.id;
});
afterAll(() => t.stop());

describe('POST /orgs/{organizationId}/saml', () => {
  it('creates a pending provider from a label alone', async () => {
    const res = await t.api.post(saml, { label: 'Okta' });
    expect(res.status).toBe(201);
    const { id } = res.body;
    const origin = new URL(t.url).origin;
    expect(res.body).toEqual({
      object: 'saml-provider',
      id: expect.any(String),
      label: 'Okta',
      defaultRole: null,
      createdAt: expect.any(String),
      status: 'pending',
      service: {
        acsURL: `${origin}/sso/saml/${t.world.orgId}/${id}/acs`,
        startURL: `${origin}/sso/saml/${t.world.orgId}/${id}/start`,
        entityID: `${origin}/sso/saml/${t.world.orgId}/${id}`,
      },
      urls: { location: `${t.url}/orgs/${t.world.orgId}/saml/${id}` },
    });
  });

  it('creates an active provider with every field; defaultTeam comes back as a Team', async () => {
    const res = await t.api.post(saml, {
      label: 'Azure AD',
      entityID: 'https://sts.example.com/abc',
      certificate: 'MIIC...',
      ssoURL: 'https://login.example.com/saml2',
      defaultTeam: teamId,
      defaultRole: 'edit',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      label: 'Azure AD',
      entityID: 'https://sts.example.com/abc',
      certificate: 'MIIC...',
      ssoURL: 'https://login.example.com/saml2',
      defaultTeam: { object: 'team', id: teamId, title: 'SSO people' },
      defaultRole: 'edit',
      status: 'active',
    });
  });

  it('enforces each limit just under and just over', async () => {
    const ok = [
      { label: 'x'.repeat(30) },
      { label: 'x' },
      { label: 'L', entityID: 'e'.repeat(1024) },
      { label: 'L', certificate: 'c'.repeat(10000) },
      { label: 'L', ssoURL: urlOf(2048) },
      { label: 'L', defaultRole: null },
      { label: 'L', defaultTeam: null },
    ];
    for (const body of ok) expect((await t.api.post(saml, body)).status).toBe(201);
    for (const [body, message] of [
      [{ label: 'x'.repeat(31) }, 'label: must be at most 30 characters long'],
      [{ label: '' }, 'label: must be at least 1 characters long'],
      [{}, 'label: is required'],
      [{ label: 'L', entityID: 'e'.repeat(1025) }, 'entityID: must be at most 1024 characters long'],
      [{ label: 'L', certificate: 'c'.repeat(10001) }, 'certificate: must be at most 10000 characters long'],
      [{ label: 'L', ssoURL: urlOf(2049) }, 'ssoURL: must be at most 2048 characters long'],
      [{ label: 'L', ssoURL: 'login.example.com' }, 'ssoURL: must be an absolute URI'],
      [{ label: 'L', defaultRole: 'owner' }, 'defaultRole: must be one of read, comment, review, edit, create, admin'],
      [{ label: 'L', defaultTeam: 'nope' }, 'defaultTeam: is not a team of the organization'],
      [{ label: 'L', status: 'active' }, 'status: is not a known field'],
    ] as const) {
      const res = await t.api.post(saml, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
  });

  it('refuses a team of another organization as defaultTeam', async () => {
    const other = (await t.api.put(`/orgs/${t.world.otherOrgId}/teams`, { title: 'Globex team' })).body.id;
    const res = await t.api.post(saml, { label: 'L', defaultTeam: other });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('defaultTeam: is not a team of the organization');
  });

  it('is for organization admins', async () => {
    expect((await as('create').post(saml, { label: 'L' })).status).toBe(403);
    expect((await as('outsider').post(saml, { label: 'L' })).status).toBe(404);
  });
});

describe('GET /orgs/{organizationId}/saml', () => {
  it('lists the providers, every page with no duplicate and no gap (admins only)', async () => {
    const all = await t.api.all(saml);
    expect(all.items.length).toBeGreaterThanOrEqual(9);
    const paged = await t.api.all(saml, { limit: 4 });
    expect(paged.pages).toBe(Math.ceil(all.items.length / 4));
    expect(paged.items.map((x) => x.id)).toEqual(all.items.map((x) => x.id));
    expect(new Set(paged.items.map((x) => x.id)).size).toBe(all.items.length);
    expect(all.items[0].label).toBe('Okta');
    expect((await as('edit').get(saml)).status).toBe(403);
    expect((await as('outsider').get(saml)).status).toBe(404);
  });
});

describe('GET, PATCH, DELETE /orgs/{organizationId}/saml/{samlProviderId}', () => {
  let path: string;
  beforeAll(async () => {
    path = `${saml}/${(await t.api.post(saml, { label: 'Google' })).body.id}`;
  });

  it('GET answers the provider to admins', async () => {
    expect((await t.api.get(path)).body).toMatchObject({ label: 'Google', status: 'pending' });
    expect((await as('edit').get(path)).status).toBe(403);
    expect((await as('outsider').get(path)).status).toBe(404);
    expect((await t.api.get(`${saml}/unknown`)).status).toBe(404);
  });

  it('PATCH changes only the given fields; all optional', async () => {
    const res = await t.api.patch(path, { ssoURL: 'https://accounts.example.com/o/saml2', defaultTeam: teamId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ label: 'Google', ssoURL: 'https://accounts.example.com/o/saml2', defaultTeam: { id: teamId } });
    const done = await t.api.patch(path, { entityID: 'https://accounts.example.com', certificate: 'cert', defaultRole: 'read' });
    expect(done.body).toMatchObject({ status: 'active', defaultRole: 'read', ssoURL: 'https://accounts.example.com/o/saml2' });
    expect((await t.api.patch(path, { label: 'y'.repeat(30) })).body.label).toBe('y'.repeat(30));
    expect((await t.api.patch(path)).body.label).toBe('y'.repeat(30));
    const cleared = await t.api.patch(path, { defaultTeam: null, defaultRole: null });
    expect(cleared.body.defaultTeam).toBeUndefined();
    expect(cleared.body.defaultRole).toBeNull();
  });

  it('PATCH enforces the create limits', async () => {
    for (const [body, field] of [
      [{ label: 'y'.repeat(31) }, 'label'],
      [{ label: '' }, 'label'],
      [{ entityID: 'e'.repeat(1025) }, 'entityID'],
      [{ certificate: 'c'.repeat(10001) }, 'certificate'],
      [{ ssoURL: urlOf(2049) }, 'ssoURL'],
      [{ defaultTeam: 'nope' }, 'defaultTeam'],
      [{ defaultRole: 'guest' }, 'defaultRole'],
    ] as const) {
      const res = await t.api.patch(path, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message.startsWith(`${field}: `)).toBe(true);
    }
    expect((await as('create').patch(path, { label: 'X' })).status).toBe(403);
  });

  it('a deleted team is no longer the default team', async () => {
    const team = (await t.api.put(`/orgs/${t.world.orgId}/teams`, { title: 'Temporary' })).body.id;
    await t.api.patch(path, { defaultTeam: team });
    await t.api.delete(`/orgs/${t.world.orgId}/teams/${team}`);
    expect((await t.api.get(path)).body.defaultTeam).toBeUndefined();
  });

  it('DELETE removes the provider (admins only)', async () => {
    expect((await as('create').delete(path)).status).toBe(403);
    expect((await as('outsider').delete(path)).status).toBe(404);
    const res = await t.api.delete(path);
    expect(res.status).toBe(204);
    expect((await t.api.get(path)).status).toBe(404);
    expect((await t.api.delete(path)).status).toBe(404);
  });
});

describe('GET /orgs/{organizationId}/sso', () => {
  it('answers the login info of every provider to any authenticated caller', async () => {
    const providers = (await t.api.all(saml)).items;
    const expected = providers.map((p) => ({ id: p.id, label: p.label, startURL: p.service.startURL }));
    for (const who of ['admin', 'read', 'guest', 'outsider'] as const) {
      const res = await as(who).get(`/orgs/${t.world.orgId}/sso`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: expected });
    }
    expect((await as('outsider').get(`/orgs/${t.world.otherOrgId}/sso`)).body).toEqual({ items: [] });
    expect((await t.api.get('/orgs/unknown/sso')).status).toBe(404);
    expect((await t.api.as(undefined).get(`/orgs/${t.world.orgId}/sso`)).status).toBe(401);
  });
});
