import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import { expectRejected, startStack, type TestStack } from '../helpers/gateway.js';
import { callPaths, keyOf, newSite, restAll, siteVars, type TestSite } from './siteFixture.js';

let t: TestStack;
beforeAll(async () => {
  t = await startStack();
});
afterAll(() => t.stop());

const keys = (s: TestSite) => ({ organizationId: s.organizationId, siteId: s.siteId });

/** Reads the site back through a query. */
async function readSite(s: TestSite, selection: string) {
  const data = await t.data(
    `query($org: String!, $site: String!) { site(organizationId: $org, siteId: $site) { ${selection} } }`,
    siteVars(s),
  );
  return data.site;
}

const SECTIONS =
  'sections(first: 100) { nodes { restId title path condition icon description sectionGroup { restId } siteSpaces { restId default } } }';

describe('site settings', () => {
  it('updateSite changes title and visibility; the site reads back changed', async () => {
    const s = newSite(t);
    const p = await t.payload(
      'updateSite',
      { ...keys(s), title: 'Renamed', visibility: 'UNLISTED', clientMutationId: 'u1' },
      'clientMutationId site { title visibility }',
    );
    expect(p).toEqual({ clientMutationId: 'u1', site: { title: 'Renamed', visibility: 'UNLISTED' } });
    expect(await readSite(s, 'title visibility')).toEqual({ title: 'Renamed', visibility: 'UNLISTED' });
  });

  it('updateSite validates the title with the shared rules before any REST call', async () => {
    const s = newSite(t);
    await expectRejected(t, 'updateSite', { ...keys(s), title: 'x' }, 'input.title');
    await expectRejected(t, 'updateSite', { ...keys(s), title: 'x'.repeat(129) }, 'input.title');
    await expectRejected(t, 'updateSite', { ...keys(s), title: null }, 'input.title');
    expect((await t.payload('updateSite', { ...keys(s), title: 'x'.repeat(128) }, 'site { title }')).site.title).toHaveLength(128);
  });

  it('publishSite and unpublishSite switch the published state, as the organization’s site list shows', async () => {
    const s = newSite(t);
    const listed = async () =>
      (
        await t.data(
          'query($org: String!) { organization(organizationId: $org) { sites(first: 100, published: true) { nodes { restId } } } }',
          { org: s.organizationId },
        )
      ).organization.sites.nodes.map((n: any) => n.restId);
    expect((await t.payload('publishSite', keys(s), 'site { published urls { published } }')).site).toMatchObject({
      published: true,
      urls: { published: expect.any(String) },
    });
    expect(await readSite(s, 'published')).toEqual({ published: true });
    expect(await listed()).toContain(s.siteId);
    expect((await t.payload('unpublishSite', keys(s), 'site { published }')).site).toEqual({ published: false });
    expect(await readSite(s, 'published')).toEqual({ published: false });
    expect(await listed()).not.toContain(s.siteId);
  });

  it('updateSitePublishingAuth sets and clears the URLs; a bad URL is rejected before any REST call', async () => {
    const s = newSite(t);
    const p = await t.payload(
      'updateSitePublishingAuth',
      { ...keys(s), backend: 'CUSTOM', fallbackURL: 'https://auth.acme.test/login', logoutURL: 'https://auth.acme.test/logout' },
      'publishingAuth { backend fallbackURL logoutURL } site { restId }',
    );
    expect(p).toEqual({
      publishingAuth: { backend: 'CUSTOM', fallbackURL: 'https://auth.acme.test/login', logoutURL: 'https://auth.acme.test/logout' },
      site: { restId: s.siteId },
    });
    await t.payload('updateSitePublishingAuth', { ...keys(s), backend: 'INTEGRATION', logoutURL: null }, 'clientMutationId');
    expect((await readSite(s, 'publishingAuth { backend fallbackURL logoutURL }')).publishingAuth).toEqual({
      backend: 'INTEGRATION',
      fallbackURL: 'https://auth.acme.test/login',
      logoutURL: null,
    });
    await expectRejected(t, 'updateSitePublishingAuth', { ...keys(s), backend: 'CUSTOM', fallbackURL: 'not a url' }, 'input.fallbackURL');
  });

  it('a reader is FORBIDDEN and an outsider NOT_FOUND at the mutation path', async () => {
    const s = newSite(t);
    const reader = await t.mutate('publishSite', keys(s), 'site { published }', t.world.users.read.token);
    expect(reader.errors?.[0]).toMatchObject({ path: ['publishSite'], extensions: { code: 'FORBIDDEN' } });
    const outsider = await t.mutate('updateSite', { ...keys(s), title: 'Mine' }, 'site { title }', t.world.users.outsider.token);
    expect(outsider.errors?.[0]).toMatchObject({ path: ['updateSite'], extensions: { code: 'NOT_FOUND' } });
    expect(await readSite(s, 'title published')).toEqual({ title: 'Docs', published: false });
  });
});

describe('site sections', () => {
  const newSpace = (title: string) => insertSpace(t.upstream.db, t.clock.now().toISOString(), { organizationId: t.world.orgId, title }).id;

  it('createSiteSection adds a section at the end; the site read after each write in one operation is fresh', async () => {
    const s = newSite(t);
    const [a, b] = [newSpace('Alpha'), newSpace('Beta')];
    const res = await t.data(
      `mutation($one: CreateSiteSectionInput!, $two: CreateSiteSectionInput!) {
        one: createSiteSection(input: $one) { siteSection { title siteSpaces { space { restId } } } site { siteSpacesCount } }
        two: createSiteSection(input: $two) { siteSection { title } site { siteSpacesCount } } }`,
      { one: { ...keys(s), spaceId: a }, two: { ...keys(s), spaceId: b, title: 'Second' } },
    );
    expect(res.one).toEqual({ siteSection: { title: 'Alpha', siteSpaces: [{ space: { restId: a } }] }, site: { siteSpacesCount: 2 } });
    expect(res.two).toEqual({ siteSection: { title: 'Second' }, site: { siteSpacesCount: 3 } });
    const read = await readSite(s, 'siteSpacesCount sections(first: 10) { nodes { title } }');
    expect(read.sections.nodes.map((n: any) => n.title)).toEqual(['Guide 1', 'Alpha', 'Second']);
  });

  it('createSiteSection validates before any REST call: spaceId required, title 2 to 64', async () => {
    const s = newSite(t);
    const spaceId = newSpace('Gamma');
    await expectRejected(t, 'createSiteSection', { ...keys(s), spaceId, title: 'x' }, 'input.title');
    await expectRejected(t, 'createSiteSection', { ...keys(s), spaceId, title: 'x'.repeat(65) }, 'input.title');
    expect(
      (await t.payload('createSiteSection', { ...keys(s), spaceId, title: 'x'.repeat(64) }, 'siteSection { title }')).siteSection.title,
    ).toHaveLength(64);
  });

  it('updateSiteSection: condition absent keeps it, null removes it', async () => {
    const s = newSite(t);
    const [section] = await restAll(t, `${s.base}/sections`);
    const input = { ...keys(s), siteSectionId: section.id };
    const set = await t.payload(
      'updateSiteSection',
      { ...input, condition: 'visitor.claims.beta', icon: 'book', description: 'About' },
      'siteSection { condition icon description }',
    );
    expect(set.siteSection).toEqual({ condition: 'visitor.claims.beta', icon: 'book', description: 'About' });
    await t.payload('updateSiteSection', { ...input, title: 'Retitled', path: 'retitled' }, 'clientMutationId');
    expect((await readSite(s, SECTIONS)).sections.nodes[0]).toMatchObject({
      title: 'Retitled',
      path: 'retitled',
      condition: 'visitor.claims.beta',
      icon: 'book',
    });
    await t.payload('updateSiteSection', { ...input, condition: null, icon: null }, 'clientMutationId');
    expect((await readSite(s, SECTIONS)).sections.nodes[0]).toMatchObject({
      title: 'Retitled',
      condition: null,
      icon: null,
      description: 'About',
    });
  });

  it('updateSiteSection validates before any REST call', async () => {
    const s = newSite(t);
    const input = { ...keys(s), siteSectionId: 'any' };
    await expectRejected(t, 'updateSiteSection', { ...input, condition: '' }, 'input.condition');
    await expectRejected(t, 'updateSiteSection', { ...input, condition: 'c'.repeat(1025) }, 'input.condition');
    await expectRejected(t, 'updateSiteSection', { ...input, title: null }, 'input.title');
    await expectRejected(t, 'updateSiteSection', { ...input, path: 'p'.repeat(101) }, 'input.path');
    await expectRejected(t, 'updateSiteSection', { ...input, description: 'd'.repeat(257) }, 'input.description');
  });

  it('updateSiteSection: a path taken by another section is CONFLICT at the mutation', async () => {
    const s = newSite(t, { spaces: 2 });
    const [one, two] = await restAll(t, `${s.base}/sections`);
    const res = await t.mutate('updateSiteSection', { ...keys(s), siteSectionId: two.id, path: one.path }, 'siteSection { path }');
    expect(res.errors?.[0]).toMatchObject({ path: ['updateSiteSection'], extensions: { code: 'CONFLICT' } });
  });

  it('moveSiteSection moves before / after a section or to the end; both before and after is rejected before any REST call', async () => {
    const s = newSite(t, { spaces: 3 });
    const ids = (await restAll(t, `${s.base}/sections`)).map((x) => x.id);
    const order = async () => (await readSite(s, SECTIONS)).sections.nodes.map((n: any) => n.restId);
    const p = await t.payload(
      'moveSiteSection',
      { ...keys(s), siteSectionId: ids[2], position: { before: { siteSection: ids[0] } } },
      'siteSection { restId } site { sections(first: 10) { nodes { restId } } }',
    );
    expect(p.site.sections.nodes.map((n: any) => n.restId)).toEqual([ids[2], ids[0], ids[1]]);
    expect(await order()).toEqual([ids[2], ids[0], ids[1]]);
    await t.payload(
      'moveSiteSection',
      { ...keys(s), siteSectionId: ids[2], position: { after: { type: 'SITE_SECTION', siteSection: ids[1] } } },
      'clientMutationId',
    );
    expect(await order()).toEqual([ids[0], ids[1], ids[2]]);
    await t.payload('moveSiteSection', { ...keys(s), siteSectionId: ids[0] }, 'clientMutationId');
    expect(await order()).toEqual([ids[1], ids[2], ids[0]]);
    await expectRejected(
      t,
      'moveSiteSection',
      { ...keys(s), siteSectionId: ids[0], position: { before: { siteSection: ids[1] }, after: { siteSection: ids[2] } } },
      'input.position',
    );
    expect(await order()).toEqual([ids[1], ids[2], ids[0]]);
  });

  it('deleteSiteSection returns the deleted id; the section is gone from the site and from node(id)', async () => {
    const s = newSite(t, { spaces: 2 });
    const [, second] = await restAll(t, `${s.base}/sections`);
    const id = encodeGlobalID('SiteSection', JSON.stringify([s.organizationId, s.siteId, second.id]));
    const p = await t.payload('deleteSiteSection', { ...keys(s), siteSectionId: second.id }, 'deletedId site { siteSpacesCount }');
    expect(p).toEqual({ deletedId: id, site: { siteSpacesCount: 1 } });
    expect((await readSite(s, SECTIONS)).sections.nodes.map((n: any) => n.restId)).not.toContain(second.id);
    const gone = await t.gql('query($id: ID!) { node(id: $id) { id } }', { id });
    expect(gone.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });
});

describe('site section groups', () => {
  it('create, update, add a section, remove it, move and delete; each read back through the site', async () => {
    const s = newSite(t, { spaces: 3 });
    const ids = (await restAll(t, `${s.base}/sections`)).map((x) => x.id);
    const groupsNow = async () =>
      (await readSite(s, 'sectionGroups(first: 10) { nodes { restId title icon sections { restId } } }')).sectionGroups.nodes;

    const created = await t.payload(
      'createSiteSectionGroup',
      { ...keys(s), title: 'Basics', icon: 'star', sections: [ids[0]] },
      'siteSectionGroup { restId title sections { restId sectionGroup { title } } } site { sectionGroups { nodes { title } } }',
    );
    const groupId = created.siteSectionGroup.restId;
    expect(created.siteSectionGroup.sections).toEqual([{ restId: ids[0], sectionGroup: { title: 'Basics' } }]);
    expect(created.site.sectionGroups.nodes).toEqual([{ title: 'Basics' }]);
    const g = { ...keys(s), siteSectionGroupId: groupId };

    await t.payload('updateSiteSectionGroup', { ...g, title: 'Start here', icon: null }, 'clientMutationId');
    expect(await groupsNow()).toEqual([{ restId: groupId, title: 'Start here', icon: null, sections: [{ restId: ids[0] }] }]);

    const added = await t.payload(
      'addSiteSectionToGroup',
      { ...g, sectionId: ids[2] },
      'siteSectionGroup { sections { restId } } siteSection { restId sectionGroup { restId } }',
    );
    expect(added).toEqual({
      siteSectionGroup: { sections: [{ restId: ids[0] }, { restId: ids[2] }] },
      siteSection: { restId: ids[2], sectionGroup: { restId: groupId } },
    });
    expect((await groupsNow())[0].sections).toEqual([{ restId: ids[0] }, { restId: ids[2] }]);

    const removed = await t.payload(
      'removeSiteSectionFromGroup',
      { ...g, siteSectionId: ids[0] },
      'siteSectionGroup { sections { restId } } siteSection { restId sectionGroup { restId } }',
    );
    expect(removed).toEqual({ siteSectionGroup: { sections: [{ restId: ids[2] }] }, siteSection: { restId: ids[0], sectionGroup: null } });
    expect((await readSite(s, SECTIONS)).sections.nodes.map((n: any) => n.sectionGroup?.restId ?? null)).toEqual([null, null, groupId]);

    await t.payload('moveSiteSectionGroup', { ...g, position: { before: { id: ids[0] } } }, 'siteSectionGroup { restId }');
    const second = await t.payload('createSiteSectionGroup', { ...keys(s), title: 'Later' }, 'siteSectionGroup { restId }');
    expect((await groupsNow()).map((x: any) => x.title)).toEqual(['Start here', 'Later']);
    await t.payload('moveSiteSectionGroup', { ...g }, 'clientMutationId');
    expect((await groupsNow()).map((x: any) => x.title)).toEqual(['Later', 'Start here']);

    const deleted = await t.payload('deleteSiteSectionGroup', g, 'deletedId site { sectionGroups { nodes { restId } } }');
    expect(deleted).toEqual({
      deletedId: encodeGlobalID('SiteSectionGroup', JSON.stringify([s.organizationId, s.siteId, groupId])),
      site: { sectionGroups: { nodes: [{ restId: second.siteSectionGroup.restId }] } },
    });
    expect((await readSite(s, SECTIONS)).sections.nodes.map((n: any) => n.sectionGroup)).toEqual([null, null, null]);
  });

  it('group inputs are validated before any REST call', async () => {
    const s = newSite(t);
    const g = { ...keys(s), siteSectionGroupId: 'any' };
    await expectRejected(t, 'createSiteSectionGroup', { ...keys(s), title: '' }, 'input.title');
    await expectRejected(t, 'createSiteSectionGroup', { ...keys(s), title: 't'.repeat(101) }, 'input.title');
    await expectRejected(t, 'updateSiteSectionGroup', { ...g, icon: 'i'.repeat(51) }, 'input.icon');
    await expectRejected(t, 'moveSiteSectionGroup', { ...g, position: { before: { id: 'a' }, after: { id: 'b' } } }, 'input.position');
    await expectRejected(t, 'moveSiteSectionGroup', { ...g, position: { before: { id: 'a', type: null } } }, 'input.position.before.type');
  });
});

describe('site redirects', () => {
  it('create, update and delete; each read back through the site', async () => {
    const s = newSite(t, { spaces: 2, published: true });
    const [one, two] = await restAll(t, `${s.base}/sections`);
    const redirectsNow = async () =>
      (await readSite(s, 'redirects { nodes { restId source destination { siteSectionId } } }')).redirects.nodes;
    const created = await t.payload(
      'createSiteRedirect',
      { ...keys(s), source: '/old', destination: { siteSection: { siteSectionId: one.id } } },
      'siteRedirect { restId source destination { kind siteSection { restId } } } site { redirects { nodes { source } } }',
    );
    const id = created.siteRedirect.restId;
    expect(created).toEqual({
      siteRedirect: { restId: id, source: '/old', destination: { kind: 'SITE_SECTION', siteSection: { restId: one.id } } },
      site: { redirects: { nodes: [{ source: '/old' }] } },
    });
    const updated = await t.payload(
      'updateSiteRedirect',
      { ...keys(s), siteRedirectId: id, source: '/older', destination: { siteSection: { siteSectionId: two.id } } },
      'siteRedirect { source updatedAt }',
    );
    expect(updated.siteRedirect).toEqual({ source: '/older', updatedAt: expect.any(String) });
    expect(await redirectsNow()).toEqual([{ restId: id, source: '/older', destination: { siteSectionId: two.id } }]);
    expect((await readSite(s, 'redirectLookup(source: "/older") { target redirect { restId } }')).redirectLookup).toEqual({
      target: two.urls.published,
      redirect: { restId: id },
    });
    const deleted = await t.payload('deleteSiteRedirect', { ...keys(s), siteRedirectId: id }, 'deletedId');
    expect(deleted.deletedId).toBe(encodeGlobalID('SiteRedirect', JSON.stringify([s.organizationId, s.siteId, id])));
    expect(await redirectsNow()).toEqual([]);
  });

  it('a source already redirected is CONFLICT; the destination one-of and the source pattern are checked before any REST call', async () => {
    const s = newSite(t);
    const [section] = await restAll(t, `${s.base}/sections`);
    const destination = { siteSection: { siteSectionId: section.id } };
    await t.payload('createSiteRedirect', { ...keys(s), source: '/dup', destination }, 'clientMutationId');
    const dup = await t.mutate('createSiteRedirect', { ...keys(s), source: '/dup', destination }, 'siteRedirect { restId }');
    expect(dup.errors?.[0]).toMatchObject({ path: ['createSiteRedirect'], extensions: { code: 'CONFLICT' } });
    await expectRejected(t, 'createSiteRedirect', { ...keys(s), source: '/dup', destination: {} }, 'input.destination');
    await expectRejected(t, 'createSiteRedirect', { ...keys(s), source: '/dup', destination: { siteSection: null } }, 'input.destination');
    await expectRejected(t, 'createSiteRedirect', { ...keys(s), source: 'no-slash', destination }, 'input.source');
    await expectRejected(t, 'createSiteRedirect', { ...keys(s), source: '/a//b', destination }, 'input.source');
    await expectRejected(t, 'createSiteRedirect', { ...keys(s), source: `/${'a'.repeat(512)}`, destination }, 'input.source');
    await expectRejected(t, 'updateSiteRedirect', { ...keys(s), siteRedirectId: 'any', destination: null }, 'input.destination');
  });
});

describe('share links', () => {
  const OPEN = `query($org: String!, $site: String!, $key: String!) { site(organizationId: $org, siteId: $site, shareKey: $key) { sections { nodes { restId } } } }`;

  it('create, rename, deactivate, activate and delete; the key opens the site only while the link is active', async () => {
    const s = newSite(t, { visibility: 'share-link', published: true });
    const created = await t.payload(
      'createShareLink',
      { ...keys(s), name: 'Partners' },
      'shareLink { restId name active urls { published } } site { shareLinks { nodes { name } } }',
    );
    const { restId: id, urls } = created.shareLink;
    expect(created).toMatchObject({
      shareLink: { name: 'Partners', active: true },
      site: { shareLinks: { nodes: [{ name: 'Partners' }] } },
    });
    const key = keyOf({ urls });
    const link = { ...keys(s), shareLinkId: id };
    const opens = async () => !(await t.gql(OPEN, { ...siteVars(s), key }, null)).errors;
    expect(await opens()).toBe(true);

    expect((await t.payload('deactivateShareLink', link, 'shareLink { active }')).shareLink).toEqual({ active: false });
    expect((await readSite(s, 'shareLinks { nodes { active } }')).shareLinks.nodes).toEqual([{ active: false }]);
    expect(await opens()).toBe(false);

    expect((await t.payload('activateShareLink', link, 'shareLink { active }')).shareLink).toEqual({ active: true });
    expect(await opens()).toBe(true);

    await t.payload('updateShareLink', { ...link, name: 'Press', active: false }, 'clientMutationId');
    expect((await readSite(s, 'shareLinks { nodes { name active } }')).shareLinks.nodes).toEqual([{ name: 'Press', active: false }]);

    const deleted = await t.payload('deleteShareLink', link, 'deletedId site { shareLinks { nodes { restId } } }');
    expect(deleted).toEqual({
      deletedId: encodeGlobalID('ShareLink', JSON.stringify([s.organizationId, s.siteId, id])),
      site: { shareLinks: { nodes: [] } },
    });
  });

  it('share link inputs are validated before any REST call', async () => {
    const s = newSite(t);
    const link = { ...keys(s), shareLinkId: 'any' };
    await expectRejected(t, 'createShareLink', { ...keys(s), name: 'n'.repeat(51) }, 'input.name');
    await expectRejected(t, 'updateShareLink', link, 'input.active');
    await expectRejected(t, 'updateShareLink', { ...link, active: null }, 'input.active');
    expect((await t.payload('createShareLink', { ...keys(s), name: 'n'.repeat(50) }, 'shareLink { name }')).shareLink.name).toHaveLength(
      50,
    );
  });

  it('share links are admin only: an editor is FORBIDDEN, with the site unchanged', async () => {
    const s = newSite(t);
    const res = await t.mutate('createShareLink', { ...keys(s), name: 'Mine' }, 'shareLink { restId }', t.world.users.edit.token);
    expect(res.errors?.[0]).toMatchObject({ path: ['createShareLink'], extensions: { code: 'FORBIDDEN' } });
    t.resetCalls();
    expect((await readSite(s, 'shareLinks { nodes { restId } }')).shareLinks.nodes).toEqual([]);
    expect(callPaths(t)).toHaveLength(1);
  });
});
