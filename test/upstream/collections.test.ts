import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chars, fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
beforeAll(async () => {
  t = await startUpstream();
});
afterAll(() => t.stop());

const { as, newCollection, newSpace } = fixtures(() => t);

const titles = async (path: string, query = {}) => (await t.api.all(path, query)).items.map((c: any) => c.title);

describe('POST /orgs/{organizationId}/collections', () => {
  it('creates a collection, nested in a parent when given', async () => {
    const res = await t.api.post(`/orgs/${t.world.orgId}/collections`, { title: 'Guides' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(res.body.urls.location);
    expect(res.body).toMatchObject({
      object: 'collection',
      title: 'Guides',
      organization: t.world.orgId,
      defaultLevel: 'read',
      permissions: { admin: true, create: true },
    });
    expect(res.body.parent).toBeUndefined();
    const child = await newCollection({ title: 'Child', parent: res.body.id });
    expect(child.parent).toBe(res.body.id);
    expect((await t.api.post(`/orgs/${t.world.orgId}`, {})).status).toBe(405);
  });

  it('title at most 50; parent must be a collection of the organization; description is not a create field', async () => {
    expect((await newCollection({ title: chars(50) })).title).toHaveLength(50);
    const long = await t.api.post(`/orgs/${t.world.orgId}/collections`, { title: chars(51) });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe('title: must be at most 50 characters long');
    const bad = await t.api.post(`/orgs/${t.world.orgId}/collections`, { parent: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('parent: no collection nope in this organization');
    const description = await t.api.post(`/orgs/${t.world.orgId}/collections`, { description: 'x' });
    expect(description.body.error.message).toBe('description: is not a known field');
  });

  it('needs create in the organization (or on the parent); the creator administers it', async () => {
    expect((await as('edit').post(`/orgs/${t.world.orgId}/collections`, {})).status).toBe(403);
    expect((await as('outsider').post(`/orgs/${t.world.orgId}/collections`, {})).status).toBe(404);
    const mine = await newCollection({ title: 'Created by create' }, as('create'));
    expect(mine.permissions).toEqual({ admin: true, create: true });
  });
});

describe('GET /collections/{collectionId}', () => {
  it('reads by role; guests and outsiders get 404', async () => {
    const c = await newCollection({ title: 'Visible' });
    const reader = await as('read').get(`/collections/${c.id}`);
    expect(reader.status).toBe(200);
    expect(reader.body.permissions).toEqual({ admin: false, create: false });
    expect((await as('guest').get(`/collections/${c.id}`)).status).toBe(404);
    expect((await as('outsider').get(`/collections/${c.id}`)).status).toBe(404);
    expect((await t.api.get('/collections/nope')).status).toBe(404);
  });
});

describe('PATCH /collections/{collectionId}', () => {
  it('updates title, description and defaultLevel, with limits just under and over', async () => {
    const c = await newCollection({ title: 'Patch me' });
    const ok = await t.api.patch(`/collections/${c.id}`, { title: chars(50), description: chars(100), defaultLevel: 'edit' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ title: chars(50), description: chars(100), defaultLevel: 'edit' });
    for (const [body, message] of [
      [{ title: chars(51) }, 'title: must be at most 50 characters long'],
      [{ description: chars(101) }, 'description: must be at most 100 characters long'],
      [{ defaultLevel: 'boss' }, 'defaultLevel: must be one of read, comment, review, edit, create, admin'],
    ] as const) {
      const res = await t.api.patch(`/collections/${c.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
  });

  it('needs admin; defaultLevel caps what members get', async () => {
    const c = await newCollection({ title: 'Levels' });
    expect((await as('create').patch(`/collections/${c.id}`, { title: 'x' })).status).toBe(403);
    await t.api.patch(`/collections/${c.id}`, { defaultLevel: 'create' });
    const creator = await as('create').get(`/collections/${c.id}`);
    expect(creator.body.permissions).toEqual({ admin: false, create: true });
    expect((await as('edit').get(`/collections/${c.id}`)).body.permissions.create).toBe(false);
  });
});

describe('permissions.create', () => {
  it('is true exactly when the caller may create content in the collection', async () => {
    const c = await newCollection({ title: 'Read by default' });
    expect(c.defaultLevel).toBe('read');
    const canCreate = async (who: Parameters<typeof as>[0]) => {
      const flag = (await as(who).get(`/collections/${c.id}`)).body.permissions.create;
      const res = await as(who).post(`/orgs/${t.world.orgId}/spaces`, { title: `By ${who}`, parent: c.id });
      expect(res.status, who).toBe(flag ? 201 : 403);
      return flag;
    };
    // The organization role create lets a member create in any collection, whatever its default level.
    expect(await canCreate('create')).toBe(true);
    expect(await canCreate('edit')).toBe(false);
    await t.api.post(`/collections/${c.id}/permissions`, { role: 'create', users: [t.world.users.edit.id] });
    expect(await canCreate('edit')).toBe(true);
    expect(await canCreate('read')).toBe(false);
  });
});

describe('GET /collections/{collectionId}/spaces', () => {
  it('pages through the spaces the caller can read', async () => {
    const c = await newCollection({ title: 'Shelf' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await newSpace({ title: `Book ${i}`, parent: c.id })).id);
    await newSpace({ title: 'Elsewhere' });
    const walked = await t.api.all(`/collections/${c.id}/spaces`, { limit: 2 });
    expect(walked.items.map((s: any) => s.id)).toEqual(ids);
    expect(walked.pages).toBe(3);
    // A guest granted one space sees that one only; a grant on the collection opens them all.
    await t.api.post(`/spaces/${ids[2]}/permissions`, { role: 'read', users: [t.world.users.guest.id] });
    expect((await as('guest').get(`/collections/${c.id}/spaces`)).status).toBe(404);
    await t.api.post(`/collections/${c.id}/permissions`, { role: 'read', users: [t.world.users.guest.id] });
    const guest = await as('guest').all(`/collections/${c.id}/spaces`);
    expect(guest.items.map((s: any) => s.id)).toEqual(ids);
    await t.api.delete(`/spaces/${ids[0]}`);
    expect((await t.api.all(`/collections/${c.id}/spaces`)).items.map((s: any) => s.id)).toEqual(ids.slice(1));
  });
});

describe('GET /orgs/{organizationId}/collections', () => {
  it('lists nested collections by default, top-level only with nested=false', async () => {
    const { orgId } = t.world;
    const top = await newCollection({ title: 'Top' });
    const nested = await newCollection({ title: 'Nested', parent: top.id });
    const all = (await t.api.all(`/orgs/${orgId}/collections`)).items.map((c: any) => c.id);
    expect(all).toEqual(expect.arrayContaining([top.id, nested.id]));
    const topOnly = (await t.api.all(`/orgs/${orgId}/collections`, { nested: false })).items;
    expect(topOnly.map((c: any) => c.id)).toContain(top.id);
    expect(topOnly.every((c: any) => c.parent === undefined)).toBe(true);
    expect((await t.api.get(`/orgs/${orgId}/collections`, { nested: 'maybe' })).status).toBe(400);
    expect((await as('outsider').get(`/orgs/${orgId}/collections`)).status).toBe(404);
  });

  it('pages to the end with no duplicate and no gap', async () => {
    for (let i = 0; i < 4; i++) await newCollection({ title: `Paged ${i}` });
    const all = (await t.api.all(`/orgs/${t.world.orgId}/collections`, { limit: 1000 })).items.map((c: any) => c.id);
    const walked = await t.api.all(`/orgs/${t.world.orgId}/collections`, { limit: 3 });
    expect(walked.items.map((c: any) => c.id)).toEqual(all);
    expect(new Set(all).size).toBe(all.length);
    expect(walked.pages).toBe(Math.ceil(all.length / 3));
  });

  it('lists for a guest only the collections granted to them', async () => {
    const c = await newCollection({ title: 'Guest only' });
    const before = (await as('guest').all(`/orgs/${t.world.orgId}/collections`)).items.map((x: any) => x.id);
    expect(before).not.toContain(c.id);
    await t.api.post(`/collections/${c.id}/permissions`, { role: 'read', users: [t.world.users.guest.id] });
    const after = (await as('guest').all(`/orgs/${t.world.orgId}/collections`)).items.map((x: any) => x.id);
    expect(after).toEqual([...before, c.id]);
  });
});

describe('POST /collections/{collectionId}/move', () => {
  it('orders before/after siblings and reparents', async () => {
    const parent = await newCollection({ title: 'Parent' });
    const [x, y, z] = [
      await newCollection({ title: 'X', parent: parent.id }),
      await newCollection({ title: 'Y', parent: parent.id }),
      await newCollection({ title: 'Z', parent: parent.id }),
    ];
    const order = async () =>
      (await t.api.all(`/orgs/${t.world.orgId}/collections`)).items
        .filter((c: any) => c.parent === parent.id)
        .map((c: any) => c.title)
        .join('');
    expect(await order()).toBe('XYZ');
    const moved = await t.api.post(`/collections/${z.id}/move`, { position: { before: { type: 'collection', collection: x.id } } });
    expect(moved.status).toBe(200);
    expect(await order()).toBe('ZXY');
    await t.api.post(`/collections/${z.id}/move`, { position: { after: { type: 'collection', collection: x.id } } });
    expect(await order()).toBe('XZY');
    const out = await t.api.post(`/collections/${y.id}/move`, { parent: null });
    expect(out.body.parent).toBeUndefined();
    expect(await order()).toBe('XZ');
    const back = await t.api.post(`/collections/${y.id}/move`, { parent: parent.id });
    expect(back.body.parent).toBe(parent.id);
    expect(await order()).toBe('XZY');
  });

  it('rejects moving into itself or a nested collection, and bad positions (400)', async () => {
    const a = await newCollection({ title: 'A' });
    const b = await newCollection({ title: 'B', parent: a.id });
    const c = await newCollection({ title: 'C', parent: b.id });
    for (const parent of [a.id, b.id, c.id]) {
      const res = await t.api.post(`/collections/${a.id}/move`, { parent });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('parent: cannot move a collection into itself or one of its nested collections');
    }
    const both = await t.api.post(`/collections/${b.id}/move`, {
      position: { before: { type: 'collection', collection: c.id }, after: { type: 'collection', collection: c.id } },
    });
    expect(both.status).toBe(400);
    const foreign = await newCollection({ title: 'Foreign' }, t.api, t.world.otherOrgId);
    const other = await t.api.post(`/collections/${b.id}/move`, { position: { after: { type: 'collection', collection: foreign.id } } });
    expect(other.status).toBe(400);
    expect(other.body.error.message).toMatch(/^position\.after: no collection/);
    expect((await as('read').post(`/collections/${b.id}/move`, { parent: null })).status).toBe(403);
  });
});

describe('POST /collections/{collectionId}/transfer', () => {
  it('moves the collection with its nested collections and spaces to another organization', async () => {
    const top = await newCollection({ title: 'Moving out' });
    const inner = await newCollection({ title: 'Inner', parent: top.id });
    const s1 = await newSpace({ title: 'Top space', parent: top.id });
    const s2 = await newSpace({ title: 'Inner space', parent: inner.id });
    const res = await t.api.post(`/collections/${top.id}/transfer`, { organization: t.world.otherOrgId });
    expect(res.status).toBe(200);
    expect(res.body.organization).toBe(t.world.otherOrgId);
    expect(res.body.parent).toBeUndefined();
    expect((await t.api.get(`/collections/${inner.id}`)).body).toMatchObject({ organization: t.world.otherOrgId, parent: top.id });
    for (const s of [s1, s2]) expect((await t.api.get(`/spaces/${s.id}`)).body.organization).toBe(t.world.otherOrgId);
    const globex = (await t.api.all(`/orgs/${t.world.otherOrgId}/collections`)).items.map((c: any) => c.id);
    expect(globex).toEqual(expect.arrayContaining([top.id, inner.id]));
    expect((await t.api.all(`/orgs/${t.world.orgId}/collections`)).items.map((c: any) => c.id)).not.toContain(top.id);
    expect((await as('outsider').get(`/spaces/${s2.id}`)).status).toBe(200);
    expect((await as('read').get(`/spaces/${s2.id}`)).status).toBe(404);
  });

  it('needs admin on the collection and create in the target; same organization is a conflict', async () => {
    const c = await newCollection({ title: 'Staying' }, as('create'));
    expect((await as('create').post(`/collections/${c.id}/transfer`, { organization: t.world.otherOrgId })).status).toBe(404);
    expect((await as('read').post(`/collections/${c.id}/transfer`, { organization: t.world.otherOrgId })).status).toBe(403);
    expect((await t.api.post(`/collections/${c.id}/transfer`, { organization: t.world.orgId })).status).toBe(409);
    expect((await t.api.post(`/collections/${c.id}/transfer`, {})).status).toBe(400);
  });
});

describe('DELETE /collections/{collectionId}', () => {
  it('deletes nested collections; their spaces move to the organization root', async () => {
    const top = await newCollection({ title: 'Doomed' });
    const inner = await newCollection({ title: 'Doomed inner', parent: top.id });
    const space = await newSpace({ title: 'Survivor', parent: inner.id });
    expect((await as('create').delete(`/collections/${top.id}`)).status).toBe(403);
    const res = await t.api.delete(`/collections/${top.id}`);
    expect(res.status).toBe(204);
    expect((await t.api.get(`/collections/${top.id}`)).status).toBe(404);
    expect((await t.api.get(`/collections/${inner.id}`)).status).toBe(404);
    const survivor = (await t.api.get(`/spaces/${space.id}`)).body;
    expect(survivor.parent).toBeUndefined();
    expect(survivor.visibility).toBe('private');
    expect(await titles(`/orgs/${t.world.orgId}/spaces`)).toContain('Survivor');
    expect((await t.api.delete(`/collections/${top.id}`)).status).toBe(404);
  });
});

describe('how deep collections nest', () => {
  it('32 levels at most: a 33rd is refused (400) on create and on move, with nothing changed; reads, lists and deletes stay whole', async () => {
    const chain = [await newCollection({ title: 'Level 1' })];
    for (let level = 2; level <= 32; level++) chain.push(await newCollection({ title: `Level ${level}`, parent: chain.at(-1)!.id }));
    const deeper = await t.api.post(`/orgs/${t.world.orgId}/collections`, { title: 'Level 33', parent: chain.at(-1)!.id });
    expect([deeper.status, deeper.body.error.message]).toEqual([400, 'parent: collections nest at most 32 levels']);
    // A pair (a collection and one nested in it) fits under level 31, not under 32.
    const pair = await newCollection({ title: 'Pair' });
    await newCollection({ title: 'Pair child', parent: pair.id });
    expect((await t.api.post(`/collections/${pair.id}/move`, { parent: chain[29].id })).status).toBe(200);
    const tooDeep = await t.api.post(`/collections/${pair.id}/move`, { parent: chain[30].id });
    expect([tooDeep.status, tooDeep.body.error.message]).toEqual([400, 'parent: collections nest at most 32 levels']);
    expect((await t.api.get(`/collections/${pair.id}`)).body.parent).toBe(chain[29].id);
    // The deepest reads for a member of every role; the nested list answers; the top deletes the chain.
    expect((await as('read').get(`/collections/${chain.at(-1)!.id}`)).status).toBe(200);
    expect((await as('read').get(`/orgs/${t.world.orgId}/collections`, { nested: true, limit: 1000 })).status).toBe(200);
    expect((await t.api.delete(`/collections/${chain[0].id}`)).status).toBe(204);
    expect((await t.api.get(`/collections/${chain.at(-1)!.id}`)).status).toBe(404);
  });
});
