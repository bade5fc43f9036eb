import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screamingSnake } from '../../src/schema/lib/enums.js';
import { installIntegration, integrationSecrets } from '../../src/upstream/domain/integrations.js';
import { expectRejected, startStack, type TestStack } from '../helpers/gateway.js';
import { restUrls, urls } from './urls.js';

let t: TestStack;
const B64 = Buffer.from('png').toString('base64');
const SECRET = 'sk_live_never_in_a_response';
const token = (who: keyof TestStack['world']['users']) => t.world.users[who].token;
const or = <T>(v: T | undefined) => (v === undefined ? null : v);

const block = {
  id: 'video',
  title: 'Video',
  description: 'Embeds a video',
  icon: 'https://example.com/video.png',
  urlUnfurl: ['https://*.youtube.com/watch/*'],
  markdown: { codeblock: 'video', body: 'url' },
};
const contentSource = { id: 'src', title: 'Source', description: 'Pages from elsewhere', configuration: { componentId: 'cfg' } };
const configurations = {
  account: { properties: { token: { type: 'string', title: 'Token', description: 'API token' } }, required: ['token'] },
  space: { componentId: 'space-config' },
};

function manifest(organization: string, overrides: Record<string, unknown> = {}) {
  return {
    title: 'An integration',
    description: 'Does things',
    scopes: ['space:content:read'],
    script: 'export default {}',
    organization,
    ...overrides,
  };
}

beforeAll(async () => {
  t = await startStack();
  const acme = t.world.orgId;
  const globex = t.world.otherOrgId;
  const publish = (name: string, org: string, overrides: Record<string, unknown> = {}, who: 'admin' | 'outsider' = 'admin') =>
    t.api.as(token(who)).post(`/integrations/${name}`, manifest(org, overrides));
  await publish('alpha-analytics', acme, { visibility: 'public', categories: ['analytics'], blocks: [block] });
  await publish('beta-content', acme, {
    visibility: 'public',
    title: 'Beta Content',
    summary: '# Beta\nLong form',
    icon: B64,
    previewImages: [B64, B64],
    target: 'space',
    categories: ['content', 'other'],
    contentSources: [contentSource],
    configurations,
    externalLinks: [{ url: 'https://example.com/docs', label: 'Docs' }],
    contentSecurityPolicy: { 'script-src': "'self'" },
    scopes: ['space:content:read', 'openapi:read'],
  });
  await publish('gamma-private', acme, { secrets: { API_KEY: SECRET } });
  await publish('delta', acme, { visibility: 'unlisted', scopes: ['openapi:read'] });
  await publish('epsilon', acme, { visibility: 'public', target: 'organization' });
  await publish('globex-tool', globex, { visibility: 'public', categories: ['analytics'] }, 'outsider');
  await publish('globex-private', globex, {}, 'outsider');
  const install = (organizationId: string, externalIds: string[]) =>
    installIntegration(t.upstream.db, t.clock, {
      integrationName: 'beta-content',
      organizationId,
      externalIds,
      configuration: { token: 'x' },
    });
  install(acme, ['ext-acme', 'shared']);
  install(globex, ['ext-globex', 'shared']);
});
afterAll(() => t.stop());

const FIELDS = `id restId name version title description summary previewImages target verified visibility scopes categories
  blocks { restId title description icon urlUnfurl markdown { codeblock body } }
  contentSources { restId title description icon configuration { componentId } }
  configurations externalLinks { url label } contentSecurityPolicy ${urls('Integration')} permissions { admin install }
  owner { id restId title }`;
const enumOf = (v: string) => screamingSnake(v);
const fromRest = (i: any) => ({
  restId: i.name,
  name: i.name,
  version: i.version,
  title: i.title,
  description: or(i.description),
  summary: or(i.summary),
  previewImages: i.previewImages,
  target: enumOf(i.target),
  verified: i.verified,
  visibility: enumOf(i.visibility),
  scopes: i.scopes,
  categories: i.categories.map(enumOf),
  blocks: (i.blocks ?? []).map((b: any) => ({
    restId: b.id,
    title: b.title,
    description: or(b.description),
    icon: or(b.icon),
    urlUnfurl: b.urlUnfurl ?? [],
    markdown: or(b.markdown),
  })),
  contentSources: (i.contentSources ?? []).map(({ id, ...s }: any) => ({
    restId: id,
    ...s,
    description: or(s.description),
    icon: or(s.icon),
  })),
  configurations: or(i.configurations),
  externalLinks: i.externalLinks,
  contentSecurityPolicy: or(i.contentSecurityPolicy),
  urls: restUrls('Integration', i.urls),
  permissions: { admin: i.permissions.admin, install: or(i.permissions.install) },
  owner: { id: expect.any(String), restId: i.owner.id, title: i.owner.title },
});
const withoutId = ({ id: _id, ...rest }: any) => rest;

describe('Integration', () => {
  it('integration(integrationName:) equals REST, owner included with no extra call', async () => {
    for (const name of ['beta-content', 'alpha-analytics', 'gamma-private']) {
      const rest = (await t.api.get(`/integrations/${name}`)).body;
      t.resetCalls();
      const res = await t.data(`query($name: String!) { integration(integrationName: $name) { ${FIELDS} } }`, { name });
      expect(withoutId(res.integration)).toEqual(fromRest(rest));
      expect(t.calls.map((c) => `${c.method} ${c.path}`)).toEqual([`GET /integrations/${name}`]);
    }
  });

  it('node(id) round trip; the owner is an Organization node', async () => {
    const { integration } = await t.data(`{ integration(integrationName: "beta-content") { ${FIELDS} } }`);
    const res = await t.data(
      `query($id: ID!, $owner: ID!) { node(id: $id) { __typename ... on Integration { ${FIELDS} } }
        owner: node(id: $owner) { ... on Organization { restId } } }`,
      { id: integration.id, owner: integration.owner.id },
    );
    expect(res.node).toEqual({ __typename: 'Integration', ...integration });
    expect(res.owner).toEqual({ restId: t.world.orgId });
  });

  it('a private integration is NOT_FOUND for an outsider; the rest of the query resolves', async () => {
    const res = await t.gql(
      `{ integration(integrationName: "gamma-private") { name } other: integration(integrationName: "alpha-analytics") { name permissions { admin } } }`,
      {},
      token('outsider'),
    );
    expect(res.errors).toHaveLength(1);
    expect(res.errors?.[0]).toMatchObject({ path: ['integration'], extensions: { code: 'NOT_FOUND' } });
    expect(res.data).toEqual({ integration: null, other: { name: 'alpha-analytics', permissions: { admin: false } } });
  });

  it('has no field that could carry secrets', async () => {
    const res = await t.data(`{ __type(name: "Integration") { fields { name } } }`);
    expect(res.__type.fields.map((f: any) => f.name)).not.toContain('secrets');
  });
});

describe('integrations connection', () => {
  const LIST = `query($first: Int, $after: String, $search: String, $category: IntegrationCategory, $blockDomain: String,
      $blocks: Boolean, $contentSources: Boolean, $owner: String, $scope: String, $target: IntegrationTarget) {
    integrations(first: $first, after: $after, search: $search, category: $category, blockDomain: $blockDomain, blocks: $blocks,
      contentSources: $contentSources, owner: $owner, scope: $scope, target: $target) {
      edges { cursor node { ${FIELDS} } } pageInfo { hasNextPage endCursor } } }`;

  /** Every page of the connection, checking one REST call per page and no duplicate. */
  async function walk(vars: Record<string, unknown>, tok?: string) {
    const seen: any[] = [];
    let after: string | undefined;
    for (;;) {
      t.resetCalls();
      const conn = (await t.data(LIST, { ...vars, first: 2, after }, tok)).integrations;
      expect(t.calls.map((c) => c.path)).toEqual(['/integrations']);
      seen.push(...conn.edges.map((e: any) => e.node));
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(new Set(seen.map((n) => n.id)).size).toBe(seen.length);
    return seen;
  }

  it('walks to the end two at a time, equal to REST (owners from the list, no extra call)', async () => {
    const rest = (await t.api.all('/integrations')).items;
    expect(rest.length).toBeGreaterThanOrEqual(5);
    expect((await walk({})).map(withoutId)).toEqual(rest.map(fromRest));
  });

  it('each REST filter is an argument and gives what REST gives', async () => {
    const cases: Array<[Record<string, unknown>, Record<string, string | boolean>, string[]]> = [
      [{ search: 'alpha' }, { search: 'alpha' }, ['alpha-analytics']],
      [{ category: 'ANALYTICS' }, { category: 'analytics' }, ['alpha-analytics', 'globex-tool']],
      [{ blockDomain: 'www.youtube.com' }, { blockDomain: 'www.youtube.com' }, ['alpha-analytics']],
      [{ blocks: true }, { blocks: true }, ['alpha-analytics']],
      [{ contentSources: true }, { contentSources: true }, ['beta-content']],
      [
        { contentSources: false, owner: t.world.orgId },
        { contentSources: false, owner: t.world.orgId },
        ['alpha-analytics', 'delta', 'epsilon', 'gamma-private'],
      ],
      [{ owner: t.world.otherOrgId }, { owner: t.world.otherOrgId }, ['globex-private', 'globex-tool']],
      [{ scope: 'openapi:read' }, { scope: 'openapi:read' }, ['beta-content', 'delta']],
      [
        { target: 'SPACE' },
        { target: 'space' },
        ['alpha-analytics', 'beta-content', 'delta', 'gamma-private', 'globex-private', 'globex-tool'],
      ],
    ];
    for (const [vars, query, names] of cases) {
      const rest = (await t.api.all('/integrations', query)).items.map((i: any) => i.name);
      const graph = (await walk(vars)).map((n) => n.name);
      expect(graph).toEqual(rest);
      expect(graph).toEqual(names);
    }
  });

  it('an outsider lists public integrations and those of their organization only', async () => {
    const names = (await walk({}, token('outsider'))).map((n) => n.name);
    expect(names).toEqual(['alpha-analytics', 'beta-content', 'epsilon', 'globex-private', 'globex-tool']);
  });

  it('a bad filter is BAD_USER_INPUT at the connection', async () => {
    const res = await t.gql(LIST, { blockDomain: 'not a domain!' });
    expect(res.errors?.[0]).toMatchObject({ path: ['integrations'], extensions: { code: 'BAD_USER_INPUT' } });
    expect(res.data).toEqual({ integrations: null });
  });
});

describe('Integration.installations', () => {
  const INSTALLS = `query($name: String!, $externalId: String, $first: Int, $after: String) {
    integration(integrationName: $name) { installations(externalId: $externalId, first: $first, after: $after) {
      nodes { restId status spaceSelection siteSelection spacesCount configuration externalIds createdAt updatedAt ${urls('IntegrationInstallation')} target
        organization { restId } }
      pageInfo { hasNextPage endCursor } } } }`;
  const fromRestInstall = (i: any) => ({
    restId: i.id,
    status: screamingSnake(i.status),
    spaceSelection: screamingSnake(i.space_selection),
    siteSelection: screamingSnake(i.site_selection),
    spacesCount: i.spaces,
    configuration: i.configuration,
    externalIds: i.externalIds,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
    urls: restUrls('IntegrationInstallation', i.urls),
    target: i.target,
    organization: { restId: i.target.organization },
  });

  it('walks to the end one at a time, equal to REST, each page one call', async () => {
    const rest = (await t.api.all('/integrations/beta-content/installations')).items;
    expect(rest).toHaveLength(2);
    const seen: any[] = [];
    let after: string | undefined;
    for (;;) {
      t.resetCalls();
      const conn = (await t.data(INSTALLS, { name: 'beta-content', first: 1, after })).integration.installations;
      expect(t.calls.filter((c) => c.path.endsWith('/installations'))).toHaveLength(1);
      seen.push(...conn.nodes);
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(seen).toEqual(rest.map(fromRestInstall));
  });

  it('filters by externalId; an admin of another organization sees their own installation only', async () => {
    const one = await t.data(INSTALLS, { name: 'beta-content', externalId: 'ext-acme' });
    expect(one.integration.installations.nodes.map((n: any) => n.organization.restId)).toEqual([t.world.orgId]);
    const shared = await t.data(INSTALLS, { name: 'beta-content', externalId: 'shared' });
    expect(shared.integration.installations.nodes).toHaveLength(2);
    const none = await t.data(INSTALLS, { name: 'beta-content', externalId: 'nope' });
    expect(none.integration.installations.nodes).toEqual([]);
    const outsider = await t.data(INSTALLS, { name: 'beta-content' }, token('outsider'));
    expect(outsider.integration.installations.nodes.map((n: any) => n.organization.restId)).toEqual([t.world.otherOrgId]);
  });
});

const PUBLISH = `mutation($input: PublishIntegrationInput!) { publishIntegration(input: $input) { clientMutationId integration { ${FIELDS} } } }`;

describe('publishIntegration and unpublishIntegration', () => {
  const input = (overrides: Record<string, unknown> = {}) => ({ integrationName: 'published', ...manifest(t.world.orgId), ...overrides });

  it('publishes every body field; secrets are stored, never returned; the state reads back through a query', async () => {
    const full = input({
      title: 'Published',
      description: 'Every field',
      summary: '# Summary',
      icon: B64,
      previewImages: [B64],
      visibility: 'PUBLIC',
      target: 'SITE',
      scopes: ['site:views:read', 'openapi:write'],
      categories: ['MARKETING', 'VISITOR_AUTH'],
      blocks: [block],
      contentSources: [contentSource],
      externalLinks: [{ url: 'https://example.com/help', label: 'Help' }],
      configurations,
      secrets: { API_KEY: SECRET },
      contentSecurityPolicy: "script-src 'self'",
      clientMutationId: 'p1',
    });
    const res = await t.gql(PUBLISH, { input: full });
    expect(res.errors).toBeUndefined();
    expect(JSON.stringify(res)).not.toContain(SECRET);
    const published = res.data.publishIntegration;
    expect(published.clientMutationId).toBe('p1');
    expect(published.integration).toMatchObject({
      name: 'published',
      version: 1,
      visibility: 'PUBLIC',
      target: 'SITE',
      categories: ['MARKETING', 'VISITOR_AUTH'],
      scopes: ['site:views:read', 'openapi:write'],
      blocks: [{ ...withoutId(block), restId: block.id }],
      contentSources: [{ ...withoutId(contentSource), restId: contentSource.id, icon: null }],
      configurations,
      contentSecurityPolicy: "script-src 'self'",
      owner: { restId: t.world.orgId },
      permissions: { admin: true },
    });
    expect(integrationSecrets(t.upstream.db, 'published')).toEqual({ API_KEY: SECRET });

    const back = await t.gql(
      `{ integration(integrationName: "published") { ${FIELDS} } integrations(search: "published") { nodes { name version } } }`,
    );
    expect(JSON.stringify(back)).not.toContain(SECRET);
    expect(back.data.integration).toEqual(published.integration);
    expect(withoutId(back.data.integration)).toEqual(fromRest((await t.api.get('/integrations/published')).body));
    expect(back.data.integrations.nodes).toEqual([{ name: 'published', version: 1 }]);

    const again = await t.data(PUBLISH, { input: input({ title: 'Published 2' }) });
    expect(again.publishIntegration.integration).toMatchObject({ version: 2, title: 'Published 2', visibility: 'PRIVATE' });
  });

  it('every input is checked with the publish rules before any REST call', async () => {
    const link = { url: 'https://example.com', label: 'Docs' };
    await expectRejected(t, 'publishIntegration', input({ title: 'a' }), 'input.title');
    await expectRejected(t, 'publishIntegration', input({ title: 'a'.repeat(31) }), 'input.title');
    await expectRejected(t, 'publishIntegration', input({ description: 'd'.repeat(101) }), 'input.description');
    await expectRejected(t, 'publishIntegration', input({ summary: 's'.repeat(2049) }), 'input.summary');
    await expectRejected(t, 'publishIntegration', input({ integrationName: 'bad name' }), 'input.integrationName');
    await expectRejected(t, 'publishIntegration', input({ integrationName: 'n'.repeat(101) }), 'input.integrationName');
    await expectRejected(t, 'publishIntegration', input({ previewImages: [B64, B64, B64, B64] }), 'input.previewImages');
    await expectRejected(t, 'publishIntegration', input({ icon: 'not base64!' }), 'input.icon');
    await expectRejected(t, 'publishIntegration', input({ externalLinks: Array(6).fill(link) }), 'input.externalLinks');
    await expectRejected(t, 'publishIntegration', input({ externalLinks: [{ url: 'nope', label: 'x' }] }), 'input.externalLinks[0].url');
    await expectRejected(t, 'publishIntegration', input({ scopes: ['space:views:read'] }), 'input.scopes[0]');
    await expectRejected(t, 'publishIntegration', input({ blocks: [{ ...block, title: 'E' }] }), 'input.blocks[0].title');
    await expectRejected(t, 'publishIntegration', input({ configurations: { site: {} } }), 'input.configurations.site');
    await expectRejected(t, 'publishIntegration', input({ configurations: { organization: {} } }), 'input.configurations.organization');
    expect(await expectRejected(t, 'publishIntegration', input({ secrets: { KEY: 1 } }), 'input.secrets.KEY')).toBe(
      'input.secrets.KEY: must be a string, got number',
    );
    await expectRejected(t, 'publishIntegration', input({ contentSecurityPolicy: 42 }), 'input.contentSecurityPolicy');
    await expectRejected(t, 'unpublishIntegration', { integrationName: 'bad name' }, 'input.integrationName');
  });

  it('limits just under pass', async () => {
    const link = { url: 'https://example.com', label: 'Docs' };
    const res = await t.data(PUBLISH, {
      input: input({
        integrationName: 'n'.repeat(100),
        title: 't'.repeat(30),
        description: 'd'.repeat(100),
        externalLinks: Array(5).fill(link),
        previewImages: [B64, B64, B64],
      }),
    });
    expect(res.publishIntegration.integration).toMatchObject({ name: 'n'.repeat(100), previewImages: expect.any(Array) });
    expect(res.publishIntegration.integration.externalLinks).toHaveLength(5);
  });

  it('an editor may not publish for the organization (FORBIDDEN); nor an outsider republish it', async () => {
    const byEditor = await t.gql(PUBLISH, { input: input({ integrationName: 'by-editor' }) }, token('edit'));
    expect(byEditor.errors?.[0]).toMatchObject({ path: ['publishIntegration'], extensions: { code: 'FORBIDDEN' } });
    expect(byEditor.data).toEqual({ publishIntegration: null });
    const byOutsider = await t.gql(
      PUBLISH,
      { input: input({ integrationName: 'alpha-analytics', organization: t.world.otherOrgId }) },
      token('outsider'),
    );
    expect(byOutsider.errors?.[0]).toMatchObject({ path: ['publishIntegration'], extensions: { code: 'FORBIDDEN' } });
    const unchanged = await t.data('{ integration(integrationName: "alpha-analytics") { version } }');
    expect(unchanged.integration.version).toBe(1);
  });

  it('unpublishIntegration returns the deleted global id; the integration is gone from lookups and lists', async () => {
    await t.data(PUBLISH, { input: input({ integrationName: 'to-remove', visibility: 'PUBLIC' }) });
    const { integration } = await t.data('{ integration(integrationName: "to-remove") { id } }');
    const forbidden = await t.gql(
      'mutation { unpublishIntegration(input: { integrationName: "to-remove" }) { deletedId } }',
      {},
      token('outsider'),
    );
    expect(forbidden.errors?.[0]).toMatchObject({ path: ['unpublishIntegration'], extensions: { code: 'FORBIDDEN' } });
    const res = await t.data(
      'mutation { unpublishIntegration(input: { integrationName: "to-remove", clientMutationId: "u" }) { clientMutationId deletedId } }',
    );
    expect(res.unpublishIntegration).toEqual({ clientMutationId: 'u', deletedId: integration.id });
    const gone = await t.gql('query($id: ID!) { node(id: $id) { id } integrations(search: "to-remove") { nodes { name } } }', {
      id: integration.id,
    });
    expect(gone.errors?.[0]).toMatchObject({ path: ['node'], extensions: { code: 'NOT_FOUND' } });
    expect(gone.data.integrations.nodes).toEqual([]);
  });
});
