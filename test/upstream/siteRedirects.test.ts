import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
const { as, siteWithSections } = fixtures(() => t);

/** A fresh published site with one section per title: its base path and section ids by title. */
function siteWith(...titles: string[]) {
  const { siteId, ids } = siteWithSections(titles, { published: true });
  const base = `/orgs/${t.world.orgId}/sites/${siteId}`;
  return { base, redirects: `${base}/redirects`, ids };
}

const to = (siteSectionId: string) => ({ kind: 'site-section', siteSectionId });

beforeAll(async () => {
  t = await startUpstream();
});
afterAll(() => t.stop());

describe('POST redirects', () => {
  it('creates a redirect to a section of the site', async () => {
    const { redirects, ids } = siteWith('Home', 'Guides');
    const res = await t.api.post(redirects, { source: '/old/guides', destination: to(ids.Guides) });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'site-redirect',
      id: expect.any(String),
      source: '/old/guides',
      destination: { kind: 'site-section', siteSectionId: ids.Guides },
      createdAt: expect.any(String),
    });
  });

  it('enforces the source pattern', async () => {
    const { redirects, ids } = siteWith('Home');
    for (const source of ['/ab', '/docs/getting-started', '/v1.2/a_b-c', '/A/b/C9']) {
      expect((await t.api.post(redirects, { source, destination: to(ids.Home) })).status, source).toBe(201);
    }
    for (const source of ['/a', 'docs', '/trailing/', '/with space', '/star*', '/query?x', '/a//b', '//ab', '']) {
      const res = await t.api.post(redirects, { source, destination: to(ids.Home) });
      expect(res.status, source).toBe(400);
      expect(res.body.error.message, source).toMatch(/^source: must match the pattern/);
    }
  });

  it('source is at most 512 characters', async () => {
    const { redirects, ids } = siteWith('Home');
    expect((await t.api.post(redirects, { source: `/${'a'.repeat(511)}`, destination: to(ids.Home) })).status).toBe(201);
    const res = await t.api.post(redirects, { source: `/${'a'.repeat(512)}`, destination: to(ids.Home) });
    expect(res.body.error.message).toBe('source: must be at most 512 characters long');
  });

  it('source and destination are required; the destination is a section of this site', async () => {
    const { redirects, ids } = siteWith('Home');
    const other = siteWith('Elsewhere');
    expect((await t.api.post(redirects, { destination: to(ids.Home) })).body.error.message).toBe('source: is required');
    expect((await t.api.post(redirects, { source: '/ab' })).body.error.message).toBe('destination: is required');
    expect((await t.api.post(redirects, { source: '/ab', destination: { kind: 'site-section' } })).body.error.message).toBe(
      'destination.siteSectionId: is required',
    );
    expect((await t.api.post(redirects, { source: '/ab', destination: { kind: 'url', siteSectionId: ids.Home } })).status).toBe(400);
    expect((await t.api.post(redirects, { source: '/ab', destination: to(other.ids.Elsewhere) })).body.error.message).toBe(
      'destination.siteSectionId: is not a section of this site',
    );
    expect((await t.api.all(redirects)).items).toHaveLength(0);
  });

  it('a source already redirected on the site is a conflict', async () => {
    const { redirects, ids } = siteWith('Home');
    const other = siteWith('Home');
    expect((await t.api.post(redirects, { source: '/same', destination: to(ids.Home) })).status).toBe(201);
    expect((await t.api.post(redirects, { source: '/same', destination: to(ids.Home) })).status).toBe(409);
    expect((await t.api.post(other.redirects, { source: '/same', destination: to(other.ids.Home) })).status).toBe(201);
  });

  it('needs the organization role admin', async () => {
    const { redirects, ids } = siteWith('Home');
    expect((await as('create').post(redirects, { source: '/ab', destination: to(ids.Home) })).status).toBe(403);
    expect((await as('outsider').post(redirects, { source: '/ab', destination: to(ids.Home) })).status).toBe(404);
  });
});

describe('GET redirects', () => {
  it('walks every redirect in creation order; members read, outsiders 404', async () => {
    const { redirects, ids } = siteWith('Home');
    for (let i = 1; i <= 5; i++) await t.api.post(redirects, { source: `/page-${i}`, destination: to(ids.Home) });
    const { items, pages } = await t.api.all(redirects, { limit: 2 });
    expect(items.map((r) => r.source)).toEqual(['/page-1', '/page-2', '/page-3', '/page-4', '/page-5']);
    expect(pages).toBe(3);
    expect((await as('read').get(redirects)).body.count).toBe(5);
    expect((await as('outsider').get(redirects)).status).toBe(404);
  });
});

describe('PATCH and DELETE redirects/{siteRedirectId}', () => {
  it('PATCH changes source and destination, each kept when absent', async () => {
    const { redirects, ids } = siteWith('Home', 'Guides');
    const id = (await t.api.post(redirects, { source: '/before', destination: to(ids.Home) })).body.id;
    const moved = await t.api.patch(`${redirects}/${id}`, { source: '/after' });
    expect(moved.body).toMatchObject({ source: '/after', destination: to(ids.Home), updatedAt: expect.any(String) });
    const retargeted = await t.api.patch(`${redirects}/${id}`, { destination: to(ids.Guides) });
    expect(retargeted.body).toMatchObject({ source: '/after', destination: to(ids.Guides) });
    expect((await t.api.patch(`${redirects}/${id}`, { source: '/after' })).status).toBe(200);
  });

  it('PATCH checks the source pattern, the destination and conflicts', async () => {
    const { redirects, ids } = siteWith('Home');
    const other = siteWith('Elsewhere');
    const id = (await t.api.post(redirects, { source: '/one', destination: to(ids.Home) })).body.id;
    await t.api.post(redirects, { source: '/two', destination: to(ids.Home) });
    expect((await t.api.patch(`${redirects}/${id}`, { source: 'one' })).status).toBe(400);
    expect((await t.api.patch(`${redirects}/${id}`, { source: `/${'a'.repeat(512)}` })).status).toBe(400);
    expect((await t.api.patch(`${redirects}/${id}`, { destination: to(other.ids.Elsewhere) })).status).toBe(400);
    expect((await t.api.patch(`${redirects}/${id}`, { source: '/two' })).status).toBe(409);
    expect((await as('create').patch(`${redirects}/${id}`, { source: '/three' })).status).toBe(403);
    expect((await t.api.patch(`${redirects}/nope`, { source: '/three' })).status).toBe(404);
  });

  it('DELETE removes the redirect; deleting its destination section removes it too', async () => {
    const { base, redirects, ids } = siteWith('Home', 'Guides');
    const id = (await t.api.post(redirects, { source: '/gone', destination: to(ids.Home) })).body.id;
    await t.api.post(redirects, { source: '/guides-old', destination: to(ids.Guides) });
    expect((await as('create').delete(`${redirects}/${id}`)).status).toBe(403);
    expect((await t.api.delete(`${redirects}/${id}`)).status).toBe(204);
    expect((await t.api.delete(`${redirects}/${id}`)).status).toBe(404);
    await t.api.delete(`${base}/sections/${ids.Guides}`);
    expect((await t.api.all(redirects)).items).toHaveLength(0);
  });
});

describe('GET redirect?source=', () => {
  it('resolves a source to the redirect and the absolute URL of its destination section', async () => {
    const { base, redirects, ids } = siteWith('Home', 'Guides');
    const created = (await t.api.post(redirects, { source: '/old/guides', destination: to(ids.Guides) })).body;
    await t.api.post(redirects, { source: '/old/home', destination: to(ids.Home) });
    const site = (await t.api.get(base)).body;
    const res = await as('read').get(`${base}/redirect`, { source: '/old/guides' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ redirect: created, target: `${site.urls.published}/guides` });
    expect((await t.api.get(`${base}/redirect`, { source: '/old/home' })).body.target).toBe(site.urls.published);
  });

  it('unknown source 404; source required, with the pattern and at most 512 characters', async () => {
    const { base } = siteWith('Home');
    expect((await t.api.get(`${base}/redirect`, { source: '/unknown' })).status).toBe(404);
    expect((await t.api.get(`${base}/redirect`)).body.error.message).toBe('source: is required');
    expect((await t.api.get(`${base}/redirect`, { source: 'nope' })).body.error.message).toMatch(/^source: must match/);
    expect((await t.api.get(`${base}/redirect`, { source: `/${'a'.repeat(512)}` })).body.error.message).toBe(
      'source: must be at most 512 characters long',
    );
  });

  it('outsiders 404; no token and no share key 401', async () => {
    const { base } = siteWith('Home');
    expect((await as('outsider').get(`${base}/redirect`, { source: '/ab' })).status).toBe(404);
    expect((await t.api.as(undefined).get(`${base}/redirect`, { source: '/ab' })).status).toBe(401);
  });
});
