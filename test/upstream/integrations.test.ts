import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/upstream/bootstrap.js';
import { installIntegration, integrationSecrets } from '../../src/upstream/domain/integrations.js';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
beforeAll(async () => {
  t = await startUpstream();
});
afterAll(() => t.stop());

type Who = keyof TestUpstream['world']['users'];
const { as } = fixtures(() => t);
const B64 = Buffer.from('png').toString('base64');

function manifest(overrides: Record<string, unknown> = {}) {
  return {
    title: 'Analytics Pro',
    description: 'Track page views',
    scopes: ['site:views:read'],
    script: 'export default {}',
    organization: t.world.orgId,
    ...overrides,
  };
}

const publish = (name: string, overrides: Record<string, unknown> = {}, who: Who = 'admin') =>
  as(who).post(`/integrations/${name}`, manifest(overrides));

describe('publish', () => {
  it('publishes version 1 with defaults, the owner organization and permissions', async () => {
    const res = await publish('analytics-pro', { summary: '# Long', icon: B64, previewImages: [B64, B64] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'integration',
      name: 'analytics-pro',
      version: 1,
      title: 'Analytics Pro',
      description: 'Track page views',
      summary: '# Long',
      visibility: 'private',
      target: 'all',
      verified: false,
      scopes: ['site:views:read'],
      categories: [],
      blocks: [],
      contentSources: [],
      externalLinks: [],
      owner: { object: 'organization', id: t.world.orgId, title: 'Acme' },
      permissions: { admin: true, install: true },
      urls: { location: `${t.url}/integrations/analytics-pro` },
    });
    expect(res.body.previewImages).toHaveLength(2);
    expect(res.body.urls.icon).toEqual(expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//));
    expect(res.body.script).toBeUndefined();
  });

  it('accepts the organization by hostname, and republishing bumps the version and replaces fields', async () => {
    await publish('bumped', { visibility: 'public', categories: ['content'] });
    const again = await publish('bumped', { organization: 'acme', title: 'Bumped', target: 'space' });
    expect(again.body).toMatchObject({ version: 2, title: 'Bumped', target: 'space', visibility: 'private', categories: [] });
    expect((await publish('bumped')).body.version).toBe(3);
    expect((await t.api.get('/integrations/bumped')).body.version).toBe(3);
  });

  it('the publishing organization must be one the caller administers', async () => {
    expect((await publish('by-editor', {}, 'edit')).status).toBe(403);
    expect((await publish('by-outsider', {}, 'outsider')).status).toBe(404);
    expect((await publish('nowhere', { organization: 'no-such-org' })).body.error).toEqual({
      code: 404,
      message: 'organization: Organization not found',
    });
    expect((await t.api.get('/integrations/by-editor')).status).toBe(404);
  });

  it('only admins of the owner republish (403); the owner cannot change (409)', async () => {
    await publish('owned', { visibility: 'public' });
    const byOutsider = await publish('owned', { organization: t.world.otherOrgId }, 'outsider');
    expect(byOutsider.status).toBe(403);
    // the acme admin also administers globex, but the name belongs to acme
    const moved = await publish('owned', { organization: t.world.otherOrgId });
    expect(moved.status).toBe(409);
    expect((await t.api.get('/integrations/owned')).body).toMatchObject({ version: 1, owner: { id: t.world.orgId } });
  });

  it('checks the name of the path: at most 100 characters of [a-zA-Z0-9-_.]', async () => {
    expect((await publish('a'.repeat(100))).status).toBe(200);
    const long = await publish('a'.repeat(101));
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe('integrationName: must be at most 100 characters long');
    expect((await publish('bad%20name')).body.error.message).toMatch(/^integrationName: must match the pattern/);
    expect((await t.api.get(`/integrations/${'a'.repeat(101)}`)).status).toBe(400);
  });
});

describe('publish body limits', () => {
  const message = async (overrides: Record<string, unknown>) => {
    const res = await publish('limits', overrides);
    return res.status === 200 ? 'ok' : `${res.status} ${res.body.error.message}`;
  };
  const link = { url: 'https://example.com', label: 'Docs' };

  it('title 2..30, description up to 100 (both required), summary up to 2048', async () => {
    expect(await message({ title: 'ab' })).toBe('ok');
    expect(await message({ title: 'a'.repeat(30) })).toBe('ok');
    expect(await message({ title: 'a' })).toBe('400 title: must be at least 2 characters long');
    expect(await message({ title: 'a'.repeat(31) })).toBe('400 title: must be at most 30 characters long');
    expect(await message({ title: undefined })).toBe('400 title: is required');
    expect(await message({ description: 'd'.repeat(100) })).toBe('ok');
    expect(await message({ description: 'd'.repeat(101) })).toBe('400 description: must be at most 100 characters long');
    expect(await message({ description: undefined })).toBe('400 description: is required');
    expect(await message({ summary: 's'.repeat(2048) })).toBe('ok');
    expect(await message({ summary: 's'.repeat(2049) })).toBe('400 summary: must be at most 2048 characters long');
  });

  it('previewImages up to 3 and externalLinks up to 5; images and icon are base64', async () => {
    expect(await message({ previewImages: [B64, B64, B64] })).toBe('ok');
    expect(await message({ previewImages: [B64, B64, B64, B64] })).toBe('400 previewImages: must have at most 3 items');
    expect(await message({ previewImages: ['not base64!'] })).toMatch(/^400 previewImages\[0\]: must match the pattern/);
    expect(await message({ icon: 'not base64!' })).toMatch(/^400 icon: must match the pattern/);
    expect(await message({ externalLinks: Array(5).fill(link) })).toBe('ok');
    expect(await message({ externalLinks: Array(6).fill(link) })).toBe('400 externalLinks: must have at most 5 items');
    expect(await message({ externalLinks: [{ url: 'nope', label: 'x' }] })).toBe('400 externalLinks[0].url: must be an absolute URI');
    expect(await message({ externalLinks: [{ url: link.url }] })).toBe('400 externalLinks[0].label: is required');
  });

  it('scopes (required), categories, visibility and target take their enums', async () => {
    expect(await message({ scopes: undefined })).toBe('400 scopes: is required');
    expect(await message({ scopes: ['space:content:read', 'openapi:write'] })).toBe('ok');
    expect(await message({ scopes: ['space:views:read'] })).toMatch(/^400 scopes\[0\]: must be one of space:content:read/);
    expect(await message({ categories: ['analytics', 'visitor-auth'] })).toBe('ok');
    expect(await message({ categories: ['games'] })).toMatch(/^400 categories\[0\]: must be one of analytics/);
    expect(await message({ visibility: 'secret' })).toBe('400 visibility: must be one of public, private, unlisted');
    expect(await message({ target: 'page' })).toBe('400 target: must be one of all, site, space, organization');
  });

  it('blocks and contentSources items', async () => {
    const block = { id: 'embed', title: 'Embed', urlUnfurl: ['https://example.com/*'], markdown: { codeblock: 'embed', body: 'url' } };
    expect(await message({ blocks: [block] })).toBe('ok');
    expect(await message({ blocks: [{ ...block, title: 'E' }] })).toBe('400 blocks[0].title: must be at least 2 characters long');
    expect(await message({ blocks: [{ ...block, id: undefined }] })).toBe('400 blocks[0].id: is required');
    expect(await message({ blocks: [{ ...block, markdown: { codeblock: 'x' } }] })).toBe('400 blocks[0].markdown.body: is required');
    const source = { id: 'src', title: 'Source', configuration: { componentId: 'config' } };
    expect(await message({ contentSources: [source] })).toBe('ok');
    expect(await message({ contentSources: [{ ...source, configuration: undefined }] })).toBe(
      '400 contentSources[0].configuration: is required',
    );
  });

  it('configurations: a schema of properties or a component, required names among properties', async () => {
    const schema = {
      properties: { token: { type: 'string', title: 'Token', description: 'API token' }, on: { type: 'boolean', default: true } },
      required: ['token'],
    };
    expect(await message({ configurations: { account: schema, space: { componentId: 'cfg' } } })).toBe('ok');
    expect(await message({ configurations: { site: {} } })).toBe(
      '400 configurations.site: must have exactly one of properties, componentId',
    );
    expect(await message({ configurations: { account: { ...schema, required: ['missing'] } } })).toBe(
      '400 configurations.account: required names missing, which is not among properties',
    );
    expect(await message({ configurations: { account: { properties: { x: { type: 'date' } } } } })).toMatch(
      /^400 configurations\.account\.properties\.x\.type: must be one of string/,
    );
    expect(await message({ configurations: { organization: schema } })).toBe('400 configurations.organization: is not a known field');
  });

  it('script and organization are required; secrets up to 20 strings; contentSecurityPolicy string or directives', async () => {
    expect(await message({ script: undefined })).toBe('400 script: is required');
    expect(await message({ organization: undefined })).toBe('400 organization: is required');
    const secrets = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`KEY_${i}`, `v${i}`]));
    expect(await message({ secrets: secrets(20) })).toBe('ok');
    expect(await message({ secrets: secrets(21) })).toBe('400 secrets: must have at most 20 entries');
    expect(await message({ secrets: { KEY: 1 } })).toBe('400 secrets.KEY: must be a string, got number');
    expect(await message({ contentSecurityPolicy: "script-src 'self'" })).toBe('ok');
    expect(await message({ contentSecurityPolicy: { 'script-src': "'self'" } })).toBe('ok');
    expect(await message({ contentSecurityPolicy: 42 })).toBe(
      '400 contentSecurityPolicy: must be a string or an object of directive strings',
    );
    expect(await message({ runtime: 'v2' })).toBe('400 runtime: is not a known field');
  });
});

describe('secrets', () => {
  it('are stored, kept by a publish without them, and never returned', async () => {
    const secret = 'sk_live_do_not_leak';
    const published = await publish('with-secrets', { secrets: { API_KEY: secret }, visibility: 'public' });
    expect(integrationSecrets(t.upstream.db, 'with-secrets')).toEqual({ API_KEY: secret });
    const republished = await publish('with-secrets', { visibility: 'public' });
    expect(integrationSecrets(t.upstream.db, 'with-secrets')).toEqual({ API_KEY: secret });
    await publish('with-secrets', { visibility: 'public', secrets: { OTHER: 'x' } });
    expect(integrationSecrets(t.upstream.db, 'with-secrets')).toEqual({ OTHER: 'x' });
    const got = await t.api.get('/integrations/with-secrets');
    const listed = await t.api.get('/integrations', { search: 'with-secrets' });
    for (const body of [published.body, republished.body, got.body, listed.body]) {
      const text = JSON.stringify(body);
      expect(text).not.toContain(secret);
      expect(text).not.toContain('"secrets":');
    }
  });
});

describe('get and visibility', () => {
  beforeAll(async () => {
    await publish('vis-public', { visibility: 'public' });
    await publish('vis-unlisted', { visibility: 'unlisted' });
    await publish('vis-private', { visibility: 'private' });
  });

  it('public and unlisted are readable by anyone signed in; private by members of the owner', async () => {
    for (const name of ['vis-public', 'vis-unlisted']) {
      const res = await as('outsider').get(`/integrations/${name}`);
      expect(res.status).toBe(200);
      expect(res.body.permissions.admin).toBe(false);
    }
    expect((await as('outsider').get('/integrations/vis-private')).status).toBe(404);
    expect((await as('read').get('/integrations/vis-private')).body.permissions).toEqual({ admin: false, install: false });
    expect((await t.api.get('/integrations/unknown')).status).toBe(404);
    expect((await t.api.as(undefined).get('/integrations/vis-public')).status).toBe(401);
  });

  it('lists public integrations plus those of the caller’s organizations', async () => {
    const names = async (who: Who) => (await as(who).all('/integrations', { search: 'vis-' })).items.map((i) => i.name);
    expect(await names('outsider')).toEqual(['vis-public']);
    expect(await names('read')).toEqual(['vis-private', 'vis-public', 'vis-unlisted']);
  });
});

describe('list filters', () => {
  beforeAll(async () => {
    const block = (urlUnfurl: string[]) => [{ id: 'b', title: 'Block', urlUnfurl }];
    const source = [{ id: 's', title: 'Source', configuration: { componentId: 'c' } }];
    const pub = { visibility: 'public' };
    await publish('f-youtube', {
      ...pub,
      title: 'YouTube Embeds',
      categories: ['content'],
      blocks: block(['https://*.youtube.com/watch*']),
      target: 'space',
    });
    await publish('f-figma', {
      ...pub,
      title: 'Figma',
      categories: ['content', 'collaboration'],
      blocks: block(['https://figma.com/file/*']),
      target: 'site',
    });
    await publish('f-import', { ...pub, title: 'Importer', categories: ['other'], contentSources: source, scopes: ['openapi:write'] });
    await publish('f-globex', { ...pub, organization: t.world.otherOrgId, title: 'Globex Tool', categories: ['analytics'] }, 'outsider');
  });
  const names = async (query: Record<string, string | boolean>) =>
    (await t.api.all('/integrations', { search: 'f-', ...query })).items.map((i) => i.name);

  it('search matches name or title, case-insensitively', async () => {
    expect((await t.api.all('/integrations', { search: 'YOUTUBE' })).items.map((i) => i.name)).toEqual(['f-youtube']);
    expect((await t.api.all('/integrations', { search: 'Embeds' })).items.map((i) => i.name)).toEqual(['f-youtube']);
    expect((await t.api.all('/integrations', { search: '%' })).items).toEqual([]);
  });

  it('category', async () => {
    expect(await names({ category: 'content' })).toEqual(['f-figma', 'f-youtube']);
    expect(await names({ category: 'analytics' })).toEqual(['f-globex']);
    expect((await t.api.get('/integrations', { category: 'games' })).status).toBe(400);
  });

  it('blockDomain: the domain a block unfurls or a subdomain of it; max 100 and the name pattern', async () => {
    expect(await names({ blockDomain: 'youtube.com' })).toEqual(['f-youtube']);
    expect(await names({ blockDomain: 'www.youtube.com' })).toEqual(['f-youtube']);
    expect(await names({ blockDomain: 'FIGMA.com' })).toEqual(['f-figma']);
    expect(await names({ blockDomain: 'tube.com' })).toEqual([]);
    expect((await t.api.get('/integrations', { blockDomain: `${'a'.repeat(96)}.com` })).status).toBe(200);
    const long = await t.api.get('/integrations', { blockDomain: `${'a'.repeat(97)}.com` });
    expect(long.body.error.message).toBe('blockDomain: must be at most 100 characters long');
    expect((await t.api.get('/integrations', { blockDomain: 'a/b' })).status).toBe(400);
  });

  it('blocks and contentSources, true and false', async () => {
    expect(await names({ blocks: true })).toEqual(['f-figma', 'f-youtube']);
    expect(await names({ blocks: false })).toEqual(['f-globex', 'f-import']);
    expect(await names({ contentSources: true })).toEqual(['f-import']);
    expect(await names({ contentSources: false })).toEqual(['f-figma', 'f-globex', 'f-youtube']);
    expect((await t.api.get('/integrations', { blocks: 'yes' })).body.error.message).toBe('blocks: must be true or false');
  });

  it('owner, scope and target (an `all` target matches every target)', async () => {
    expect(await names({ owner: t.world.otherOrgId })).toEqual(['f-globex']);
    expect(await names({ owner: 'unknown' })).toEqual([]);
    expect(await names({ scope: 'openapi:write' })).toEqual(['f-import']);
    expect(await names({ target: 'space' })).toEqual(['f-globex', 'f-import', 'f-youtube']);
    expect((await t.api.get('/integrations', { scope: 'nope' })).status).toBe(400);
  });

  it('pages through every integration by name, without duplicate or gap', async () => {
    const all = (await t.api.get('/integrations', { limit: 1000 })).body;
    const walked = await t.api.all('/integrations', { limit: 3 });
    expect(walked.pages).toBe(Math.ceil(all.count / 3));
    expect(walked.items.map((i) => i.name)).toEqual(all.items.map((i: any) => i.name));
    expect(walked.items.map((i) => i.name)).toEqual([...walked.items.map((i) => i.name)].sort());
    expect(new Set(walked.items.map((i) => i.name)).size).toBe(all.count);
  });
});

describe('installations', () => {
  const path = '/integrations/installed/installations';
  beforeAll(async () => {
    await publish('installed', { visibility: 'public' });
    installIntegration(t.upstream.db, t.clock, {
      integrationName: 'installed',
      organizationId: t.world.orgId,
      externalIds: ['acme-1', 'shared'],
    });
    installIntegration(t.upstream.db, t.clock, {
      integrationName: 'installed',
      organizationId: t.world.otherOrgId,
      externalIds: ['globex-1', 'shared'],
    });
    for (let i = 0; i < 4; i++) {
      const org = createOrganization(t.upstream.db, t.clock, { title: `Client ${i}` });
      installIntegration(t.upstream.db, t.clock, { integrationName: 'installed', organizationId: org, configuration: { n: i } });
    }
  });

  it('the owner’s admins list every installation, in the official shape', async () => {
    const res = await t.api.get(path);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(6);
    expect(res.body.items[0]).toMatchObject({
      id: expect.any(String),
      status: 'active',
      space_selection: 'all',
      site_selection: 'all',
      spaces: 0,
      configuration: {},
      externalIds: ['acme-1', 'shared'],
      target: { organization: t.world.orgId },
    });
    expect(res.body.items[2].configuration).toEqual({ n: 0 });
    const walked = await t.api.all(path, { limit: 4 });
    expect(walked.pages).toBe(2);
    expect(walked.items.map((i) => i.id)).toEqual(res.body.items.map((i: any) => i.id));
  });

  it('filters by externalId', async () => {
    const targets = async (externalId: string) => (await t.api.get(path, { externalId })).body.items.map((i: any) => i.target.organization);
    expect(await targets('shared')).toEqual([t.world.orgId, t.world.otherOrgId]);
    expect(await targets('globex-1')).toEqual([t.world.otherOrgId]);
    expect(await targets('none')).toEqual([]);
  });

  it('others see the installations of the organizations they administer', async () => {
    const outsider = await as('outsider').get(path);
    expect(outsider.body.items.map((i: any) => i.target.organization)).toEqual([t.world.otherOrgId]);
    expect((await as('read').get(path)).body.items).toEqual([]);
    expect((await t.api.get('/integrations/unknown/installations')).status).toBe(404);
  });
});

describe('unpublish', () => {
  it('admins of the owner unpublish (204); others get 403, or 404 when they cannot see it', async () => {
    await publish('doomed', { visibility: 'public' });
    await publish('doomed-private');
    installIntegration(t.upstream.db, t.clock, { integrationName: 'doomed', organizationId: t.world.orgId });
    expect((await as('create').delete('/integrations/doomed')).status).toBe(403);
    expect((await as('outsider').delete('/integrations/doomed')).status).toBe(403);
    expect((await as('outsider').delete('/integrations/doomed-private')).status).toBe(404);
    const res = await t.api.delete('/integrations/doomed');
    expect(res.status).toBe(204);
    expect((await t.api.get('/integrations/doomed')).status).toBe(404);
    expect((await t.api.get('/integrations/doomed/installations')).status).toBe(404);
    expect((await t.api.delete('/integrations/doomed')).status).toBe(404);
    expect((await publish('doomed')).body.version).toBe(1);
  });
});
