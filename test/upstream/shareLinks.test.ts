import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite } from '../../src/upstream/domain/sites.js';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type RestClient, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
let orgId: string;
let anonymous: RestClient;
const { as, now } = fixtures(() => t);

/** A fresh site publishing one private space: its base path, share-links path and the space. */
function newSite(options: { visibility?: string; published?: boolean } = {}) {
  const spaceId = insertSpace(t.upstream.db, now(), { organizationId: orgId, title: 'Secret docs' }).id;
  const site = createSite(t.upstream.db, now(), { organizationId: orgId, title: 'Site', spaceIds: [spaceId], ...options });
  const base = `/orgs/${orgId}/sites/${site.id}`;
  return { base, links: `${base}/share-links`, spaceId };
}

/** The secret of a share link: the `shareKey` of its published URL. */
const keyOf = (link: { urls: { published: string } }) => new URL(link.urls.published).searchParams.get('shareKey')!;

beforeAll(async () => {
  t = await startUpstream();
  orgId = t.world.orgId;
  anonymous = t.api.as(undefined);
});
afterAll(() => t.stop());

describe('POST share-links', () => {
  it('creates an active link whose published URL carries a secret key', async () => {
    const { base, links } = newSite();
    const res = await t.api.post(links, { name: 'Partners' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'share-link',
      id: expect.any(String),
      createdAt: expect.any(String),
      name: 'Partners',
      active: true,
      urls: { published: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/published\/sites\/\w+\?shareKey=\w{32}$/) },
    });
    const other = (await t.api.post(links, { name: 'Press' })).body;
    expect(keyOf(other)).not.toBe(keyOf(res.body));
    expect(res.body.urls.published.startsWith((await t.api.post(`${base}/publish`)).body.urls.published)).toBe(true);
  });

  it('name is required and at most 50 characters', async () => {
    const { links } = newSite();
    expect((await t.api.post(links, { name: 'n'.repeat(50) })).status).toBe(201);
    expect((await t.api.post(links, { name: '' })).status).toBe(201);
    expect((await t.api.post(links, { name: 'n'.repeat(51) })).body.error.message).toBe('name: must be at most 50 characters long');
    expect((await t.api.post(links, {})).body.error.message).toBe('name: is required');
  });

  it('needs the organization role admin', async () => {
    const { links } = newSite();
    expect((await as('create').post(links, { name: 'No' })).status).toBe(403);
    expect((await as('outsider').post(links, { name: 'No' })).status).toBe(404);
  });
});

describe('GET share-links', () => {
  it('walks every link in creation order; only admins list (the keys are secrets)', async () => {
    const { links } = newSite();
    for (let i = 1; i <= 5; i++) await t.api.post(links, { name: `Link ${i}` });
    const { items, pages } = await t.api.all(links, { limit: 2 });
    expect(items.map((l) => l.name)).toEqual(['Link 1', 'Link 2', 'Link 3', 'Link 4', 'Link 5']);
    expect(pages).toBe(3);
    expect((await as('read').get(links)).status).toBe(403);
    expect((await as('outsider').get(links)).status).toBe(404);
  });
});

describe('PATCH and DELETE share-links/{shareLinkId}', () => {
  it('PATCH toggles active and renames, each kept when absent', async () => {
    const { links } = newSite();
    const id = (await t.api.post(links, { name: 'Partners' })).body.id;
    expect((await t.api.patch(`${links}/${id}`, { active: false })).body).toMatchObject({ active: false, name: 'Partners' });
    expect((await t.api.patch(`${links}/${id}`, { name: 'Friends' })).body).toMatchObject({ active: false, name: 'Friends' });
    expect((await t.api.patch(`${links}/${id}`, { active: true })).body).toMatchObject({ active: true, name: 'Friends' });
    expect((await t.api.all(links)).items[0]).toMatchObject({ active: true, name: 'Friends' });
  });

  it('PATCH needs a field, checks them, and the organization role admin', async () => {
    const { links } = newSite();
    const id = (await t.api.post(links, { name: 'Partners' })).body.id;
    expect((await t.api.patch(`${links}/${id}`, {})).status).toBe(400);
    expect((await t.api.patch(`${links}/${id}`, { name: 'n'.repeat(51) })).status).toBe(400);
    expect((await t.api.patch(`${links}/${id}`, { name: 'n'.repeat(50) })).status).toBe(200);
    expect((await t.api.patch(`${links}/${id}`, { active: 'no' })).body.error.message).toBe('active: must be a boolean, got string');
    expect((await as('create').patch(`${links}/${id}`, { active: false })).status).toBe(403);
    expect((await t.api.patch(`${links}/nope`, { active: false })).status).toBe(404);
  });

  it('DELETE removes the link', async () => {
    const { links } = newSite();
    const id = (await t.api.post(links, { name: 'Partners' })).body.id;
    expect((await as('create').delete(`${links}/${id}`)).status).toBe(403);
    expect((await t.api.delete(`${links}/${id}`)).status).toBe(204);
    expect((await t.api.delete(`${links}/${id}`)).status).toBe(404);
    expect((await t.api.all(links)).items).toHaveLength(0);
  });
});

describe('share keys', () => {
  it('an active key opens the space, the sections and the redirects of a published share-link site', async () => {
    const { base, links, spaceId } = newSite({ visibility: 'share-link', published: true });
    const sectionId = (await t.api.get(`${base}/sections`)).body.items[0].id;
    await t.api.post(`${base}/redirects`, { source: '/old', destination: { kind: 'site-section', siteSectionId: sectionId } });
    const link = (await t.api.post(links, { name: 'Partners' })).body;
    const shareKey = keyOf(link);

    const space = await anonymous.get(`/spaces/${spaceId}`, { shareKey });
    expect(space.status).toBe(200);
    expect(space.body).toMatchObject({ id: spaceId, permissions: { access: true, edit: false, admin: false } });
    const sections = await anonymous.get(`${base}/sections`, { shareKey });
    expect(sections.status).toBe(200);
    expect(sections.body.items[0].siteSpaces[0].space).toMatchObject({ id: spaceId, permissions: { access: true, edit: false } });
    const redirect = await anonymous.get(`${base}/redirect`, { source: '/old', shareKey });
    expect(redirect.body.redirect.destination.siteSectionId).toBe(sectionId);

    await t.api.patch(`${links}/${link.id}`, { active: false });
    expect((await anonymous.get(`/spaces/${spaceId}`, { shareKey })).status).toBe(401);
    expect((await anonymous.get(`${base}/sections`, { shareKey })).status).toBe(401);
    expect((await anonymous.get(`${base}/redirect`, { source: '/old', shareKey })).status).toBe(401);

    await t.api.patch(`${links}/${link.id}`, { active: true });
    expect((await anonymous.get(`/spaces/${spaceId}`, { shareKey })).status).toBe(200);
    await t.api.delete(`${links}/${link.id}`);
    expect((await anonymous.get(`/spaces/${spaceId}`, { shareKey })).status).toBe(401);
  });

  it('opens nothing while the site is not published with visibility share-link', async () => {
    const { base, links, spaceId } = newSite({ visibility: 'share-link' });
    const shareKey = keyOf((await t.api.post(links, { name: 'Partners' })).body);
    expect((await anonymous.get(`${base}/sections`, { shareKey })).status).toBe(401);
    await t.api.post(`${base}/publish`);
    expect((await anonymous.get(`${base}/sections`, { shareKey })).status).toBe(200);
    await t.api.patch(base, { visibility: 'visitor-auth' });
    expect((await anonymous.get(`${base}/sections`, { shareKey })).status).toBe(401);
    expect((await anonymous.get(`/spaces/${spaceId}`, { shareKey })).status).toBe(401);
  });

  it('a key opens only its own site and the spaces it publishes', async () => {
    const first = newSite({ visibility: 'share-link', published: true });
    const second = newSite({ visibility: 'share-link', published: true });
    const shareKey = keyOf((await t.api.post(first.links, { name: 'Partners' })).body);
    const unpublished = insertSpace(t.upstream.db, now(), { organizationId: orgId, title: 'Not on the site' }).id;
    expect((await anonymous.get(`${second.base}/sections`, { shareKey })).status).toBe(401);
    expect((await anonymous.get(`/spaces/${second.spaceId}`, { shareKey })).status).toBe(401);
    expect((await anonymous.get(`/spaces/${unpublished}`, { shareKey })).status).toBe(401);
    expect((await anonymous.get(`/spaces/${first.spaceId}`, { shareKey: 'guess' })).status).toBe(401);
    expect((await as('outsider').get(`/spaces/${second.spaceId}`, { shareKey })).status).toBe(404);
    expect((await as('outsider').get(`${first.base}/sections`, { shareKey })).status).toBe(200);
  });

  it('a space transferred to another organization (alone or in a collection) leaves its former sites', async () => {
    const { base, links, spaceId } = newSite({ visibility: 'share-link', published: true });
    const shareKey = keyOf((await t.api.post(links, { name: 'Partners' })).body);
    expect((await anonymous.get(`/spaces/${spaceId}`, { shareKey })).status).toBe(200);
    expect((await t.api.post(`/spaces/${spaceId}/transfer`, { organization: t.world.otherOrgId })).status).toBe(200);
    expect((await anonymous.get(`/spaces/${spaceId}`, { shareKey })).status).toBe(401);
    const sections = (await anonymous.get(`${base}/sections`, { shareKey })).body.items;
    expect(sections.flatMap((s: any) => s.siteSpaces)).toEqual([]);
    expect((await t.api.get(base)).body.siteSpaces).toBe(0);

    const collection = (await t.api.post(`/orgs/${orgId}/collections`, { title: 'Moving' })).body.id;
    const inside = insertSpace(t.upstream.db, now(), { organizationId: orgId, parentId: collection, title: 'Inside' }).id;
    const site = createSite(t.upstream.db, now(), {
      organizationId: orgId,
      title: 'Site',
      spaceIds: [inside],
      visibility: 'share-link',
      published: true,
    });
    const key = keyOf((await t.api.post(`/orgs/${orgId}/sites/${site.id}/share-links`, { name: 'Partners' })).body);
    expect((await anonymous.get(`/spaces/${inside}`, { shareKey: key })).status).toBe(200);
    expect((await t.api.post(`/collections/${collection}/transfer`, { organization: t.world.otherOrgId })).status).toBe(200);
    expect((await anonymous.get(`/spaces/${inside}`, { shareKey: key })).status).toBe(401);
    expect((await t.api.get(`/orgs/${orgId}/sites/${site.id}`)).body.siteSpaces).toBe(0);
  });

  it('a deleted space is not published by its sites (not even its title); restored, it is again', async () => {
    const { base, links, spaceId } = newSite({ visibility: 'share-link', published: true });
    const shareKey = keyOf((await t.api.post(links, { name: 'Partners' })).body);
    const spacesOf = async () =>
      (await anonymous.get(`${base}/sections`, { shareKey })).body.items.flatMap((s: any) => s.siteSpaces.map((x: any) => x.space.id));
    expect(await spacesOf()).toEqual([spaceId]);
    await t.api.delete(`/spaces/${spaceId}`);
    expect(await spacesOf()).toEqual([]);
    expect((await t.api.get(base)).body.siteSpaces).toBe(0);
    await t.api.post(`/spaces/${spaceId}/restore`);
    expect(await spacesOf()).toEqual([spaceId]);
    expect((await t.api.get(base)).body.siteSpaces).toBe(1);
  });
});
