import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editChangeRequestPages } from '../../src/upstream/content/merge.js';
import { pagesOf } from '../../src/upstream/content/revisions.js';
import { createSite } from '../../src/upstream/domain/sites.js';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import { chars, fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
beforeAll(async () => {
  t = await startUpstream();
});
afterAll(() => t.stop());

const { as, newSpace, newCollection } = fixtures(() => t);

async function orgSpaceIds(orgId = t.world.orgId): Promise<string[]> {
  return (await t.api.all(`/orgs/${orgId}/spaces`, { limit: 1000 })).items.map((s: any) => s.id);
}

describe('POST /orgs/{organizationId}/spaces', () => {
  it('creates a space with a first revision holding an Introduction page', async () => {
    const res = await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Handbook', emoji: '📘' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(res.body.urls.location);
    expect(res.body).toMatchObject({
      object: 'space',
      title: 'Handbook',
      emoji: '📘',
      organization: t.world.orgId,
      visibility: 'private',
      editMode: 'live',
      changeRequests: 0,
      comments: 0,
      permissions: { access: true, admin: true, edit: true },
    });
    expect(res.body.parent).toBeUndefined();
    const pages = pagesOf(t.upstream.db, res.body.revision);
    expect(pages.map((p) => p.title)).toEqual(['Introduction']);
  });

  it('accepts no body, and the deprecated `private` flag', async () => {
    expect((await t.api.post(`/orgs/${t.world.orgId}/spaces`)).status).toBe(201);
    expect((await t.api.post(`/orgs/${t.world.orgId}/spaces`, { private: true })).status).toBe(201);
    const res = await t.api.post(`/orgs/${t.world.orgId}/spaces`, { private: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('private: must be a boolean, got string');
  });

  it('enforces title and emoji at most 50 characters', async () => {
    expect((await newSpace({ title: chars(50), emoji: chars(50) })).title).toHaveLength(50);
    for (const field of ['title', 'emoji']) {
      const res = await t.api.post(`/orgs/${t.world.orgId}/spaces`, { [field]: chars(51) });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(`${field}: must be at most 50 characters long`);
    }
    const unknown = await t.api.post(`/orgs/${t.world.orgId}/spaces`, { color: 'red' });
    expect(unknown.body.error.message).toBe('color: is not a known field');
  });

  it('needs the create role in the organization, or on the parent collection', async () => {
    expect((await as('edit').post(`/orgs/${t.world.orgId}/spaces`, {})).status).toBe(403);
    expect((await as('guest').post(`/orgs/${t.world.orgId}/spaces`, {})).status).toBe(403);
    expect((await as('outsider').post(`/orgs/${t.world.orgId}/spaces`, {})).status).toBe(404);
    // A create member becomes admin of the space they create.
    const mine = await newSpace({ title: 'Mine' }, as('create'));
    expect(mine.permissions.admin).toBe(true);
    // A guest with create on a collection may create spaces in it, not at the root.
    const collection = await newCollection({ title: 'Guest corner' });
    const grant = await t.api.post(`/collections/${collection.id}/permissions`, { role: 'create', users: [t.world.users.guest.id] });
    expect(grant.status).toBe(204);
    const inside = await newSpace({ title: 'By guest', parent: collection.id }, as('guest'));
    expect(inside).toMatchObject({ parent: collection.id, visibility: 'in-collection' });
    expect((await as('guest').post(`/orgs/${t.world.orgId}/spaces`, { title: 'Root' })).status).toBe(403);
  });

  it('rejects a parent that is not a collection of the organization', async () => {
    const foreign = await newCollection({ title: 'Globex things' }, t.api, t.world.otherOrgId);
    for (const parent of ['nope', foreign.id]) {
      const res = await t.api.post(`/orgs/${t.world.orgId}/spaces`, { parent });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/^parent: no collection/);
    }
  });
});

describe('GET /spaces/{spaceId}', () => {
  it('answers by role: readers see it without edit rights, outsiders and guests get 404', async () => {
    const space = await newSpace({ title: 'Readable' });
    const reader = await as('read').get(`/spaces/${space.id}`);
    expect(reader.status).toBe(200);
    expect(reader.body.permissions).toEqual({ access: true, admin: false, edit: false, comment: false, merge: false, review: false });
    expect((await as('outsider').get(`/spaces/${space.id}`)).status).toBe(404);
    expect((await as('guest').get(`/spaces/${space.id}`)).status).toBe(404);
    expect((await as('disabled').get(`/spaces/${space.id}`)).status).toBe(404);
    expect((await t.api.get('/spaces/unknown')).status).toBe(404);
  });

  it('anonymous callers read public and unlisted spaces only (else 401); an unknown share key opens nothing', async () => {
    const space = await newSpace({ title: 'Open' });
    const anonymous = t.api.as(undefined);
    expect((await anonymous.get(`/spaces/${space.id}`)).status).toBe(401);
    expect((await anonymous.get(`/spaces/${space.id}`, { shareKey: 'not-a-key' })).status).toBe(401);
    // The same answer for a space that does not exist: no token, nothing told.
    expect((await anonymous.get('/spaces/unknown')).body.error).toEqual({
      code: 401,
      message: 'A valid access token or share key is required',
    });
    for (const visibility of ['public', 'unlisted']) {
      t.upstream.db.prepare('UPDATE spaces SET visibility = ? WHERE id = ?').run(visibility, space.id);
      const res = await anonymous.get(`/spaces/${space.id}`);
      expect(res.status).toBe(200);
      expect(res.body.permissions).toMatchObject({ access: true, edit: false, admin: false });
      expect(res.body.urls.published).toEqual(expect.stringMatching(/^http/));
    }
    expect((await anonymous.get(`/orgs/${t.world.orgId}/spaces`)).status).toBe(401);
  });
  it('a share key of a published share-link site opens the spaces it publishes, read-only', async () => {
    const published = await newSpace({ title: 'Shared' });
    const other = await newSpace({ title: 'Not shared' });
    const site = createSite(t.upstream.db, new Date().toISOString(), {
      organizationId: t.world.orgId,
      title: 'Partner site',
      visibility: 'share-link',
      published: true,
      spaceIds: [published.id],
    });
    const link = await t.api.post(`/orgs/${t.world.orgId}/sites/${site.id}/share-links`, { name: 'Partners' });
    const shareKey = new URL(link.body.urls.published).searchParams.get('shareKey')!;
    const anonymous = t.api.as(undefined);
    const res = await anonymous.get(`/spaces/${published.id}`, { shareKey });
    expect(res.status).toBe(200);
    expect(res.body.permissions).toMatchObject({ access: true, edit: false, admin: false, comment: false });
    expect((await anonymous.get(`/spaces/${other.id}`, { shareKey })).status).toBe(401);
    expect((await as('outsider').get(`/spaces/${other.id}`, { shareKey })).status).toBe(404);
    await t.api.delete(`/spaces/${published.id}`);
    expect((await anonymous.get(`/spaces/${published.id}`, { shareKey })).status).toBe(401);
  });
});

describe('PATCH /spaces/{spaceId}', () => {
  it('edit role may change title and emoji; admin role is needed for defaultLevel and editMode', async () => {
    const space = await newSpace({ title: 'Patchable' });
    const path = `/spaces/${space.id}`;
    // New spaces give members at most `read` (defaultLevel), so the editor is a reader here.
    expect((await as('edit').patch(path, { title: 'Nope' })).status).toBe(403);
    const raised = await t.api.patch(path, { defaultLevel: 'edit' });
    expect(raised.status).toBe(200);
    expect(raised.body.defaultLevel).toBe('edit');
    const edited = await as('edit').patch(path, { title: 'By editor', emoji: '✏️' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ title: 'By editor', emoji: '✏️', permissions: { edit: true, admin: false } });
    expect(Date.parse(edited.body.updatedAt)).toBeGreaterThan(Date.parse(space.updatedAt));
    expect((await as('edit').patch(path, { defaultLevel: 'admin' })).status).toBe(403);
    expect((await as('edit').patch(path, { editMode: 'locked' })).status).toBe(403);
    expect((await as('review').patch(path, { title: 'Reviewer' })).status).toBe(403);
    expect((await as('outsider').patch(path, { title: 'Outsider' })).status).toBe(404);
  });

  it('an empty PATCH needs edit too: read and guest callers of a public space get 403, nothing changes', async () => {
    const space = await newSpace({ title: 'Untouched' });
    const path = `/spaces/${space.id}`;
    t.upstream.db.prepare(`UPDATE spaces SET visibility = 'public' WHERE id = ?`).run(space.id);
    for (const who of ['read', 'guest', 'review'] as const) {
      const res = await as(who).patch(path, {});
      expect(res.status, who).toBe(403);
    }
    expect((await t.api.get(path)).body.updatedAt).toBe(space.updatedAt);
    expect((await t.api.patch(path, {})).status).toBe(200);
  });

  it('editMode live/locked: locked turns off edit and merge', async () => {
    const space = await newSpace({ title: 'Lockable' });
    const locked = await t.api.patch(`/spaces/${space.id}`, { editMode: 'locked' });
    expect(locked.body).toMatchObject({ editMode: 'locked', permissions: { edit: false, merge: false, admin: true } });
    const live = await t.api.patch(`/spaces/${space.id}`, { editMode: 'live' });
    expect(live.body).toMatchObject({ editMode: 'live', permissions: { edit: true, merge: true } });
  });

  it('validates fields: title/emoji 50 ok, 51 rejected; enums', async () => {
    const space = await newSpace({ title: 'Limits' });
    const ok = await t.api.patch(`/spaces/${space.id}`, { title: chars(50), emoji: chars(50) });
    expect(ok.status).toBe(200);
    for (const [body, message] of [
      [{ title: chars(51) }, 'title: must be at most 50 characters long'],
      [{ emoji: chars(51) }, 'emoji: must be at most 50 characters long'],
      [{ editMode: 'frozen' }, 'editMode: must be one of live, locked'],
      [{ defaultLevel: 'owner' }, 'defaultLevel: must be one of read, comment, review, edit, create, admin'],
    ] as const) {
      const res = await t.api.patch(`/spaces/${space.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
  });
});

describe('space lifecycle', () => {
  it('delete → visible to admins only, with deletedAt → restore → active', async () => {
    const space = await newSpace({ title: 'Lifecycle' });
    await t.api.patch(`/spaces/${space.id}`, { defaultLevel: 'edit' });
    expect((await as('edit').delete(`/spaces/${space.id}`)).status).toBe(403);
    const deleted = await t.api.delete(`/spaces/${space.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    const seen = await t.api.get(`/spaces/${space.id}`);
    expect(seen.status).toBe(200);
    expect(seen.body.deletedAt).toEqual(expect.any(String));
    expect((await as('edit').get(`/spaces/${space.id}`)).status).toBe(404);
    expect(await orgSpaceIds()).not.toContain(space.id);
    expect((await t.api.delete(`/spaces/${space.id}`)).status).toBe(404);
    expect((await t.api.patch(`/spaces/${space.id}`, { title: 'x' })).status).toBe(404);
    expect((await as('edit').post(`/spaces/${space.id}/restore`)).status).toBe(404);
    const restored = await t.api.post(`/spaces/${space.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.deletedAt).toBeUndefined();
    expect(await orgSpaceIds()).toContain(space.id);
    expect((await t.api.post(`/spaces/${space.id}/restore`)).status).toBe(409);
  });

  it('restores within 7 days; after 8 days the space is gone for good', async () => {
    const recent = await newSpace({ title: 'Six days' });
    const old = await newSpace({ title: 'Eight days' });
    await t.api.delete(`/spaces/${recent.id}`);
    await t.api.delete(`/spaces/${old.id}`);
    t.clock.advanceDays(6);
    expect((await t.api.post(`/spaces/${recent.id}/restore`)).status).toBe(200);
    t.clock.advanceDays(2);
    expect((await t.api.post(`/spaces/${old.id}/restore`)).status).toBe(404);
    expect((await t.api.get(`/spaces/${old.id}`)).status).toBe(404);
    expect(t.upstream.db.prepare('SELECT 1 FROM spaces WHERE id = ?').get(old.id)).toBeUndefined();
    expect((await t.api.get(`/spaces/${recent.id}`)).status).toBe(200);
  });

  it('lists purge spaces past their restore window', async () => {
    const space = await newSpace({ title: 'Purged by list' });
    await t.api.delete(`/spaces/${space.id}`);
    t.clock.advanceDays(8);
    await orgSpaceIds();
    expect(t.upstream.db.prepare('SELECT 1 FROM spaces WHERE id = ?').get(space.id)).toBeUndefined();
  });
});

describe('POST /spaces/{spaceId}/duplicate', () => {
  it('copies title (copy), emoji, settings and pages into a new space and revision', async () => {
    const original = await newSpace({ title: 'Original', emoji: '🧬' });
    await t.api.patch(`/spaces/${original.id}`, { editMode: 'locked', defaultLevel: 'comment' });
    const res = await t.api.post(`/spaces/${original.id}/duplicate`);
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(res.body.urls.location);
    const copy = res.body;
    expect(copy).toMatchObject({
      title: 'Original (copy)',
      emoji: '🧬',
      editMode: 'locked',
      defaultLevel: 'comment',
      visibility: 'private',
    });
    expect(copy.id).not.toBe(original.id);
    expect(copy.revision).not.toBe(original.revision);
    const strip = (rev: string) => pagesOf(t.upstream.db, rev).map((p) => ({ title: p.title, path: p.path, markdown: p.markdown }));
    expect(strip(copy.revision)).toEqual(strip(original.revision));
  });

  it('keeps the title within 50 characters', async () => {
    const original = await newSpace({ title: chars(50) });
    const copy = (await t.api.post(`/spaces/${original.id}/duplicate`)).body;
    expect(copy.title).toBe(`${chars(43)} (copy)`);
    expect(copy.title).toHaveLength(50);
  });

  it('needs read on the space and create in the organization', async () => {
    const original = await newSpace({ title: 'To copy' });
    expect((await as('read').post(`/spaces/${original.id}/duplicate`)).status).toBe(403);
    expect((await as('outsider').post(`/spaces/${original.id}/duplicate`)).status).toBe(404);
    const byCreator = await as('create').post(`/spaces/${original.id}/duplicate`);
    expect(byCreator.status).toBe(201);
    expect(byCreator.body.permissions.admin).toBe(true);
  });
});

describe('POST /spaces/{spaceId}/move', () => {
  it('orders siblings before/after, default the end', async () => {
    const folder = await newCollection({ title: 'Ordering' });
    const made = [];
    for (const title of ['A', 'B', 'C']) made.push(await newSpace({ title, parent: folder.id }));
    const ids = Object.fromEntries(made.map((s) => [s.title, s.id]));
    const order = async () => (await t.api.all(`/collections/${folder.id}/spaces`)).items.map((s: any) => s.title).join('');
    expect(await order()).toBe('ABC');
    const moved = await t.api.post(`/spaces/${ids.C}/move`, { position: { before: { type: 'space', space: ids.A } } });
    expect(moved.status).toBe(200);
    expect(await order()).toBe('CAB');
    await t.api.post(`/spaces/${ids.C}/move`, { position: { after: { type: 'space', space: ids.A } } });
    expect(await order()).toBe('ACB');
    await t.api.post(`/spaces/${ids.A}/move`, { position: { after: { type: 'space', space: ids.B } } });
    expect(await order()).toBe('CBA');
    await t.api.post(`/spaces/${ids.C}/move`, {});
    expect(await order()).toBe('BAC');
    // Repeated inserts between the same neighbours keep a strict order.
    for (let i = 0; i < 5; i++) {
      await t.api.post(`/spaces/${ids.C}/move`, { position: { after: { type: 'space', space: ids.B } } });
      await t.api.post(`/spaces/${ids.A}/move`, { position: { before: { type: 'space', space: ids.C } } });
    }
    expect(await order()).toBe('BAC');
  });

  it('moves into a collection (next to a collection too) and back to the root', async () => {
    const folder = await newCollection({ title: 'Destination' });
    const sub = (await t.api.post(`/orgs/${t.world.orgId}/collections`, { title: 'Sub', parent: folder.id })).body;
    const space = await newSpace({ title: 'Traveller' });
    const inside = await t.api.post(`/spaces/${space.id}/move`, { parent: folder.id });
    expect(inside.body.parent).toBe(folder.id);
    const next = await t.api.post(`/spaces/${space.id}/move`, { position: { before: { type: 'collection', collection: sub.id } } });
    expect(next.status).toBe(200);
    expect(next.body.parent).toBe(folder.id);
    const ids = (await t.api.all(`/collections/${folder.id}/spaces`)).items.map((s: any) => s.id);
    expect(ids).toEqual([space.id]);
    const root = await t.api.post(`/spaces/${space.id}/move`, { parent: null });
    expect(root.status).toBe(200);
    expect(root.body.parent).toBeUndefined();
  });

  it('leaving a collection turns in-collection visibility into private', async () => {
    const folder = await newCollection({ title: 'Visibility' });
    const space = await newSpace({ title: 'In', parent: folder.id });
    expect(space.visibility).toBe('in-collection');
    expect((await t.api.post(`/spaces/${space.id}/move`, { parent: null })).body.visibility).toBe('private');
  });

  it('rejects before and after together, unknown or foreign targets, and a bad parent (400)', async () => {
    const space = await newSpace({ title: 'Picky' });
    const other = await newSpace({ title: 'Other' });
    const foreign = await newSpace({ title: 'Foreign' }, t.api, t.world.otherOrgId);
    const cases: Array<[unknown, RegExp]> = [
      [
        { position: { before: { type: 'space', space: other.id }, after: { type: 'space', space: other.id } } },
        /^position: must give before or after, not both/,
      ],
      [{ position: { before: { type: 'space', space: 'nope' } } }, /^position\.before: no space nope/],
      [{ position: { after: { type: 'space', space: foreign.id } } }, /^position\.after: no space/],
      [{ position: { after: { type: 'space', space: space.id } } }, /^position\.after: cannot place an item next to itself/],
      [{ position: { after: { type: 'space', collection: 'x' } } }, /^position\.after: must give `space` for type space/],
      [{ position: { after: { type: 'team', space: other.id } } }, /^position\.after\.type: must be one of space, collection/],
      [{ parent: 'nope' }, /^parent: no collection nope/],
    ];
    for (const [body, message] of cases) {
      const res = await t.api.post(`/spaces/${space.id}/move`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toMatch(message);
    }
    const folder = await newCollection({ title: 'Mismatch' });
    const res = await t.api.post(`/spaces/${space.id}/move`, {
      parent: folder.id,
      position: { before: { type: 'space', space: other.id } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^position\.before: is not in the destination/);
  });

  it('needs admin on the space', async () => {
    const space = await newSpace({ title: 'Guarded' });
    expect((await as('create').post(`/spaces/${space.id}/move`, {})).status).toBe(403);
    expect((await as('outsider').post(`/spaces/${space.id}/move`, {})).status).toBe(404);
  });
});

describe('POST /spaces/{spaceId}/transfer', () => {
  it('moves the space to the root of another organization (acme → globex)', async () => {
    const folder = await newCollection({ title: 'Leaving' });
    const space = await newSpace({ title: 'Emigrant', parent: folder.id });
    const res = await t.api.post(`/spaces/${space.id}/transfer`, { organization: t.world.otherOrgId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ organization: t.world.otherOrgId, visibility: 'private' });
    expect(res.body.parent).toBeUndefined();
    expect(await orgSpaceIds(t.world.otherOrgId)).toContain(space.id);
    expect(await orgSpaceIds()).not.toContain(space.id);
    // The globex admin now administers it; acme members no longer see it.
    expect((await as('outsider').get(`/spaces/${space.id}`)).body.permissions.admin).toBe(true);
    expect((await as('read').get(`/spaces/${space.id}`)).status).toBe(404);
    const back = await t.api.post(`/spaces/${space.id}/transfer`, { organization: t.world.orgId });
    expect(back.body.organization).toBe(t.world.orgId);
  });

  it('needs admin on the space and create in the target organization', async () => {
    const space = await newSpace({ title: 'Mine to move' }, as('create'));
    const res = await as('create').post(`/spaces/${space.id}/transfer`, { organization: t.world.otherOrgId });
    expect(res.status).toBe(404);
    expect((await as('read').post(`/spaces/${space.id}/transfer`, { organization: t.world.otherOrgId })).status).toBe(403);
    expect((await t.api.post(`/spaces/${space.id}/transfer`, { organization: t.world.orgId })).status).toBe(409);
    const missing = await t.api.post(`/spaces/${space.id}/transfer`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe('organization: is required');
    const unknown = await t.api.post(`/spaces/${space.id}/transfer`, { organization: 'nowhere' });
    expect(unknown.body.error).toEqual({ code: 404, message: 'organization: Organization not found' });
    // The creator's grant does not follow the space into an organization they are not in.
    await t.api.post(`/spaces/${space.id}/transfer`, { organization: t.world.otherOrgId });
    expect((await as('create').get(`/spaces/${space.id}`)).status).toBe(404);
  });
});

describe('GET /spaces/{spaceId}/links', () => {
  const pages = [
    {
      title: 'Home',
      markdown: [
        '# Home',
        'See [setup](guides/setup), [by id](page:PAGE_ID), [gone](missing-page) and [web](https://example.com/x).',
        'App: [dashboard](/app/o/acme) and ![logo](logo.png) and `[code](not-a-link)` and [anchor](#top).',
      ].join('\n'),
    },
    { title: 'Setup', path: 'guides/setup', markdown: 'Back [home](../home.md), [sibling](advanced), [dead](page:nope).' },
    { title: 'Advanced', path: 'guides/advanced', markdown: 'Nothing.' },
  ];

  function spaceWithLinks() {
    const db = t.upstream.db;
    const row = insertSpace(db, new Date().toISOString(), { organizationId: t.world.orgId, title: 'Links', pages });
    const setupId = pagesOf(db, row.revision_id).find((p) => p.title === 'Setup')!.page_id;
    db.prepare('UPDATE pages SET markdown = replace(markdown, ?, ?) WHERE revision_id = ?').run('PAGE_ID', setupId, row.revision_id);
    return { row, setupId };
  }

  it('lists links with status ok, broken and in-app, and stats', async () => {
    const { row, setupId } = spaceWithLinks();
    const res = await t.api.get(`/spaces/${row.id}/links`);
    expect(res.status).toBe(200);
    const summary = res.body.items.map((l: any) => `${l.status} ${l.url}`);
    expect(summary).toEqual([
      'ok guides/setup',
      `ok page:${setupId}`,
      'broken missing-page',
      'ok https://example.com/x',
      'in-app /app/o/acme',
      'ok ../home.md',
      'ok advanced',
      'broken page:nope',
    ]);
    expect(res.body.items[0]).toMatchObject({ target: { kind: 'page', page: setupId }, source: { kind: 'page' } });
    expect(res.body.items[4].target).toEqual({ kind: 'url', url: `${new URL(t.url).origin}/app/o/acme` });
    expect(res.body.stats).toEqual({ total: 8, broken: { total: 2, changeRequest: 0 } });
    expect(res.body.count).toBe(8);
  });

  it('filters by status, pages, and counts broken links of open change requests', async () => {
    const { row } = spaceWithLinks();
    const broken = await t.api.get(`/spaces/${row.id}/links`, { status: 'broken' });
    expect(broken.body.items.map((l: any) => l.url)).toEqual(['missing-page', 'page:nope']);
    const inApp = await t.api.get(`/spaces/${row.id}/links`, { status: 'in-app' });
    expect(inApp.body.count).toBe(1);
    expect((await t.api.get(`/spaces/${row.id}/links`, { status: 'dead' })).status).toBe(400);
    const walked = await t.api.all(`/spaces/${row.id}/links`, { limit: 3 });
    expect(walked.pages).toBe(3);
    expect(walked.items).toHaveLength(8);
    const cr = await t.api.post(`/spaces/${row.id}/change-requests`, { subject: 'Draft' });
    expect(cr.status).toBe(201);
    await t.api.patch(`/spaces/${row.id}/change-requests/${cr.body.id}`, { status: 'open' });
    expect((await t.api.get(`/spaces/${row.id}/links`)).body.stats.broken).toEqual({ total: 2, changeRequest: 2 });
  });

  it('a walk keeps to the revision it started on, even when a merge changes the space meanwhile', async () => {
    const { row } = spaceWithLinks();
    const path = `/spaces/${row.id}/links`;
    const first = await t.api.get(path, { limit: 3 });
    const cr = (await t.api.post(`/spaces/${row.id}/change-requests`, { subject: 'New first link' })).body;
    const home = pagesOf(t.upstream.db, cr.revision).find((p) => p.title === 'Home')!;
    const edits = [{ page_id: home.page_id, markdown: `[new](https://new.example) ${home.markdown}` }];
    editChangeRequestPages(t.upstream.db, cr.id, t.world.users.admin.id, edits, new Date().toISOString());
    expect((await t.api.post(`/spaces/${row.id}/change-requests/${cr.id}/merge`)).status).toBe(200);
    const urls = first.body.items.map((l: any) => l.url);
    for (let page = first.body.next?.page; page;) {
      const res = await t.api.get(path, { limit: 3, page });
      urls.push(...res.body.items.map((l: any) => l.url));
      page = res.body.next?.page;
    }
    expect(urls).toHaveLength(8);
    expect(new Set(urls).size).toBe(8);
    expect(urls).not.toContain('https://new.example');
    expect((await t.api.get(path)).body.items[0].url).toBe('https://new.example');
    // A token naming a revision of another space is no token of this list.
    const other = spaceWithLinks().row;
    const foreign = await t.api.get(`/spaces/${other.id}/links`, { page: first.body.next.page });
    expect(foreign.body.error).toEqual({ code: 400, message: 'page: is not a valid page token' });
  });

  it('needs read access', async () => {
    const { row } = spaceWithLinks();
    expect((await as('read').get(`/spaces/${row.id}/links`)).status).toBe(200);
    expect((await as('outsider').get(`/spaces/${row.id}/links`)).status).toBe(404);
  });
});

describe('GET /orgs/{organizationId}/spaces', () => {
  it('pages to the end with no duplicate and no gap, and tokens survive inserts', async () => {
    const before = await orgSpaceIds();
    for (let i = 0; i < 7; i++) await newSpace({ title: `Paged ${i}` });
    const all = await orgSpaceIds();
    expect(all.length).toBe(before.length + 7);
    const walked = await t.api.all(`/orgs/${t.world.orgId}/spaces`, { limit: 3 });
    expect(walked.items.map((s: any) => s.id)).toEqual(all);
    expect(walked.pages).toBe(Math.ceil(all.length / 3));
    // Insert while paging: the walk neither repeats nor skips, and ends with the new space.
    const first = await t.api.get(`/orgs/${t.world.orgId}/spaces`, { limit: 3 });
    const added = await newSpace({ title: 'Inserted mid-walk' });
    const seen = first.body.items.map((s: any) => s.id);
    let page = first.body.next?.page;
    while (page) {
      const res = await t.api.get(`/orgs/${t.world.orgId}/spaces`, { limit: 3, page });
      seen.push(...res.body.items.map((s: any) => s.id));
      page = res.body.next?.page;
    }
    expect(seen).toEqual([...all, added.id]);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('lists only what the caller can read', async () => {
    const space = await newSpace({ title: 'For the guest' });
    const guestList = async () => (await as('guest').all(`/orgs/${t.world.orgId}/spaces`)).items.map((s: any) => s.id);
    const before = await guestList();
    expect(before).not.toContain(space.id);
    expect(before.length).toBeLessThan((await orgSpaceIds()).length);
    await t.api.post(`/spaces/${space.id}/permissions`, { role: 'read', users: [t.world.users.guest.id] });
    expect(await guestList()).toEqual([...before, space.id]);
    expect((await as('outsider').get(`/orgs/${t.world.orgId}/spaces`)).status).toBe(404);
    expect((await t.api.get(`/orgs/${t.world.orgId}/spaces`, { limit: 1001 })).status).toBe(400);
  });
});
