import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
let base: string;
beforeAll(async () => {
  t = await startUpstream();
  base = `/orgs/${t.world.orgId}/translations`;
});
afterAll(() => t.stop());

const { as } = fixtures(() => t);

describe('translation settings', () => {
  it('POST creates (201) with the default language and the caller’s permissions', async () => {
    const res = await t.api.post(base, { title: 'Docs in French' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'translation-settings',
      title: 'Docs in French',
      languages: ['en'],
      permissions: { view: true, edit: true },
      urls: { location: `${t.url}${base}/${res.body.id}` },
    });
    expect(res.body.createdAt).toBe(res.body.updatedAt);
  });

  it('accepts languages from the official list, without repeats', async () => {
    const res = await t.api.post(base, { title: 'Many', languages: ['fr', 'pt-br', 'zh-tw'] });
    expect(res.body.languages).toEqual(['fr', 'pt-br', 'zh-tw']);
    expect((await t.api.post(base, { title: 'x', languages: ['xx'] })).body.error.message).toMatch(
      /^languages\[0\]: must be one of en, fr/,
    );
    expect((await t.api.post(base, { title: 'x', languages: ['fr', 'fr'] })).body.error.message).toBe(
      'languages: must not repeat a language',
    );
    expect((await t.api.post(base, { title: 'x', languages: [] })).body.error.message).toBe('languages: must have at least 1 item');
  });

  it('title: required, 1..100 characters', async () => {
    expect((await t.api.post(base, { title: 'a'.repeat(100) })).status).toBe(201);
    expect((await t.api.post(base, { title: 'a' })).status).toBe(201);
    const over = await t.api.post(base, { title: 'a'.repeat(101) });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toBe('title: must be at most 100 characters long');
    expect((await t.api.post(base, { title: '' })).body.error.message).toBe('title: must be at least 1 characters long');
    expect((await t.api.post(base, {})).body.error.message).toBe('title: is required');
    expect((await t.api.post(base, { title: 'x', other: 1 })).body.error.message).toBe('other: is not a known field');
  });

  it('GET by id; 404 for an unknown id or another organization’s settings', async () => {
    const created = (await t.api.post(base, { title: 'Fetch me' })).body;
    const res = await t.api.get(`${base}/${created.id}`);
    expect(res.body).toEqual(created);
    expect((await t.api.get(`${base}/unknown`)).status).toBe(404);
    expect((await t.api.get(`/orgs/${t.world.otherOrgId}/translations/${created.id}`)).status).toBe(404);
  });

  it('PUT replaces the title (required) and keeps languages unless given', async () => {
    const created = (await t.api.post(base, { title: 'Before', languages: ['de'] })).body;
    const res = await t.api.put(`${base}/${created.id}`, { title: 'After' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, title: 'After', languages: ['de'] });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    expect((await t.api.put(`${base}/${created.id}`, { title: 'After', languages: ['es'] })).body.languages).toEqual(['es']);
    expect((await t.api.put(`${base}/${created.id}`, {})).body.error.message).toBe('title: is required');
    expect((await t.api.put(`${base}/${created.id}`, { title: 'a'.repeat(101) })).status).toBe(400);
    expect((await t.api.put(`${base}/unknown`, { title: 'x' })).status).toBe(404);
  });

  it('DELETE removes (204), then 404', async () => {
    const created = (await t.api.post(base, { title: 'Doomed' })).body;
    const res = await t.api.delete(`${base}/${created.id}`);
    expect(res.status).toBe(204);
    expect((await t.api.get(`${base}/${created.id}`)).status).toBe(404);
    expect((await t.api.delete(`${base}/${created.id}`)).status).toBe(404);
  });

  it('lists page by page in creation order, no duplicate or gap', async () => {
    const all = (await t.api.get(base, { limit: 1000 })).body;
    expect(all.count).toBeGreaterThanOrEqual(6);
    const walked = await t.api.all(base, { limit: 2 });
    expect(walked.pages).toBe(Math.ceil(all.count / 2));
    expect(walked.items.map((s) => s.id)).toEqual(all.items.map((s: any) => s.id));
    expect(new Set(walked.items.map((s) => s.id)).size).toBe(all.count);
    expect(walked.items[0].title).toBe('Docs in French');
    expect((await t.api.get(`/orgs/${t.world.otherOrgId}/translations`)).body.items).toEqual([]);
  });

  it('roles: create and admin write; edit and below read only; guests 403; outsiders 404', async () => {
    const created = await as('create').post(base, { title: 'By creator' });
    expect(created.status).toBe(201);
    expect((await as('create').put(`${base}/${created.body.id}`, { title: 'Renamed' })).status).toBe(200);
    for (const role of ['edit', 'review', 'comment', 'read'] as const) {
      expect((await as(role).post(base, { title: 'No' })).status).toBe(403);
      expect((await as(role).put(`${base}/${created.body.id}`, { title: 'No' })).status).toBe(403);
      expect((await as(role).delete(`${base}/${created.body.id}`)).status).toBe(403);
      const read = await as(role).get(`${base}/${created.body.id}`);
      expect(read.body.permissions).toEqual({ view: true, edit: false });
    }
    expect((await as('guest').get(base)).status).toBe(403);
    expect((await as('outsider').get(base)).status).toBe(404);
    expect((await as('disabled').get(base)).status).toBe(404);
    expect((await t.api.as(undefined).get(base)).status).toBe(401);
    expect((await as('create').delete(`${base}/${created.body.id}`)).status).toBe(204);
  });
});
