import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { callPaths, keyOf, newSite, restAll, siteVars, type TestSite } from './siteFixture.js';
import { restUrls, urls } from './urls.js';

let t: TestStack;
let main: TestSite;
let sections: any[];
let groups: any[];
let redirects: any[];
let links: any[];

beforeAll(async () => {
  t = await startStack();
  main = newSite(t, { spaces: 5, title: 'Main docs', published: true });
  for (let i = 0; i < 4; i++) newSite(t, { title: `Walk ${i}` });
  sections = await restAll(t, `${main.base}/sections`);
  const [s1, s2, s3] = sections;
  await t.api.post(`${main.base}/section-groups`, { title: 'Basics', sections: [s1.id, s2.id] });
  await t.api.post(`${main.base}/section-groups`, { title: 'Empty', icon: 'star' });
  groups = await restAll(t, `${main.base}/section-groups`);
  for (const [i, s] of [s1, s2, s3].entries())
    await t.api.post(`${main.base}/redirects`, { source: `/old/${i}`, destination: { kind: 'site-section', siteSectionId: s.id } });
  redirects = await restAll(t, `${main.base}/redirects`);
  await t.api.post(`${main.base}/share-links`, { name: 'Partners' });
  await t.api.post(`${main.base}/share-links`, { name: 'Press' });
  links = await restAll(t, `${main.base}/share-links`);
});
afterAll(() => t.stop());

const SITE_ARGS = 'organizationId: $org, siteId: $site';

/** Walks a connection under `site(…)`, `first` at a time; returns the nodes and the REST calls per page. */
async function walk(field: string, selection: string, first: number, token?: string | null) {
  const nodes: any[] = [];
  const callsPerPage: string[][] = [];
  let after: string | null = null;
  for (;;) {
    t.resetCalls();
    const data: any = await t.data(
      `query($org: String!, $site: String!, $first: Int, $after: String) { site(${SITE_ARGS}) {
        ${field}(first: $first, after: $after) { nodes { ${selection} } pageInfo { hasNextPage endCursor } } } }`,
      { ...siteVars(main), first, after },
      token,
    );
    callsPerPage.push(callPaths(t));
    const conn = data.site[field];
    nodes.push(...conn.nodes);
    if (!conn.pageInfo.hasNextPage) return { nodes, callsPerPage };
    after = conn.pageInfo.endCursor;
  }
}

describe('Organization.sites', () => {
  const SITES = `query($org: String!, $first: Int, $after: String, $published: Boolean, $title: String, $space: String) {
    organization(organizationId: $org) { sites(first: $first, after: $after, published: $published, title: $title, space: $space) {
      nodes { restId title } pageInfo { hasNextPage endCursor } } } }`;

  async function walkSites(filters: Record<string, unknown>) {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const data: any = await t.data(SITES, { org: t.world.orgId, first: 2, after, ...filters });
      seen.push(...data.organization.sites.nodes.map((n: any) => n.restId));
      if (!data.organization.sites.pageInfo.hasNextPage) return seen;
      after = data.organization.sites.pageInfo.endCursor;
    }
  }

  it('walks every site to the end, in REST order, with no gap or duplicate', async () => {
    const rest = await restAll(t, `/orgs/${t.world.orgId}/sites`);
    expect(await walkSites({})).toEqual(rest.map((s) => s.id));
  });

  it('passes the REST filters published, title and space', async () => {
    expect(await walkSites({ title: 'Walk' })).toHaveLength(4);
    expect(await walkSites({ published: true })).toEqual([main.siteId]);
    expect(await walkSites({ space: main.spaceIds[2] })).toEqual([main.siteId]);
  });
});

describe('Site', () => {
  it('equals REST, in one call; the organization edge loads the organization', async () => {
    const rest = (await t.api.get(main.base)).body;
    t.resetCalls();
    const data = await t.data(
      `query($org: String!, $site: String!) { site(${SITE_ARGS}) {
        id restId title type appliedType visibility defaultLevel published siteSpacesCount createdAt features ${urls('Site')}
        permissions { view access edit create admin installIntegration viewAdaptiveSchema editAdaptiveSchema }
        organization { restId } } }`,
      siteVars(main),
    );
    expect(data.site).toEqual({
      id: encodeGlobalID('Site', JSON.stringify([main.organizationId, main.siteId])),
      restId: rest.id,
      title: 'Main docs',
      type: 'BASIC',
      appliedType: 'BASIC',
      visibility: 'PUBLIC',
      defaultLevel: null,
      published: true,
      siteSpacesCount: 5,
      createdAt: rest.createdAt,
      features: rest.features,
      urls: restUrls('Site', rest.urls),
      permissions: rest.permissions,
      organization: { restId: t.world.orgId },
    });
    expect(callPaths(t).sort()).toEqual([`GET /orgs/${t.world.orgId}`, `GET ${main.base}`]);
  });

  it('publishingAuth equals REST for admins; FORBIDDEN at its path for others while the rest resolves', async () => {
    const rest = (await t.api.get(`${main.base}/publishing/auth`)).body;
    const q = `query($org: String!, $site: String!) { site(${SITE_ARGS}) { title publishingAuth { backend privateKey fallbackURL logoutURL } } }`;
    const admin = await t.data(q, siteVars(main));
    expect(admin.site.publishingAuth).toEqual({ backend: 'CUSTOM', privateKey: rest.privateKey, fallbackURL: null, logoutURL: null });
    const res = await t.gql(q, siteVars(main), t.world.users.edit.token);
    expect(res.data?.site).toEqual({ title: 'Main docs', publishingAuth: null });
    expect(res.errors).toHaveLength(1);
    expect(res.errors?.[0]).toMatchObject({ path: ['site', 'publishingAuth'], extensions: { code: 'FORBIDDEN' } });
  });

  it('an outsider gets NOT_FOUND at site; a member without a role FORBIDDEN; the rest of the query resolves', async () => {
    const q = `query($org: String!, $site: String!) { viewer { restId } site(${SITE_ARGS}) { title } }`;
    const outsider = await t.gql(q, siteVars(main), t.world.users.outsider.token);
    expect(outsider.data).toEqual({ viewer: { restId: t.world.users.outsider.id }, site: null });
    expect(outsider.errors?.[0]).toMatchObject({ path: ['site'], extensions: { code: 'NOT_FOUND' } });
    const guest = await t.gql(q, siteVars(main), t.world.users.guest.token);
    expect(guest.data?.site).toBeNull();
    expect(guest.errors?.[0]).toMatchObject({ path: ['site'], extensions: { code: 'FORBIDDEN' } });
  });

  it('share links are admin only: FORBIDDEN at site.shareLinks for a reader, the site still resolves', async () => {
    const res = await t.gql(
      `query($org: String!, $site: String!) { site(${SITE_ARGS}) { title shareLinks { nodes { restId } } } }`,
      siteVars(main),
      t.world.users.read.token,
    );
    expect(res.data?.site).toEqual({ title: 'Main docs', shareLinks: null });
    expect(res.errors?.[0]).toMatchObject({ path: ['site', 'shareLinks'], extensions: { code: 'FORBIDDEN' } });
  });
});

describe('Site.sections and site spaces', () => {
  const SECTION = `id restId title description default path condition icon ${urls('SiteSection')}
    siteSpaces { id restId title path default condition hasAdvancedCustomizationFeature ${urls('SiteSpace')} space { restId } }`;

  it('walks the sections to the end, each page one REST call (the site lookup makes none), values equal to REST', async () => {
    const { nodes, callsPerPage } = await walk('sections', SECTION, 2);
    expect(callsPerPage).toHaveLength(3);
    for (const calls of callsPerPage) expect(calls).toEqual([`GET ${main.base}/sections`]);
    expect(nodes.map((n) => n.restId)).toEqual(sections.map((s) => s.id));
    nodes.forEach((n, i) => {
      const s = sections[i];
      expect(n).toMatchObject({
        title: s.title,
        description: s.description ?? null,
        default: s.default,
        path: s.path,
        condition: s.condition ?? null,
        icon: s.icon ?? null,
        urls: restUrls('SiteSection', s.urls),
      });
      expect(n.siteSpaces).toEqual(
        s.siteSpaces.map((ss: any) => ({
          id: expect.any(String),
          restId: ss.id,
          title: ss.title,
          path: ss.path,
          default: ss.default,
          condition: ss.condition ?? null,
          hasAdvancedCustomizationFeature: ss.hasAdvancedCustomizationFeature,
          urls: restUrls('SiteSpace', ss.urls),
          space: { restId: ss.space.id },
        })),
      );
    });
  });

  it('Site → sections → siteSpaces → space costs no REST call for the spaces, and the space equals REST', async () => {
    t.resetCalls();
    const data = await t.data(
      `query($org: String!, $site: String!) { site(${SITE_ARGS}) { sections(first: 10) { nodes {
        siteSpaces { space { id restId title emoji visibility createdAt updatedAt ${urls('Space')} revision commentsCount permissions { admin edit } } } } } } }`,
      siteVars(main),
    );
    expect(callPaths(t)).toEqual([`GET ${main.base}/sections`]);
    const spaces = data.site.sections.nodes.flatMap((n: any) => n.siteSpaces.map((ss: any) => ss.space));
    expect(spaces.map((s: any) => s.restId)).toEqual(main.spaceIds);
    const rest = (await t.api.get(`/spaces/${main.spaceIds[0]}`)).body;
    expect(spaces[0]).toMatchObject({
      restId: rest.id,
      title: rest.title,
      emoji: rest.emoji,
      visibility: rest.visibility.toUpperCase(),
      createdAt: rest.createdAt,
      updatedAt: rest.updatedAt,
      urls: restUrls('Space', rest.urls),
      revision: rest.revision,
      commentsCount: rest.comments,
      permissions: { admin: rest.permissions.admin, edit: rest.permissions.edit },
    });
  });

  it('a site space leads back to its section (no call) and a section to its site', async () => {
    t.resetCalls();
    const data = await t.data(
      `query($org: String!, $site: String!) { site(${SITE_ARGS}) { sections(first: 1) { nodes { restId
        site { restId } siteSpaces { section { restId } } } } } }`,
      siteVars(main),
    );
    const [section] = data.site.sections.nodes;
    expect(section).toEqual({
      restId: sections[0].id,
      site: { restId: main.siteId },
      siteSpaces: [{ section: { restId: sections[0].id } }],
    });
    // GET site once, shared by the root and the section's site edge.
    expect(callPaths(t).sort()).toEqual([`GET ${main.base}`, `GET ${main.base}/sections`]);
  });
});

describe('Site.sectionGroups', () => {
  it('walks the groups to the end with their sections, equal to REST; a section links to its group', async () => {
    const { nodes, callsPerPage } = await walk('sectionGroups', 'restId title icon sections { restId sectionGroup { restId } }', 1);
    expect(callsPerPage).toHaveLength(2);
    expect(nodes).toEqual(
      groups.map((g) => ({
        restId: g.id,
        title: g.title,
        icon: g.icon ?? null,
        sections: g.sections.map((s: any) => ({ restId: s.id, sectionGroup: { restId: g.id } })),
      })),
    );
    const data = await t.data(
      `query($org: String!, $site: String!) { site(${SITE_ARGS}) { sections(first: 3) { nodes { sectionGroup { title } } } } }`,
      siteVars(main),
    );
    expect(data.site.sections.nodes).toEqual([
      { sectionGroup: { title: 'Basics' } },
      { sectionGroup: { title: 'Basics' } },
      { sectionGroup: null },
    ]);
  });
});

describe('Site.redirects and redirectLookup', () => {
  it('walks the redirects to the end, equal to REST, with the destination section as an edge', async () => {
    const { nodes } = await walk(
      'redirects',
      'restId source createdAt updatedAt destination { kind siteSectionId siteSection { restId title } }',
      2,
    );
    expect(nodes).toEqual(
      redirects.map((r) => ({
        restId: r.id,
        source: r.source,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt ?? null,
        destination: {
          kind: 'SITE_SECTION',
          siteSectionId: r.destination.siteSectionId,
          siteSection: { restId: r.destination.siteSectionId, title: sections.find((s) => s.id === r.destination.siteSectionId).title },
        },
      })),
    );
  });

  it('redirectLookup equals the REST lookup; an unknown source is NOT_FOUND at its path', async () => {
    const rest = (await t.api.get(`${main.base}/redirect`, { source: '/old/1' })).body;
    const res = await t.gql(
      `query($org: String!, $site: String!) { site(${SITE_ARGS}) { title
        hit: redirectLookup(source: "/old/1") { target redirect { restId source } }
        miss: redirectLookup(source: "/nowhere") { target } } }`,
      siteVars(main),
    );
    expect(res.data?.site).toEqual({
      title: 'Main docs',
      hit: { target: rest.target, redirect: { restId: rest.redirect.id, source: '/old/1' } },
      miss: null,
    });
    expect(res.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['site', 'miss'], 'NOT_FOUND']]);
  });
});

describe('Site.shareLinks', () => {
  it('walks the share links to the end, equal to REST', async () => {
    const { nodes } = await walk('shareLinks', `restId name active createdAt ${urls('ShareLink')} site { restId }`, 1);
    expect(nodes).toEqual(
      links.map((l) => ({
        restId: l.id,
        name: l.name,
        active: l.active,
        createdAt: l.createdAt,
        urls: restUrls('ShareLink', l.urls),
        site: { restId: main.siteId },
      })),
    );
  });
});

describe('node(id)', () => {
  it('round-trips every site type; list-backed nodes refetch through their lists, one call per list', async () => {
    const data = await t.data(
      `query($org: String!, $site: String!) { site(${SITE_ARGS}) { id
        sections(first: 1) { nodes { id siteSpaces { id } } }
        sectionGroups(first: 1) { nodes { id } }
        redirects(first: 1) { nodes { id } }
        shareLinks(first: 1) { nodes { id } } } }`,
      siteVars(main),
    );
    const s = data.site;
    const ids = [
      s.id,
      s.sections.nodes[0].id,
      s.sections.nodes[0].siteSpaces[0].id,
      s.sectionGroups.nodes[0].id,
      s.redirects.nodes[0].id,
      s.shareLinks.nodes[0].id,
    ];
    t.resetCalls();
    const again = await t.data(
      `query($ids: [ID!]!) { nodes(ids: $ids) { id __typename
        ... on Site { restId } ... on SiteSection { restId } ... on SiteSpace { restId }
        ... on SiteSectionGroup { restId } ... on SiteRedirect { restId } ... on ShareLink { restId } } }`,
      { ids },
    );
    expect(again.nodes).toEqual([
      { id: ids[0], __typename: 'Site', restId: main.siteId },
      { id: ids[1], __typename: 'SiteSection', restId: sections[0].id },
      { id: ids[2], __typename: 'SiteSpace', restId: sections[0].siteSpaces[0].id },
      { id: ids[3], __typename: 'SiteSectionGroup', restId: groups[0].id },
      { id: ids[4], __typename: 'SiteRedirect', restId: redirects[0].id },
      { id: ids[5], __typename: 'ShareLink', restId: links[0].id },
    ]);
    // The section and the site space share one walk of the section list.
    expect(callPaths(t).sort()).toEqual(
      [main.base, `${main.base}/redirects`, `${main.base}/section-groups`, `${main.base}/sections`, `${main.base}/share-links`].map(
        (p) => `GET ${p}`,
      ),
    );
  });

  it('an id of no section is NOT_FOUND at its index', async () => {
    const id = encodeGlobalID('SiteSection', JSON.stringify([main.organizationId, main.siteId, 'nope']));
    const res = await t.gql('query($id: ID!) { node(id: $id) { id } }', { id });
    expect(res.data?.node).toBeNull();
    expect(res.errors?.[0]).toMatchObject({ path: ['node'], extensions: { code: 'NOT_FOUND' } });
  });
});

describe('share keys', () => {
  let shared: TestSite;
  let key: string;
  let linkId: string;
  beforeAll(async () => {
    shared = newSite(t, { spaces: 2, visibility: 'share-link', published: true, spaceVisibility: 'share-link' });
    const link = (await t.api.post(`${shared.base}/share-links`, { name: 'Guests' })).body;
    key = keyOf(link);
    linkId = link.id;
    const [first] = await restAll(t, `${shared.base}/sections`);
    await t.api.post(`${shared.base}/redirects`, { source: '/start', destination: { kind: 'site-section', siteSectionId: first.id } });
  });

  const OPEN = `query($org: String!, $site: String!, $key: String) { site(organizationId: $org, siteId: $site, shareKey: $key) {
    restId sections { nodes { title siteSpaces { space { restId title } } } } redirectLookup(source: "/start") { target } } }`;

  it('a share key opens sections, their spaces and redirect lookups without a token, with no GET of the site', async () => {
    t.resetCalls();
    const data = await t.data(OPEN, { ...siteVars(shared), key }, null);
    const spaces = data.site.sections.nodes.flatMap((n: any) => n.siteSpaces.map((ss: any) => ss.space.restId));
    expect(spaces).toEqual(shared.spaceIds);
    expect(data.site.redirectLookup.target).toMatch(/^http/);
    expect(callPaths(t).sort()).toEqual([`GET ${shared.base}/redirect`, `GET ${shared.base}/sections`]);
  });

  it('sections(shareKey:) takes the key on the connection, and space(spaceId, shareKey) opens a space of the site', async () => {
    const data = await t.data(
      `query($org: String!, $site: String!, $key: String!, $space: String!) {
        site(organizationId: $org, siteId: $site, shareKey: "not-the-key") { sections(shareKey: $key) { nodes { restId } } }
        space(spaceId: $space, shareKey: $key) { restId title } }`,
      { ...siteVars(shared), key, space: shared.spaceIds[1] },
      null,
    );
    expect(data.site.sections.nodes).toHaveLength(2);
    expect(data.space).toEqual({ restId: shared.spaceIds[1], title: 'Guide 2' });
  });

  it('without a token, asking for site fields REST does not open by key is UNAUTHENTICATED; no key at all too', async () => {
    const res = await t.gql(
      `query($org: String!, $site: String!, $key: String) { site(organizationId: $org, siteId: $site, shareKey: $key) { title sections { nodes { title } } } }`,
      { ...siteVars(shared), key },
      null,
    );
    expect(res.errors?.[0]).toMatchObject({ path: ['site', 'title'], extensions: { code: 'UNAUTHENTICATED' } });
    // The error stays at its field: the sections the key opens still resolve.
    expect(res.data?.site).toMatchObject({ title: null, sections: { nodes: [expect.anything(), expect.anything()] } });
    // No key: the lookup is a reference (no GET of its own), so the error is at the lists below it.
    const none = await t.gql(OPEN, { ...siteVars(shared) }, null);
    expect(none.data?.site).toEqual({ restId: shared.siteId, sections: null, redirectLookup: null });
    expect(none.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['site', 'sections'], 'UNAUTHENTICATED'],
      [['site', 'redirectLookup'], 'UNAUTHENTICATED'],
    ]);
  });

  it('a site asked only for its ids is opened by its key all the same: any key of any ids is refused, not echoed', async () => {
    const IDS = `query($org: String!, $site: String!, $key: String) { site(organizationId: $org, siteId: $site, shareKey: $key) { id restId } }`;
    const opened = await t.data(IDS, { ...siteVars(shared), key }, null);
    expect(opened.site).toEqual({
      id: encodeGlobalID('Site', JSON.stringify([shared.organizationId, shared.siteId])),
      restId: shared.siteId,
    });
    for (const vars of [
      { ...siteVars(shared), key: 'not-the-key' },
      { org: 'no-such-org', site: 'no-such-site', key },
    ]) {
      const refused = await t.gql(IDS, vars, null);
      expect(refused.data?.site ?? null).toBeNull();
      expect(refused.errors?.[0]).toMatchObject({ path: ['site'] });
      expect(['UNAUTHENTICATED', 'NOT_FOUND']).toContain(refused.errors?.[0].extensions?.code);
    }
  });

  it('an inactive link’s key opens nothing', async () => {
    await t.api.patch(`${shared.base}/share-links/${linkId}`, { active: false });
    const res = await t.gql(OPEN, { ...siteVars(shared), key }, null);
    expect(res.data?.site).toEqual({ restId: shared.siteId, sections: null, redirectLookup: null });
    expect(res.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED']);
    await t.api.patch(`${shared.base}/share-links/${linkId}`, { active: true });
  });
});
