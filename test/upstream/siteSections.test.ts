import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSiteSpace } from '../../src/upstream/domain/siteSpaces.js';
import { createSite } from '../../src/upstream/domain/sites.js';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
let orgId: string;
const { as, now } = fixtures(() => t);
const newSpace = (title: string, organizationId = orgId) => insertSpace(t.upstream.db, now(), { organizationId, title }).id;

/** A fresh site with one section per title; answers its sections path and the sections. */
async function siteWith(...titles: string[]) {
  const siteId = createSite(t.upstream.db, now(), { organizationId: orgId, title: 'Site' }).id;
  const path = `/orgs/${orgId}/sites/${siteId}/sections`;
  const sections = [];
  for (const title of titles) sections.push((await t.api.post(path, { spaceId: newSpace(title) })).body);
  return { siteId, path, sections };
}

const titlesOf = async (path: string) => (await t.api.all(path)).items.map((s) => s.title);

beforeAll(async () => {
  t = await startUpstream();
  orgId = t.world.orgId;
});
afterAll(() => t.stop());

describe('POST sections', () => {
  it('creates a section publishing the space; the first section is the default', async () => {
    const { path } = await siteWith();
    const spaceId = newSpace('Getting started');
    const first = await t.api.post(path, { spaceId });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      object: 'site-section',
      title: 'Getting started',
      path: 'getting-started',
      default: true,
      siteSpaces: [{ object: 'site-space', section: first.body.id, default: true, title: 'Getting started', space: { id: spaceId } }],
    });
    expect(first.body.urls.published).toBeUndefined();
    const second = await t.api.post(path, { spaceId: newSpace('API'), title: 'Getting started' });
    expect(second.body).toMatchObject({ title: 'Getting started', path: 'getting-started-2', default: false });
  });

  it('title is 2 to 64 characters on create', async () => {
    const { path } = await siteWith();
    expect((await t.api.post(path, { spaceId: newSpace('S'), title: 'ab' })).status).toBe(201);
    expect((await t.api.post(path, { spaceId: newSpace('S'), title: 'x'.repeat(64) })).status).toBe(201);
    const long = await t.api.post(path, { spaceId: newSpace('S'), title: 'x'.repeat(65) });
    expect(long.body.error.message).toBe('title: must be at most 64 characters long');
    const short = await t.api.post(path, { spaceId: newSpace('S'), title: 'a' });
    expect(short.body.error.message).toBe('title: must be at least 2 characters long');
  });

  it('spaceId is required and must be a space of the organization the caller can read', async () => {
    const { path } = await siteWith();
    expect((await t.api.post(path, {})).body.error).toEqual({ code: 400, message: 'spaceId: is required' });
    expect((await t.api.post(path, { spaceId: 'nope' })).body.error).toEqual({ code: 404, message: 'spaceId: Space not found' });
    const globex = await t.api.post(path, { spaceId: newSpace('Globex space', t.world.otherOrgId) });
    expect(globex.status).toBe(400);
    expect(globex.body.error.message).toMatch(/^spaceId:/);
    expect((await t.api.all(path)).items).toHaveLength(0);
  });

  it('needs the organization role admin', async () => {
    const { path } = await siteWith();
    expect((await as('create').post(path, { spaceId: newSpace('S') })).status).toBe(403);
    expect((await as('outsider').post(path, { spaceId: newSpace('S') })).status).toBe(404);
  });
});

describe('GET sections', () => {
  it('walks every section in site order, with no duplicate or gap', async () => {
    const { path } = await siteWith('One', 'Two', 'Three', 'Four', 'Five');
    const { items, pages } = await t.api.all(path, { limit: 2 });
    expect(items.map((s) => s.title)).toEqual(['One', 'Two', 'Three', 'Four', 'Five']);
    expect(pages).toBe(3);
  });

  it('members read; outsiders 404; no token and no share key 401', async () => {
    const { path } = await siteWith('One');
    expect((await as('read').get(path)).body.count).toBe(1);
    expect((await as('outsider').get(path)).status).toBe(404);
    expect((await t.api.as(undefined).get(path)).status).toBe(401);
    expect((await t.api.as(undefined).get(path, { shareKey: 'guess' })).status).toBe(401);
  });

  it('published sites give absolute published URLs: the default section at the root', async () => {
    const { siteId, path } = await siteWith('Home', 'Guides');
    await t.api.post(`/orgs/${orgId}/sites/${siteId}/publish`);
    const [home, guides] = (await t.api.get(path)).body.items;
    expect(guides.urls.published).toBe(`${home.urls.published}/guides`);
    expect(home.siteSpaces[0].urls.published).toBe(home.urls.published);
  });
});

describe('PATCH sections/{siteSectionId}', () => {
  let path: string;
  let sectionId: string;
  const patch = (body: unknown) => t.api.patch(`${path}/${sectionId}`, body);
  beforeAll(async () => {
    const site = await siteWith('Main', 'Other');
    path = site.path;
    sectionId = site.sections[0].id;
  });

  it('title is 2 to 128 characters', async () => {
    expect((await patch({ title: 'ab' })).body.title).toBe('ab');
    expect((await patch({ title: 'x'.repeat(128) })).status).toBe(200);
    expect((await patch({ title: 'a' })).body.error.message).toBe('title: must be at least 2 characters long');
    expect((await patch({ title: 'x'.repeat(129) })).body.error.message).toBe('title: must be at most 128 characters long');
  });

  it('path is 1 to 100 characters and unique in the site', async () => {
    expect((await patch({ path: 'p' })).body.path).toBe('p');
    expect((await patch({ path: 'p'.repeat(100) })).status).toBe(200);
    expect((await patch({ path: '' })).body.error.message).toBe('path: must be at least 1 characters long');
    expect((await patch({ path: 'p'.repeat(101) })).body.error.message).toBe('path: must be at most 100 characters long');
    const clash = await patch({ path: 'other' });
    expect(clash.status).toBe(409);
    expect(clash.body.error.message).toMatch(/^path:/);
    expect((await patch({ path: 'main' })).body.path).toBe('main');
  });

  it('any path gives a valid published URL: its segments are percent-encoded', async () => {
    const site = await siteWith('Home', 'Elsewhere');
    await t.api.post(`/orgs/${orgId}/sites/${site.siteId}/publish`);
    const res = await t.api.patch(`${site.path}/${site.sections[1].id}`, { path: 'Über uns/x y' });
    expect(res.status).toBe(200);
    expect(res.body.path).toBe('Über uns/x y');
    expect(res.body.urls.published).toMatch(/\/%C3%9Cber%20uns\/x%20y$/);
    expect(res.body.siteSpaces[0].urls.published.startsWith(res.body.urls.published)).toBe(true);
  });

  it('condition: set, kept when absent, removed with null; 1 to 1024 characters', async () => {
    expect((await patch({ condition: 'visitor.claims.beta' })).body.condition).toBe('visitor.claims.beta');
    expect((await patch({ title: 'Main' })).body.condition).toBe('visitor.claims.beta');
    expect((await patch({ condition: 'x'.repeat(1024) })).body.condition).toHaveLength(1024);
    expect((await patch({ condition: 'x'.repeat(1025) })).body.error.message).toBe('condition: must be at most 1024 characters long');
    expect((await patch({ condition: '' })).body.error.message).toBe('condition: must be at least 1 characters long');
    const removed = await patch({ condition: null });
    expect(removed.status).toBe(200);
    expect(removed.body.condition).toBeUndefined();
    expect((await t.api.get(path)).body.items[0].condition).toBeUndefined();
  });

  it('icon at most 50 characters and description at most 256; null removes them', async () => {
    expect((await patch({ icon: 'i'.repeat(50), description: 'd'.repeat(256) })).body).toMatchObject({
      icon: 'i'.repeat(50),
      description: 'd'.repeat(256),
    });
    expect((await patch({ icon: 'i'.repeat(51) })).body.error.message).toBe('icon: must be at most 50 characters long');
    expect((await patch({ description: 'd'.repeat(257) })).body.error.message).toBe('description: must be at most 256 characters long');
    const cleared = await patch({ icon: null, description: null });
    expect(cleared.body.icon).toBeUndefined();
    expect(cleared.body.description).toBeUndefined();
  });

  it('defaultSiteSpace must be a site space of the section', async () => {
    const variant = insertSiteSpace(t.upstream.db, now(), { sectionId, spaceId: newSpace('Version 2') });
    const before = (await t.api.get(path)).body.items[0];
    expect(before.siteSpaces.map((s: any) => s.default)).toEqual([true, false]);
    const res = await patch({ defaultSiteSpace: variant });
    expect(res.body.siteSpaces.map((s: any) => [s.id, s.default])).toEqual([
      [before.siteSpaces[0].id, false],
      [variant, true],
    ]);
    expect((await patch({ defaultSiteSpace: 'nope' })).body.error.message).toBe('defaultSiteSpace: is not a site space of this section');
    const other = (await t.api.get(path)).body.items[1].siteSpaces[0].id;
    expect((await patch({ defaultSiteSpace: other })).status).toBe(400);
  });

  it('unknown fields 400, unknown section 404, non-admins 403', async () => {
    expect((await patch({ draft: true })).body.error.message).toBe('draft: is not a known field');
    expect((await t.api.patch(`${path}/nope`, { title: 'Nope' })).status).toBe(404);
    expect((await as('edit').patch(`${path}/${sectionId}`, { title: 'Nope' })).status).toBe(403);
    expect((await as('outsider').patch(`${path}/${sectionId}`, { title: 'Nope' })).status).toBe(404);
  });
});

describe('DELETE sections/{siteSectionId}', () => {
  it('removes the section; the next section becomes the default', async () => {
    const { siteId, path, sections } = await siteWith('One', 'Two');
    expect((await as('admin').delete(`${path}/${sections[0].id}`)).status).toBe(204);
    const left = (await t.api.get(path)).body.items;
    expect(left.map((s: any) => [s.title, s.default])).toEqual([['Two', true]]);
    expect((await t.api.get(`/orgs/${orgId}/sites/${siteId}`)).body.siteSpaces).toBe(1);
    expect((await t.api.delete(`${path}/${sections[0].id}`)).status).toBe(404);
  });

  it('needs the organization role admin', async () => {
    const { path, sections } = await siteWith('One');
    expect((await as('create').delete(`${path}/${sections[0].id}`)).status).toBe(403);
    expect((await t.api.get(path)).body.count).toBe(1);
  });
});

describe('POST sections/{siteSectionId}/move', () => {
  it('moves to the end by default, or before / after another section', async () => {
    const { path, sections } = await siteWith('Aa', 'Bb', 'Cc', 'Dd');
    const [a, b, c, d] = sections.map((s) => s.id);
    expect((await t.api.post(`${path}/${a}/move`)).status).toBe(200);
    expect(await titlesOf(path)).toEqual(['Bb', 'Cc', 'Dd', 'Aa']);
    await t.api.post(`${path}/${d}/move`, { position: { before: { type: 'site-section', siteSection: b } } });
    expect(await titlesOf(path)).toEqual(['Dd', 'Bb', 'Cc', 'Aa']);
    await t.api.post(`${path}/${d}/move`, { position: { after: { type: 'site-section', siteSection: c } } });
    expect(await titlesOf(path)).toEqual(['Bb', 'Cc', 'Dd', 'Aa']);
    const moved = await t.api.post(`${path}/${a}/move`, { position: { after: { type: 'site-section', siteSection: b } } });
    expect(moved.body.id).toBe(a);
    expect(await titlesOf(path)).toEqual(['Bb', 'Aa', 'Cc', 'Dd']);
    expect((await t.api.get(path)).body.items[1].default).toBe(true);
  });

  it('rejects both before and after, a foreign or unknown section, a wrong type and the section itself', async () => {
    const { path, sections } = await siteWith('Aa', 'Bb');
    const other = await siteWith('Xx');
    const [a, b] = sections.map((s) => s.id);
    const move = (position: unknown) => t.api.post(`${path}/${a}/move`, { position });
    const pointer = (siteSection: string) => ({ type: 'site-section', siteSection });
    expect((await move({ before: pointer(b), after: pointer(b) })).body.error.message).toMatch(/^position:/);
    expect((await move({ before: pointer(other.sections[0].id) })).body.error.message).toBe(
      'position.before.siteSection: is not a section of this site',
    );
    expect((await move({ after: pointer('nope') })).status).toBe(400);
    expect((await move({ after: { type: 'site-section-group', siteSection: b } })).status).toBe(400);
    expect((await move({ after: { type: 'site-section', id: b } })).body.error.message).toBe('position.after.siteSection: is required');
    expect((await move({ after: pointer(a) })).status).toBe(400);
    expect(await titlesOf(path)).toEqual(['Aa', 'Bb']);
    expect((await as('create').post(`${path}/${a}/move`)).status).toBe(403);
    expect((await t.api.post(`${path}/nope/move`)).status).toBe(404);
  });
});

describe('section titles from spaces', () => {
  it('a space title shorter than a section title’s minimum gives the section `Untitled`', async () => {
    const { sections } = await siteWith('X');
    expect(sections[0]).toMatchObject({ title: 'Untitled', path: 'untitled' });
    expect(sections[0].siteSpaces[0]).toMatchObject({ title: 'X', path: 'x' });
  });
});
