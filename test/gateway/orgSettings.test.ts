import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screamingSnake } from '../../src/schema/lib/enums.js';
import { VALID_OPENAPI_YAML } from '../helpers/fixtures.js';
import { expectRejected, startStack, type TestStack } from '../helpers/gateway.js';
import { restUrls, urls } from './urls.js';

let t: TestStack;
let org: string;
const enumOf = (v: string | undefined) => (v === undefined ? null : screamingSnake(v));
const or = <T>(v: T | undefined) => (v === undefined ? null : v);
const token = (who: keyof TestStack['world']['users']) => t.world.users[who].token;

beforeAll(async () => {
  t = await startStack();
  org = t.world.orgId;
  for (let i = 1; i <= 5; i++) {
    await t.api.post(`/orgs/${org}/openapi`, { slug: `spec-${i}`, source: { text: i === 3 ? 'hello: world\n' : VALID_OPENAPI_YAML } });
    await t.api.post(`/orgs/${org}/translations`, { title: `Translations ${i}`, languages: i === 2 ? ['fr', 'pt-br'] : undefined });
    await t.api.put(`/orgs/${org}/fonts`, {
      fontFamily: `Font ${i}`,
      fontFaces: [
        { weight: 400, storageKey: `fonts/f${i}/regular.woff2` },
        { weight: 700, storageKey: `fonts/f${i}/bold.ttf` },
      ],
    });
  }
  await t.upstream.idle();
});
afterAll(() => t.stop());

// Every field of each type, and what REST JSON says each must be.
const SPEC_FIELDS = `id restId slug createdAt updatedAt sourceURL processingState lastVersion lastProcessedAt
  lastProcessErrorCode lastProcessedErrors { code message } lastProcessedErrorCount permissions { view edit } ${urls('OpenApiSpec')}
  organization { restId }`;
const specFromRest = (s: any) => ({
  restId: s.id,
  slug: s.slug,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
  sourceURL: or(s.sourceURL),
  processingState: enumOf(s.processingState),
  lastVersion: or(s.lastVersion),
  lastProcessedAt: or(s.lastProcessedAt),
  lastProcessErrorCode: or(s.lastProcessErrorCode),
  lastProcessedErrors: or(s.lastProcessedErrors),
  lastProcessedErrorCount: s.lastProcessedErrorCount,
  permissions: s.permissions,
  urls: restUrls('OpenApiSpec', s.urls),
  organization: { restId: org },
});
const TRANSLATION_FIELDS = `id restId title languages createdAt updatedAt permissions { edit } ${urls('TranslationSettings')} organization { restId }`;
const translationFromRest = (s: any) => ({
  restId: s.id,
  title: s.title,
  languages: s.languages.map(enumOf),
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
  permissions: { edit: s.permissions.edit },
  urls: restUrls('TranslationSettings', s.urls),
  organization: { restId: org },
});
const FONT_FIELDS = 'id restId custom fontFamily fontFaces { weight sources { url format } } permissions { edit } organization { restId }';
const fontFromRest = (f: any) => ({
  restId: f.id,
  custom: f.custom,
  fontFamily: f.fontFamily,
  fontFaces: f.fontFaces.map((face: any) => ({
    weight: face.weight,
    sources: face.sources.map((s: any) => ({ url: s.url, format: enumOf(s.format) })),
  })),
  permissions: f.permissions,
  organization: { restId: org },
});

const withoutId = ({ id: _id, ...rest }: any) => rest;

const resources: Array<{ field: string; rest: string; type: string; fields: string; fromRest: (json: any) => unknown }> = [
  { field: 'openApiSpecs', rest: 'openapi', type: 'OpenApiSpec', fields: SPEC_FIELDS, fromRest: specFromRest },
  { field: 'translations', rest: 'translations', type: 'TranslationSettings', fields: TRANSLATION_FIELDS, fromRest: translationFromRest },
  { field: 'fonts', rest: 'fonts', type: 'CustomFont', fields: FONT_FIELDS, fromRest: fontFromRest },
];

describe.each(resources)('Organization.$field', ({ field, rest, type, fields, fromRest }) => {
  const page = `query($org: String!, $first: Int, $after: String) {
    organization(organizationId: $org) { ${field}(first: $first, after: $after) {
      edges { cursor node { ${fields} } } pageInfo { hasNextPage endCursor } } } }`;

  it('walks to the end two at a time, equal to REST, one list call per page', async () => {
    const expected = (await t.api.all(`/orgs/${org}/${rest}`)).items.map(fromRest);
    expect(expected.length).toBeGreaterThanOrEqual(5);
    const seen: any[] = [];
    let after: string | undefined;
    for (;;) {
      t.resetCalls();
      const conn = (await t.data(page, { org, first: 2, after })).organization[field];
      expect(t.calls.filter((c) => c.path.endsWith(`/${rest}`))).toHaveLength(1);
      seen.push(...conn.edges.map((e: any) => e.node));
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(seen.map(withoutId)).toEqual(expected);
    expect(new Set(seen.map((n) => n.id)).size).toBe(seen.length);
  });

  it('node(id) returns the same object; a listed object costs no further call', async () => {
    const listed = (await t.data(page, { org, first: 1 })).organization[field].edges[0].node;
    t.resetCalls();
    const res = await t.data(`query($id: ID!) { node(id: $id) { __typename ... on ${type} { ${fields} } } }`, { id: listed.id });
    expect(res.node).toEqual({ __typename: type, ...listed });
    expect(t.calls.map((c) => c.path).sort()).toEqual([
      `/orgs/${org}`,
      `/orgs/${org}/${rest}/${encodeURIComponent(listed.slug ?? listed.restId)}`,
    ]);
    t.resetCalls();
    const both = await t.data(
      `query($org: String!) { organization(organizationId: $org) { ${field}(first: 3) { nodes { restId organization { restId } } } } }`,
      { org },
    );
    expect(both.organization[field].nodes).toHaveLength(3);
    expect(t.calls.map((c) => c.path).sort()).toEqual([`/orgs/${org}`, `/orgs/${org}/${rest}`]);
  });
});

describe('root lookups', () => {
  it('openApiSpec, translationSettings and customFont by REST keys equal REST', async () => {
    const spec = (await t.api.get(`/orgs/${org}/openapi/spec-3`)).body;
    const [translation] = (await t.api.get(`/orgs/${org}/translations`, { limit: 1 })).body.items;
    const [font] = (await t.api.get(`/orgs/${org}/fonts`, { limit: 1 })).body.items;
    const res = await t.data(
      `query($org: String!, $tid: String!, $fid: String!) {
        openApiSpec(organizationId: $org, specSlug: "spec-3") { ${SPEC_FIELDS} }
        translationSettings(organizationId: $org, translationSettingsId: $tid) { ${TRANSLATION_FIELDS} }
        customFont(organizationId: $org, fontId: $fid) { ${FONT_FIELDS} }
      }`,
      { org, tid: translation.id, fid: font.id },
    );
    expect(withoutId(res.openApiSpec)).toEqual(specFromRest(spec));
    expect(res.openApiSpec.lastProcessErrorCode).toBe('PARSE_ERROR');
    expect(withoutId(res.translationSettings)).toEqual(translationFromRest(translation));
    expect(withoutId(res.customFont)).toEqual(fontFromRest(font));
  });

  it('an unknown key is NOT_FOUND at its path, the rest of the query resolves', async () => {
    const res = await t.gql(
      `query($org: String!) {
      openApiSpec(organizationId: $org, specSlug: "nope") { restId }
      organization(organizationId: $org) { restId }
    }`,
      { org },
    );
    expect(res.errors).toHaveLength(1);
    expect(res.errors?.[0]).toMatchObject({ path: ['openApiSpec'], extensions: { code: 'NOT_FOUND' } });
    expect(res.data).toEqual({ openApiSpec: null, organization: { restId: org } });
  });

  it('an outsider gets NOT_FOUND on the organization; their own organization still resolves', async () => {
    const res = await t.gql(
      `query($org: String!, $other: String!) {
        organization(organizationId: $org) { fonts { nodes { restId } } }
        other: organization(organizationId: $other) { fonts { nodes { restId } } translations { nodes { restId } } }
      }`,
      { org, other: t.world.otherOrgId },
      token('outsider'),
    );
    // The lookup makes no GET of its own (only a list is selected): NOT_FOUND comes at the list.
    expect(res.errors).toHaveLength(1);
    expect(res.errors?.[0]).toMatchObject({ path: ['organization', 'fonts'], extensions: { code: 'NOT_FOUND' } });
    expect(res.data).toEqual({ organization: { fonts: null }, other: { fonts: { nodes: [] }, translations: { nodes: [] } } });
  });
});

describe('OpenAPI spec mutations', () => {
  const SPEC = `query($org: String!, $slug: String!) { openApiSpec(organizationId: $org, specSlug: $slug) {
    id slug processingState lastVersion lastProcessErrorCode sourceURL } }`;

  it('createOpenApiSpec from text: pending in the payload, complete with a version when read back', async () => {
    const res = await t.data(
      `mutation($input: CreateOpenApiSpecInput!) { createOpenApiSpec(input: $input) {
        clientMutationId openApiSpec { id slug processingState lastVersion } organization { restId openApiSpecs(first: 100) { nodes { slug } } } } }`,
      { input: { organizationId: org, slug: 'created', source: { text: VALID_OPENAPI_YAML }, clientMutationId: 'c1' } },
    );
    const payload = res.createOpenApiSpec;
    expect(payload).toMatchObject({
      clientMutationId: 'c1',
      openApiSpec: { slug: 'created', processingState: 'PENDING', lastVersion: null },
    });
    expect(payload.organization.restId).toBe(org);
    expect(payload.organization.openApiSpecs.nodes.map((n: any) => n.slug)).toContain('created');
    await t.upstream.idle();
    const back = await t.data(SPEC, { org, slug: 'created' });
    expect(back.openApiSpec).toMatchObject({ id: payload.openApiSpec.id, processingState: 'COMPLETE', lastVersion: expect.any(String) });
    const rest = (await t.api.get(`/orgs/${org}/openapi/created`)).body;
    expect(back.openApiSpec.lastVersion).toBe(rest.lastVersion);
  });

  it('source must hold exactly one of url and text; slug and url are checked; all before any REST call', async () => {
    const input = { organizationId: org, slug: 'one-of' };
    expect(
      await expectRejected(
        t,
        'createOpenApiSpec',
        { ...input, source: { url: 'https://example.com/a.yaml', text: VALID_OPENAPI_YAML } },
        'input.source',
      ),
    ).toBe('input.source: must have exactly one of url, text');
    await expectRejected(t, 'createOpenApiSpec', { ...input, source: {} }, 'input.source');
    await expectRejected(t, 'createOpenApiSpec', { ...input, slug: 'Not A Slug', source: { text: VALID_OPENAPI_YAML } }, 'input.slug');
    await expectRejected(t, 'createOpenApiSpec', { ...input, slug: 'a'.repeat(101), source: { text: VALID_OPENAPI_YAML } }, 'input.slug');
    await expectRejected(t, 'createOpenApiSpec', { ...input, source: { url: 'not a url' } }, 'input.source.url');
    await expectRejected(t, 'createOpenApiSpec', { ...input, source: { text: '' } }, 'input.source.text');
    await expectRejected(
      t,
      'updateOpenApiSpec',
      { organizationId: org, specSlug: 'spec-1', source: { url: 'https://x.test/a', text: 'x' } },
      'input.source',
    );
    await expectRejected(
      t,
      'updateOpenApiSpec',
      { organizationId: org, specSlug: 'Bad_Slug', source: { text: VALID_OPENAPI_YAML } },
      'input.specSlug',
    );
    await expectRejected(t, 'deleteOpenApiSpec', { organizationId: org, specSlug: 'Bad_Slug' }, 'input.specSlug');
  });

  it('a slug just under the limit passes; a taken slug is CONFLICT', async () => {
    const slug = 'a'.repeat(100);
    const ok = await t.data('mutation($input: CreateOpenApiSpecInput!) { createOpenApiSpec(input: $input) { openApiSpec { slug } } }', {
      input: { organizationId: org, slug, source: { text: VALID_OPENAPI_YAML } },
    });
    expect(ok.createOpenApiSpec.openApiSpec.slug).toBe(slug);
    const res = await t.gql('mutation($input: CreateOpenApiSpecInput!) { createOpenApiSpec(input: $input) { openApiSpec { slug } } }', {
      input: { organizationId: org, slug, source: { text: VALID_OPENAPI_YAML } },
    });
    expect(res.errors?.[0]).toMatchObject({ path: ['createOpenApiSpec'], extensions: { code: 'CONFLICT' } });
    await t.upstream.idle();
  });

  it('updateOpenApiSpec replaces the source (PARSE_ERROR read back) and creates under a new slug', async () => {
    const res = await t.data(
      `mutation($a: UpdateOpenApiSpecInput!, $b: UpdateOpenApiSpecInput!) {
        a: updateOpenApiSpec(input: $a) { openApiSpec { slug processingState } }
        b: updateOpenApiSpec(input: $b) { openApiSpec { slug processingState sourceURL } organization { openApiSpecs(first: 100) { nodes { slug } } } }
      }`,
      {
        a: { organizationId: org, specSlug: 'spec-1', source: { text: 'not: openapi\n' } },
        b: { organizationId: org, specSlug: 'put-new', source: { url: 'http://127.0.0.1:9/missing.yaml' } },
      },
    );
    expect(res.a.openApiSpec).toEqual({ slug: 'spec-1', processingState: 'PENDING' });
    expect(res.b.openApiSpec).toEqual({ slug: 'put-new', processingState: 'PENDING', sourceURL: 'http://127.0.0.1:9/missing.yaml' });
    expect(res.b.organization.openApiSpecs.nodes.map((n: any) => n.slug)).toContain('put-new');
    await t.upstream.idle();
    const back = await t.data(SPEC, { org, slug: 'spec-1' });
    expect(back.openApiSpec).toMatchObject({ processingState: 'COMPLETE', lastProcessErrorCode: 'PARSE_ERROR' });
    const created = await t.data(SPEC, { org, slug: 'put-new' });
    expect(created.openApiSpec).toMatchObject({ processingState: 'COMPLETE', lastProcessErrorCode: 'FETCH_ERROR' });
  });

  it('deleteOpenApiSpec returns the deleted global id; the spec is gone', async () => {
    const { openApiSpec } = await t.data(SPEC, { org, slug: 'spec-5' });
    const res = await t.data(
      `mutation($input: DeleteOpenApiSpecInput!) { deleteOpenApiSpec(input: $input) {
        deletedId organization { openApiSpecs(first: 100) { nodes { slug } } } } }`,
      { input: { organizationId: org, specSlug: 'spec-5' } },
    );
    expect(res.deleteOpenApiSpec.deletedId).toBe(openApiSpec.id);
    expect(res.deleteOpenApiSpec.organization.openApiSpecs.nodes.map((n: any) => n.slug)).not.toContain('spec-5');
    const after = await t.gql('query($id: ID!) { node(id: $id) { id } }', { id: openApiSpec.id });
    expect(after.errors?.[0]).toMatchObject({ path: ['node'], extensions: { code: 'NOT_FOUND' } });
    expect((await t.api.get(`/orgs/${org}/openapi/spec-5`)).status).toBe(404);
  });
});

describe('translation settings mutations', () => {
  const Q = `query($org: String!, $id: String!) { translationSettings(organizationId: $org, translationSettingsId: $id) { id title languages } }`;

  it('create (default English), update title and languages, delete; each read back', async () => {
    const created = await t.data(
      `mutation($a: CreateTranslationSettingsInput!, $b: CreateTranslationSettingsInput!) {
        a: createTranslationSettings(input: $a) { translationSettings { id restId title languages } organization { translations(first: 100) { nodes { restId } } } }
        b: createTranslationSettings(input: $b) { translationSettings { restId languages } organization { translations(first: 100) { nodes { restId } } } }
      }`,
      { a: { organizationId: org, title: 'Docs' }, b: { organizationId: org, title: 'Manual', languages: ['ZH_TW', 'PT_BR'] } },
    );
    const a = created.a.translationSettings;
    expect(a).toMatchObject({ title: 'Docs', languages: ['EN'] });
    expect(created.b.translationSettings.languages).toEqual(['ZH_TW', 'PT_BR']);
    // the same list read again in b's payload is fresh: one more item, b's
    const listA = created.a.organization.translations.nodes.map((n: any) => n.restId);
    const listB = created.b.organization.translations.nodes.map((n: any) => n.restId);
    expect(listA).toContain(a.restId);
    expect(listB).toEqual([...listA, created.b.translationSettings.restId]);
    expect((await t.api.get(`/orgs/${org}/translations/${a.restId}`)).body).toMatchObject({ title: 'Docs', languages: ['en'] });

    const updated = await t.data(
      `mutation($input: UpdateTranslationSettingsInput!) { updateTranslationSettings(input: $input) { translationSettings { id title languages } } }`,
      { input: { organizationId: org, translationSettingsId: a.restId, title: 'Docs 2', languages: ['DE', 'FR'] } },
    );
    expect(updated.updateTranslationSettings.translationSettings).toEqual({ id: a.id, title: 'Docs 2', languages: ['DE', 'FR'] });
    expect((await t.data(Q, { org, id: a.restId })).translationSettings).toEqual({ id: a.id, title: 'Docs 2', languages: ['DE', 'FR'] });

    const deleted = await t.data(
      `mutation($input: DeleteTranslationSettingsInput!) { deleteTranslationSettings(input: $input) { deletedId organization { restId } } }`,
      { input: { organizationId: org, translationSettingsId: a.restId } },
    );
    expect(deleted.deleteTranslationSettings).toEqual({ deletedId: a.id, organization: { restId: org } });
    const gone = await t.gql(Q, { org, id: a.restId });
    expect(gone.errors?.[0]).toMatchObject({ path: ['translationSettings'], extensions: { code: 'NOT_FOUND' } });
  });

  it('title 1..100 and distinct languages, checked before any REST call', async () => {
    await expectRejected(t, 'createTranslationSettings', { organizationId: org, title: '' }, 'input.title');
    await expectRejected(t, 'createTranslationSettings', { organizationId: org, title: 't'.repeat(101) }, 'input.title');
    await expectRejected(t, 'createTranslationSettings', { organizationId: org, title: 'x', languages: [] }, 'input.languages');
    expect(
      await expectRejected(t, 'createTranslationSettings', { organizationId: org, title: 'x', languages: ['EN', 'EN'] }, 'input.languages'),
    ).toBe('input.languages: must not repeat a language');
    await expectRejected(t, 'updateTranslationSettings', { organizationId: org, translationSettingsId: 'x', title: '' }, 'input.title');
    const max = await t.data(
      'mutation($input: CreateTranslationSettingsInput!) { createTranslationSettings(input: $input) { translationSettings { title } } }',
      { input: { organizationId: org, title: 't'.repeat(100) } },
    );
    expect(max.createTranslationSettings.translationSettings.title).toHaveLength(100);
  });

  it('a read-only member is FORBIDDEN to create; their read still works', async () => {
    const res = await t.gql(
      `mutation($input: CreateTranslationSettingsInput!) { createTranslationSettings(input: $input) { translationSettings { id } } }`,
      { input: { organizationId: org, title: 'Nope' } },
      token('read'),
    );
    expect(res.errors?.[0]).toMatchObject({ path: ['createTranslationSettings'], extensions: { code: 'FORBIDDEN' } });
    const read = await t.data(
      `query($org: String!) { organization(organizationId: $org) { translations(first: 1) { nodes { title permissions { edit } } } } }`,
      { org },
      token('read'),
    );
    expect(read.organization.translations.nodes[0].permissions.edit).toBe(false);
  });
});

describe('custom font mutations', () => {
  const FONT = `query($org: String!, $id: String!) { customFont(organizationId: $org, fontId: $id) { id fontFamily fontFaces { weight sources { format } } } }`;

  it('create, update (a null storageKey removes a weight), delete; each read back', async () => {
    const created = await t.data(
      `mutation($input: CreateCustomFontInput!) { createCustomFont(input: $input) {
        customFont { id restId fontFamily fontFaces { weight sources { url format } } } organization { fonts(first: 100) { nodes { restId } } } } }`,
      {
        input: {
          organizationId: org,
          fontFamily: 'Inter',
          fontFaces: [
            { weight: 700, storageKey: 'fonts/inter/bold.woff' },
            { weight: 400, storageKey: 'fonts/inter/regular.woff2' },
          ],
        },
      },
    );
    const font = created.createCustomFont.customFont;
    expect(font.fontFaces.map((f: any) => [f.weight, f.sources[0].format])).toEqual([
      [400, 'WOFF2'],
      [700, 'WOFF'],
    ]);
    expect(created.createCustomFont.organization.fonts.nodes.map((n: any) => n.restId)).toContain(font.restId);

    const updated = await t.data(
      `mutation($input: UpdateCustomFontInput!) { updateCustomFont(input: $input) { customFont { fontFamily fontFaces { weight } } } }`,
      {
        input: {
          organizationId: org,
          fontId: font.restId,
          fontFamily: 'Inter Var',
          fontFaces: [
            { weight: 700, storageKey: null },
            { weight: 300, storageKey: 'fonts/inter/light.woff2' },
          ],
        },
      },
    );
    expect(updated.updateCustomFont.customFont).toEqual({ fontFamily: 'Inter Var', fontFaces: [{ weight: 300 }, { weight: 400 }] });
    const back = (await t.data(FONT, { org, id: font.restId })).customFont;
    expect(back).toMatchObject({ id: font.id, fontFamily: 'Inter Var', fontFaces: [{ weight: 300 }, { weight: 400 }] });
    expect((await t.api.get(`/orgs/${org}/fonts/${font.restId}`)).body.fontFaces.map((f: any) => f.weight)).toEqual([300, 400]);

    // removing weight 400 passes the input rules but REST refuses it: BAD_USER_INPUT from upstream
    const keep400 = await t.gql(`mutation($input: UpdateCustomFontInput!) { updateCustomFont(input: $input) { customFont { id } } }`, {
      input: { organizationId: org, fontId: font.restId, fontFaces: [{ weight: 400, storageKey: null }] },
    });
    expect(keep400.errors?.[0]).toMatchObject({
      path: ['updateCustomFont'],
      extensions: { code: 'BAD_USER_INPUT', upstream: { status: 400 } },
    });

    const deleted = await t.data(`mutation($input: DeleteCustomFontInput!) { deleteCustomFont(input: $input) { deletedId } }`, {
      input: { organizationId: org, fontId: font.restId },
    });
    expect(deleted.deleteCustomFont.deletedId).toBe(font.id);
    const gone = await t.gql(FONT, { org, id: font.restId });
    expect(gone.errors?.[0]).toMatchObject({ path: ['customFont'], extensions: { code: 'NOT_FOUND' } });
  });

  it('fontFamily 1..50, faces with weight 400, distinct weights, each storageKey given; no REST call', async () => {
    const face = { weight: 400, storageKey: 'fonts/a.woff2' };
    const input = { organizationId: org, fontFamily: 'Sans', fontFaces: [face] };
    await expectRejected(t, 'createCustomFont', { ...input, fontFamily: 'f'.repeat(51) }, 'input.fontFamily');
    await expectRejected(t, 'createCustomFont', { ...input, fontFamily: '' }, 'input.fontFamily');
    await expectRejected(t, 'createCustomFont', { ...input, fontFaces: [] }, 'input.fontFaces');
    expect(await expectRejected(t, 'createCustomFont', { ...input, fontFaces: [{ ...face, weight: 700 }] }, 'input.fontFaces')).toBe(
      'input.fontFaces: must include a face of weight 400',
    );
    await expectRejected(t, 'createCustomFont', { ...input, fontFaces: [face, face] }, 'input.fontFaces');
    await expectRejected(t, 'createCustomFont', { ...input, fontFaces: [{ ...face, weight: 1001 }] }, 'input.fontFaces[0].weight');
    await expectRejected(
      t,
      'updateCustomFont',
      { organizationId: org, fontId: 'x', fontFaces: [{ weight: 700 }] },
      'input.fontFaces[0].storageKey',
    );
    await expectRejected(t, 'updateCustomFont', { organizationId: org, fontId: 'x', fontFamily: 'f'.repeat(51) }, 'input.fontFamily');
    const max = await t.data('mutation($input: CreateCustomFontInput!) { createCustomFont(input: $input) { customFont { fontFamily } } }', {
      input: { ...input, fontFamily: 'f'.repeat(50) },
    });
    expect(max.createCustomFont.customFont.fontFamily).toHaveLength(50);
  });

  it('a read-only member is FORBIDDEN to create a font', async () => {
    const res = await t.gql(
      `mutation($input: CreateCustomFontInput!) { createCustomFont(input: $input) { customFont { id } } }`,
      { input: { organizationId: org, fontFamily: 'Nope', fontFaces: [{ weight: 400, storageKey: 'k' }] } },
      token('read'),
    );
    expect(res.errors?.[0]).toMatchObject({ path: ['createCustomFont'], extensions: { code: 'FORBIDDEN' } });
    expect(res.data).toEqual({ createCustomFont: null });
  });
});
