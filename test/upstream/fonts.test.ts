import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
let base: string;
beforeAll(async () => {
  t = await startUpstream();
  base = `/orgs/${t.world.orgId}/fonts`;
});
afterAll(() => t.stop());

const { as } = fixtures(() => t);
const regular = { weight: 400, storageKey: 'fonts/inter/regular.woff2' };
const bold = { weight: 700, storageKey: 'fonts/inter/bold.woff' };
const create = (body: unknown) => t.api.put(base, body);
const origin = () => new URL(t.url).origin;

describe('custom fonts: create', () => {
  it('PUT creates a font (201): faces by weight with a source URL and format', async () => {
    const res = await create({ fontFamily: 'Inter', fontFaces: [bold, regular] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      custom: true,
      fontFamily: 'Inter',
      fontFaces: [
        { weight: 400, sources: [{ url: `${origin()}/files/fonts/inter/regular.woff2`, format: 'woff2' }] },
        { weight: 700, sources: [{ url: `${origin()}/files/fonts/inter/bold.woff`, format: 'woff' }] },
      ],
      permissions: { edit: true },
    });
  });

  it('a storage key without a known extension gives a source without format', async () => {
    const res = await create({ fontFamily: 'Odd', fontFaces: [{ weight: 400, storageKey: 'fonts/odd.ttf' }] });
    expect(res.body.fontFaces[0].sources).toEqual([{ url: `${origin()}/files/fonts/odd.ttf` }]);
  });

  it('fontFamily: required, 1..50 characters', async () => {
    expect((await create({ fontFamily: 'a'.repeat(50), fontFaces: [regular] })).status).toBe(201);
    expect((await create({ fontFamily: 'a', fontFaces: [regular] })).status).toBe(201);
    const over = await create({ fontFamily: 'a'.repeat(51), fontFaces: [regular] });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toBe('fontFamily: must be at most 50 characters long');
    expect((await create({ fontFamily: '', fontFaces: [regular] })).body.error.message).toBe(
      'fontFamily: must be at least 1 characters long',
    );
    expect((await create({ fontFaces: [regular] })).body.error.message).toBe('fontFamily: is required');
  });

  it('fontFaces: at least one, weight 400 among them, no repeated weight, valid faces', async () => {
    const cases: Array<[unknown, string]> = [
      [undefined, 'fontFaces: is required'],
      [[], 'fontFaces: must have at least 1 item'],
      [[bold], 'fontFaces: must include a face of weight 400'],
      [[regular, { ...regular, storageKey: 'other.woff2' }], 'fontFaces: must not repeat a weight'],
      [[{ weight: 400 }], 'fontFaces[0].storageKey: is required'],
      [[{ weight: 400.5, storageKey: 'a' }], 'fontFaces[0].weight: must be an integer'],
      [[regular, { weight: 1001, storageKey: 'a' }], 'fontFaces[1].weight: must be at most 1000'],
      [[{ weight: 400, storageKey: '' }], 'fontFaces[0].storageKey: must be at least 1 characters long'],
      [[{ weight: 400, storageKey: null }], 'fontFaces[0].storageKey: must not be null'],
    ];
    for (const [fontFaces, message] of cases) {
      const res = await create({ fontFamily: 'Bad', fontFaces });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    expect((await create({ fontFamily: 'One', fontFaces: [regular] })).status).toBe(201);
  });
});

describe('custom fonts: read, update, delete', () => {
  it('GET by id; 404 for unknown ids and other organizations', async () => {
    const created = (await create({ fontFamily: 'Lookup', fontFaces: [regular] })).body;
    expect((await t.api.get(`${base}/${created.id}`)).body).toEqual(created);
    expect((await t.api.get(`${base}/unknown`)).status).toBe(404);
    expect((await t.api.get(`/orgs/${t.world.otherOrgId}/fonts/${created.id}`)).status).toBe(404);
  });

  it('POST updates the family and faces by weight; a null storageKey removes a weight', async () => {
    const font = (await create({ fontFamily: 'Mutable', fontFaces: [regular, bold] })).body;
    const renamed = await t.api.post(`${base}/${font.id}`, { fontFamily: 'Renamed' });
    expect(renamed.status).toBe(201);
    expect(renamed.body.fontFamily).toBe('Renamed');
    expect(renamed.body.fontFaces.map((f: any) => f.weight)).toEqual([400, 700]);

    const changed = await t.api.post(`${base}/${font.id}`, {
      fontFaces: [
        { weight: 700, storageKey: null },
        { weight: 300, storageKey: 'fonts/light.woff2' },
        { weight: 400, storageKey: 'fonts/regular-v2.woff2' },
      ],
    });
    expect(changed.body.fontFamily).toBe('Renamed');
    expect(changed.body.fontFaces).toEqual([
      { weight: 300, sources: [{ url: `${origin()}/files/fonts/light.woff2`, format: 'woff2' }] },
      { weight: 400, sources: [{ url: `${origin()}/files/fonts/regular-v2.woff2`, format: 'woff2' }] },
    ]);
    expect((await t.api.get(`${base}/${font.id}`)).body).toEqual(changed.body);
  });

  it('POST: removing weight 400 is a 400, and nothing changes', async () => {
    const font = (await create({ fontFamily: 'Keep', fontFaces: [regular, bold] })).body;
    const res = await t.api.post(`${base}/${font.id}`, { fontFaces: [{ weight: 400, storageKey: null }] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('fontFaces: must keep a face of weight 400');
    expect((await t.api.get(`${base}/${font.id}`)).body).toEqual(font);
  });

  it('POST validates its fields', async () => {
    const font = (await create({ fontFamily: 'Checked', fontFaces: [regular] })).body;
    const post = (body: unknown) => t.api.post(`${base}/${font.id}`, body);
    expect((await post({ fontFamily: 'a'.repeat(50) })).status).toBe(201);
    expect((await post({ fontFamily: 'a'.repeat(51) })).body.error.message).toBe('fontFamily: must be at most 50 characters long');
    expect((await post({ fontFamily: '' })).status).toBe(400);
    expect((await post({ fontFaces: [{ weight: 500 }] })).body.error.message).toBe('fontFaces[0].storageKey: is required');
    expect((await post({ fontFaces: [bold, { ...bold, storageKey: null }] })).body.error.message).toBe(
      'fontFaces: must not repeat a weight',
    );
    expect((await t.api.post(`${base}/unknown`, { fontFamily: 'x' })).status).toBe(404);
  });

  it('DELETE removes (204), then 404', async () => {
    const font = (await create({ fontFamily: 'Doomed', fontFaces: [regular] })).body;
    expect((await t.api.delete(`${base}/${font.id}`)).status).toBe(204);
    expect((await t.api.get(`${base}/${font.id}`)).status).toBe(404);
    expect((await t.api.delete(`${base}/${font.id}`)).status).toBe(404);
  });

  it('lists page by page in creation order, no duplicate or gap', async () => {
    const all = (await t.api.get(base, { limit: 1000 })).body;
    expect(all.count).toBeGreaterThan(5);
    const walked = await t.api.all(base, { limit: 2 });
    expect(walked.pages).toBe(Math.ceil(all.count / 2));
    expect(walked.items.map((f) => f.id)).toEqual(all.items.map((f: any) => f.id));
    expect(new Set(walked.items.map((f) => f.id)).size).toBe(all.count);
    expect(walked.items[0].fontFamily).toBe('Inter');
    expect((await t.api.get(`/orgs/${t.world.otherOrgId}/fonts`)).body.items).toEqual([]);
  });
});

describe('custom fonts: roles', () => {
  it('create and admin write; edit and below read with permissions.edit false', async () => {
    const font = await as('create').put(base, { fontFamily: 'Creator', fontFaces: [regular] });
    expect(font.status).toBe(201);
    expect((await as('create').post(`${base}/${font.body.id}`, { fontFamily: 'Creator 2' })).status).toBe(201);
    for (const role of ['edit', 'review', 'comment', 'read'] as const) {
      expect((await as(role).put(base, { fontFamily: 'No', fontFaces: [regular] })).status).toBe(403);
      expect((await as(role).post(`${base}/${font.body.id}`, { fontFamily: 'No' })).status).toBe(403);
      expect((await as(role).delete(`${base}/${font.body.id}`)).status).toBe(403);
      expect((await as(role).get(`${base}/${font.body.id}`)).body.permissions).toEqual({ edit: false });
    }
    expect((await as('guest').get(base)).status).toBe(403);
    expect((await as('outsider').get(base)).status).toBe(404);
    expect((await t.api.as(undefined).get(base)).status).toBe(401);
    expect((await as('create').delete(`${base}/${font.body.id}`)).status).toBe(204);
  });
});

describe('custom fonts: text that is no Unicode', () => {
  it('a storage key holding half of a surrogate pair is a 400, and stores nothing; the list stays readable', async () => {
    const before = (await t.api.get(base, { limit: 1000 })).body.items.length;
    const res = await create({ fontFamily: 'Half', fontFaces: [{ weight: 400, storageKey: 'fonts/\ud800.woff2' }] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('fontFaces[0].storageKey: must be valid Unicode text (it holds half of a surrogate pair)');
    const list = await t.api.get(base, { limit: 1000 });
    expect([list.status, list.body.items.length]).toEqual([200, before]);
  });

  it('one stored before keys were checked is listed with U+FFFD in its URL, not a 500 for every member', async () => {
    const font = (await create({ fontFamily: 'Old', fontFaces: [regular] })).body;
    t.upstream.db
      .prepare('UPDATE fonts SET faces = ? WHERE id = ?')
      .run(JSON.stringify([{ weight: 400, storageKey: 'fonts/\udc00x.woff2' }]), font.id);
    const list = await as('read').get(base, { limit: 1000 });
    expect(list.status).toBe(200);
    const old = list.body.items.find((f: { id: string }) => f.id === font.id);
    expect(old.fontFaces[0].sources[0].url).toBe(`${origin()}/files/fonts/%EF%BF%BDx.woff2`);
  });
});
