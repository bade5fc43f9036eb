import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite } from '../../src/upstream/domain/sites.js';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
let orgId: string;
let siteId: string;
let base: string;
const { as, now } = fixtures(() => t);

beforeAll(async () => {
  t = await startUpstream();
  orgId = t.world.orgId;
  const space = insertSpace(t.upstream.db, now(), { organizationId: orgId, title: 'Guides' });
  siteId = createSite(t.upstream.db, now(), { organizationId: orgId, title: 'Docs', spaceIds: [space.id] }).id;
  base = `/orgs/${orgId}/sites/${siteId}`;
});
afterAll(() => t.stop());

describe('GET /orgs/{organizationId}/sites', () => {
  it('walks every site of the organization, page by page, with no duplicate or gap', async () => {
    for (let i = 0; i < 6; i++) createSite(t.upstream.db, now(), { organizationId: orgId, title: `Walk ${i}` });
    createSite(t.upstream.db, now(), { organizationId: t.world.otherOrgId, title: 'Globex docs' });
    const { items, pages } = await t.api.all(`/orgs/${orgId}/sites`, { limit: 2, title: 'Walk' });
    expect(items.map((s) => s.title)).toEqual(['Walk 0', 'Walk 1', 'Walk 2', 'Walk 3', 'Walk 4', 'Walk 5']);
    expect(pages).toBe(3);
    const all = await t.api.all(`/orgs/${orgId}/sites`, { limit: 3 });
    expect(new Set(all.items.map((s) => s.id)).size).toBe(7);
    expect(all.items.some((s) => s.title === 'Globex docs')).toBe(false);
  });

  it('filters by published state and by space', async () => {
    const space = insertSpace(t.upstream.db, now(), { organizationId: orgId, title: 'Filtered' });
    const live = createSite(t.upstream.db, now(), { organizationId: orgId, title: 'Live', published: true, spaceIds: [space.id] });
    const published = await t.api.get(`/orgs/${orgId}/sites`, { published: true });
    expect(published.body.items.map((s: any) => s.id)).toEqual([live.id]);
    const bySpace = await t.api.get(`/orgs/${orgId}/sites`, { space: space.id });
    expect(bySpace.body.items.map((s: any) => s.id)).toEqual([live.id]);
    expect((await t.api.get(`/orgs/${orgId}/sites`, { published: 'maybe' })).status).toBe(400);
  });

  it('members with a role list; guests 403; outsiders and disabled members 404; no token 401', async () => {
    expect((await as('read').get(`/orgs/${orgId}/sites`)).status).toBe(200);
    expect((await as('guest').get(`/orgs/${orgId}/sites`)).status).toBe(403);
    expect((await as('outsider').get(`/orgs/${orgId}/sites`)).status).toBe(404);
    expect((await as('disabled').get(`/orgs/${orgId}/sites`)).status).toBe(404);
    expect((await t.api.as(undefined).get(`/orgs/${orgId}/sites`)).status).toBe(401);
  });
});

describe('GET /orgs/{organizationId}/sites/{siteId}', () => {
  it('answers the official Site shape', async () => {
    const res = await t.api.get(base);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'site',
      id: siteId,
      title: 'Docs',
      visibility: 'public',
      published: false,
      siteSpaces: 1,
      urls: { location: `${t.url}${base}`, app: expect.stringMatching(/^http/) },
    });
    expect(res.body.urls.published).toBeUndefined();
  });

  it('computes permissions from the organization role', async () => {
    expect((await t.api.get(base)).body.permissions).toMatchObject({ view: true, edit: true, admin: true });
    const reader = await as('read').get(base);
    expect(reader.body.permissions).toMatchObject({ view: true, access: true, edit: false, create: false, admin: false });
    expect((await as('edit').get(base)).body.permissions).toMatchObject({ edit: true, create: false, admin: false });
  });

  it('create (publish, manage the structure) is set only for those the site writes let through: admins', async () => {
    const creator = as('create');
    expect((await creator.get(base)).body.permissions).toMatchObject({ edit: true, create: false, admin: false });
    expect((await creator.post(`${base}/publish`)).status).toBe(403);
    expect((await creator.post(`${base}/section-groups`, { title: 'Group' })).status).toBe(403);
    expect((await t.api.get(base)).body.permissions).toMatchObject({ create: true, admin: true });
  });

  it('404 for outsiders, unknown sites and a site under another organization; 403 for guests', async () => {
    expect((await as('outsider').get(base)).status).toBe(404);
    expect((await t.api.get(`/orgs/${orgId}/sites/nope`)).status).toBe(404);
    expect((await t.api.get(`/orgs/${t.world.otherOrgId}/sites/${siteId}`)).status).toBe(404);
    expect((await as('guest').get(base)).status).toBe(403);
  });
});

describe('PATCH /orgs/{organizationId}/sites/{siteId}', () => {
  it('changes title and visibility, each kept when absent', async () => {
    const res = await t.api.patch(base, { visibility: 'share-link' });
    expect(res.body).toMatchObject({ title: 'Docs', visibility: 'share-link' });
    const renamed = await t.api.patch(base, { title: 'Handbook' });
    expect(renamed.body).toMatchObject({ title: 'Handbook', visibility: 'share-link' });
    expect((await t.api.get(base)).body.title).toBe('Handbook');
    await t.api.patch(base, { title: 'Docs', visibility: 'public' });
  });

  it('title is 2 to 128 characters', async () => {
    expect((await t.api.patch(base, { title: 'ab' })).status).toBe(200);
    expect((await t.api.patch(base, { title: 'x'.repeat(128) })).status).toBe(200);
    for (const [title, rule] of [
      ['a', 'title: must be at least 2 characters long'],
      ['x'.repeat(129), 'title: must be at most 128 characters long'],
    ]) {
      const res = await t.api.patch(base, { title });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(rule);
    }
    await t.api.patch(base, { title: 'Docs' });
  });

  it('rejects an unknown visibility, an unknown field and a missing body', async () => {
    expect((await t.api.patch(base, { visibility: 'private' })).body.error.message).toMatch(/^visibility: must be one of public, unlisted/);
    expect((await t.api.patch(base, { basename: 'x' })).body.error.message).toBe('basename: is not a known field');
    expect((await t.api.patch(base)).status).toBe(400);
  });

  it('needs the organization role admin', async () => {
    expect((await as('create').patch(base, { title: 'Nope' })).status).toBe(403);
    expect((await as('outsider').patch(base, { title: 'Nope' })).status).toBe(404);
    expect((await t.api.get(base)).body.title).toBe('Docs');
  });
});

describe('POST publish / unpublish', () => {
  it('toggles the published state and the published URL', async () => {
    const published = await t.api.post(`${base}/publish`);
    expect(published.status).toBe(200);
    expect(published.body.published).toBe(true);
    expect(published.body.urls.published).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/published\/sites\//);
    expect((await t.api.post(`${base}/publish`)).body.published).toBe(true);
    const unpublished = await t.api.post(`${base}/unpublish`);
    expect(unpublished.body.published).toBe(false);
    expect(unpublished.body.urls.published).toBeUndefined();
    expect((await t.api.get(base)).body.published).toBe(false);
  });

  it('needs the organization role admin', async () => {
    expect((await as('create').post(`${base}/publish`)).status).toBe(403);
    expect((await as('create').post(`${base}/unpublish`)).status).toBe(403);
    expect((await as('outsider').post(`${base}/publish`)).status).toBe(404);
    expect((await t.api.get(base)).body.published).toBe(false);
  });
});

describe('publishing/auth', () => {
  const path = () => `${base}/publishing/auth`;

  it('GET creates the settings once, with a stable private key', async () => {
    const first = await t.api.get(path());
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ object: 'publishing-auth', backend: 'custom', privateKey: expect.any(String) });
    expect((await t.api.get(path())).body.privateKey).toBe(first.body.privateKey);
  });

  it('PATCH sets the backend and URLs; an absent URL is kept, null removes it', async () => {
    const set = await t.api.patch(path(), {
      backend: 'integration',
      fallbackURL: 'https://acme.test/login',
      logoutURL: 'https://acme.test/logout',
    });
    expect(set.body).toMatchObject({
      backend: 'integration',
      fallbackURL: 'https://acme.test/login',
      logoutURL: 'https://acme.test/logout',
    });
    const kept = await t.api.patch(path(), { backend: 'custom', logoutURL: null });
    expect(kept.body.backend).toBe('custom');
    expect(kept.body.fallbackURL).toBe('https://acme.test/login');
    expect(kept.body.logoutURL).toBeUndefined();
    expect((await t.api.get(path())).body.fallbackURL).toBe('https://acme.test/login');
  });

  it('rejects a missing backend, an unknown backend and a relative URL', async () => {
    expect((await t.api.patch(path(), {})).body.error.message).toBe('backend: is required');
    expect((await t.api.patch(path(), { backend: 'saml' })).status).toBe(400);
    expect((await t.api.patch(path(), { backend: 'custom', fallbackURL: '/login' })).body.error.message).toBe(
      'fallbackURL: must be an absolute URI',
    );
  });

  it('reading and writing need the organization role admin', async () => {
    expect((await as('create').get(path())).status).toBe(403);
    expect((await as('create').patch(path(), { backend: 'custom' })).status).toBe(403);
    expect((await as('outsider').get(path())).status).toBe(404);
    expect((await t.api.as(undefined).get(path())).status).toBe(401);
  });
});
