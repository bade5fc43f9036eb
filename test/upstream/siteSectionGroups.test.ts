import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
const { as, siteWithSections } = fixtures(() => t);

/** A fresh site with one section per title: its base path, groups path and section ids by title. */
function siteWith(...titles: string[]) {
  const { siteId, ids } = siteWithSections(titles);
  const base = `/orgs/${t.world.orgId}/sites/${siteId}`;
  return { base, groups: `${base}/section-groups`, ids };
}

const groupTitles = async (path: string) => (await t.api.all(path)).items.map((g) => g.title);

beforeAll(async () => {
  t = await startUpstream();
});
afterAll(() => t.stop());

describe('POST section-groups', () => {
  it('creates a group with its sections; the sections name their group', async () => {
    const { base, groups, ids } = siteWith('One', 'Two', 'Three');
    const res = await t.api.post(groups, { title: 'Products', icon: 'box', sections: [ids.Two, ids.One] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'site-section-group', title: 'Products', icon: 'box' });
    expect(res.body.sections.map((s: any) => s.title)).toEqual(['One', 'Two']);
    const sections = (await t.api.get(`${base}/sections`)).body.items;
    expect(sections.map((s: any) => s.sectionGroup)).toEqual([res.body.id, res.body.id, undefined]);
  });

  it('title is 1 to 100 characters and required; icon at most 50', async () => {
    const { groups } = siteWith();
    expect((await t.api.post(groups, { title: 'G' })).status).toBe(201);
    expect((await t.api.post(groups, { title: 'g'.repeat(100), icon: 'i'.repeat(50) })).status).toBe(201);
    expect((await t.api.post(groups, { title: '' })).body.error.message).toBe('title: must be at least 1 characters long');
    expect((await t.api.post(groups, { title: 'g'.repeat(101) })).body.error.message).toBe('title: must be at most 100 characters long');
    expect((await t.api.post(groups, {})).body.error.message).toBe('title: is required');
    expect((await t.api.post(groups, { title: 'G', icon: 'i'.repeat(51) })).body.error.message).toBe(
      'icon: must be at most 50 characters long',
    );
    expect((await t.api.all(groups)).items).toHaveLength(2);
  });

  it('sections must be sections of the same site; nothing is created otherwise', async () => {
    const { groups, ids } = siteWith('One');
    const other = siteWith('Elsewhere');
    const res = await t.api.post(groups, { title: 'G', sections: [ids.One, other.ids.Elsewhere] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('sections[1]: is not a section of this site');
    expect((await t.api.all(groups)).items).toHaveLength(0);
  });

  it('needs the organization role admin', async () => {
    const { groups } = siteWith();
    expect((await as('create').post(groups, { title: 'G' })).status).toBe(403);
    expect((await as('outsider').post(groups, { title: 'G' })).status).toBe(404);
  });
});

describe('GET section-groups', () => {
  it('walks every group in site order; members read, outsiders 404', async () => {
    const { groups } = siteWith();
    for (const title of ['G1', 'G2', 'G3', 'G4', 'G5']) await t.api.post(groups, { title });
    const { items, pages } = await t.api.all(groups, { limit: 2 });
    expect(items.map((g) => g.title)).toEqual(['G1', 'G2', 'G3', 'G4', 'G5']);
    expect(pages).toBe(3);
    expect((await as('read').get(groups)).body.count).toBe(5);
    expect((await as('outsider').get(groups)).status).toBe(404);
    expect((await t.api.as(undefined).get(groups)).status).toBe(401);
  });
});

describe('PATCH and DELETE section-groups/{siteSectionGroupId}', () => {
  it('PATCH changes title and icon, each kept when absent; null removes the icon', async () => {
    const { groups } = siteWith();
    const id = (await t.api.post(groups, { title: 'G', icon: 'box' })).body.id;
    expect((await t.api.patch(`${groups}/${id}`, { title: 'Renamed' })).body).toMatchObject({ title: 'Renamed', icon: 'box' });
    expect((await t.api.patch(`${groups}/${id}`, { icon: 'star' })).body).toMatchObject({ title: 'Renamed', icon: 'star' });
    expect((await t.api.patch(`${groups}/${id}`, { icon: null })).body.icon).toBeUndefined();
    expect((await t.api.patch(`${groups}/${id}`, { title: '' })).status).toBe(400);
    expect((await t.api.patch(`${groups}/${id}`, { title: 'g'.repeat(101) })).status).toBe(400);
    expect((await t.api.patch(`${groups}/${id}`, { title: 'g'.repeat(100) })).status).toBe(200);
    expect((await t.api.patch(`${groups}/${id}`, { icon: 'i'.repeat(51) })).status).toBe(400);
    expect((await as('create').patch(`${groups}/${id}`, { title: 'No' })).status).toBe(403);
    expect((await t.api.patch(`${groups}/nope`, { title: 'No' })).status).toBe(404);
  });

  it('DELETE removes the group; its sections stay, ungrouped', async () => {
    const { base, groups, ids } = siteWith('One');
    const id = (await t.api.post(groups, { title: 'G', sections: [ids.One] })).body.id;
    expect((await as('create').delete(`${groups}/${id}`)).status).toBe(403);
    expect((await t.api.delete(`${groups}/${id}`)).status).toBe(204);
    expect((await t.api.all(groups)).items).toHaveLength(0);
    const sections = (await t.api.get(`${base}/sections`)).body.items;
    expect(sections.map((s: any) => [s.title, s.sectionGroup])).toEqual([['One', undefined]]);
    expect((await t.api.delete(`${groups}/${id}`)).status).toBe(404);
  });
});

describe('section-groups/{siteSectionGroupId}/sections', () => {
  it('adds a section (leaving its former group) and removes it', async () => {
    const { groups, ids } = siteWith('One', 'Two');
    const first = (await t.api.post(groups, { title: 'First', sections: [ids.One] })).body.id;
    const second = (await t.api.post(groups, { title: 'Second' })).body.id;
    const added = await t.api.post(`${groups}/${second}/sections`, { sectionId: ids.One });
    expect(added.status).toBe(200);
    expect(added.body.sections.map((s: any) => [s.title, s.sectionGroup])).toEqual([['One', second]]);
    const all = (await t.api.all(groups)).items;
    expect(all.map((g) => [g.id, g.sections.length])).toEqual([
      [first, 0],
      [second, 1],
    ]);
    expect((await t.api.delete(`${groups}/${first}/sections/${ids.One}`)).status).toBe(404);
    expect((await t.api.delete(`${groups}/${second}/sections/${ids.One}`)).status).toBe(204);
    expect((await t.api.all(groups)).items.every((g) => g.sections.length === 0)).toBe(true);
  });

  it('sectionId is required and must be a section of the site; non-admins 403', async () => {
    const { groups, ids } = siteWith('One');
    const other = siteWith('Elsewhere');
    const id = (await t.api.post(groups, { title: 'G' })).body.id;
    expect((await t.api.post(`${groups}/${id}/sections`, {})).body.error.message).toBe('sectionId: is required');
    expect((await t.api.post(`${groups}/${id}/sections`, { sectionId: other.ids.Elsewhere })).body.error.message).toBe(
      'sectionId: is not a section of this site',
    );
    expect((await as('edit').post(`${groups}/${id}/sections`, { sectionId: ids.One })).status).toBe(403);
    expect((await as('edit').delete(`${groups}/${id}/sections/${ids.One}`)).status).toBe(403);
    expect((await t.api.post(`${groups}/nope/sections`, { sectionId: ids.One })).status).toBe(404);
  });
});

describe('POST section-groups/{siteSectionGroupId}/move', () => {
  it('moves to the end of the site by default, or before / after a section', async () => {
    const { groups, ids } = siteWith('One', 'Two');
    const a = (await t.api.post(groups, { title: 'A' })).body.id;
    const b = (await t.api.post(groups, { title: 'B' })).body.id;
    const c = (await t.api.post(groups, { title: 'C' })).body.id;
    // Site order: One, Two, A, B, C.
    await t.api.post(`${groups}/${a}/move`);
    expect(await groupTitles(groups)).toEqual(['B', 'C', 'A']);
    await t.api.post(`${groups}/${c}/move`, { position: { before: { type: 'site-section', id: ids.One } } });
    expect(await groupTitles(groups)).toEqual(['C', 'B', 'A']);
    const moved = await t.api.post(`${groups}/${a}/move`, { position: { after: { type: 'site-section', id: ids.One } } });
    expect(moved.body.id).toBe(a);
    expect(await groupTitles(groups)).toEqual(['C', 'A', 'B']);
    // Site order now: C, One, A, Two, B; B before One lands between C and One.
    await t.api.post(`${groups}/${b}/move`, { position: { before: { type: 'site-section', id: ids.One } } });
    expect(await groupTitles(groups)).toEqual(['C', 'B', 'A']);
    await t.api.post(`${groups}/${c}/move`, { position: { after: { type: 'site-section', id: ids.Two } } });
    expect(await groupTitles(groups)).toEqual(['B', 'A', 'C']);
  });

  it('rejects both before and after, a section of another site, a wrong pointer shape', async () => {
    const { groups, ids } = siteWith('One');
    const other = siteWith('Elsewhere');
    const id = (await t.api.post(groups, { title: 'G' })).body.id;
    const move = (position: unknown) => t.api.post(`${groups}/${id}/move`, { position });
    const pointer = { type: 'site-section', id: ids.One };
    expect((await move({ before: pointer, after: pointer })).status).toBe(400);
    expect((await move({ before: { type: 'site-section', id: other.ids.Elsewhere } })).body.error.message).toBe(
      'position.before.id: is not a section of this site',
    );
    expect((await move({ before: { type: 'site-section', siteSection: ids.One } })).body.error.message).toBe(
      'position.before.id: is required',
    );
    expect((await as('create').post(`${groups}/${id}/move`)).status).toBe(403);
  });
});
