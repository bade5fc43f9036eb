/**
 * Walks the resource table (src/schema/resources.ts): for every resource, its paths are REST
 * routes; its node, list, lookup and writes are in the schema; its node round-trips through
 * `node(id:)` over real HTTP; and a write followed by a read in the same operation sees the write
 * (the staleness the table declares).
 */
import { getNamedType, isInputObjectType, isObjectType, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_TEMPLATES } from '../../src/rest/routeTemplates.js';
import { schema } from '../../src/schema/index.js';
import { pathParams, RESOURCES, type Resource } from '../../src/schema/resources.js';
import { VALID_OPENAPI_YAML } from '../helpers/fixtures.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { newSite, restAll } from './siteFixture.js';

const table = Object.entries(RESOURCES) as Array<[string, Resource]>;
const lowerFirst = (s: string) => s[0].toLowerCase() + s.slice(1);
const listPath = (r: Resource) => r.list?.path ?? r.path.slice(0, r.path.lastIndexOf('/'));
/** `/spaces/{spaceId}` → `/spaces/{}`: templates compared by shape, whatever the parameter names. */
const shape = (template: string) => template.replace(/\{\w+\}/g, '{}');
const routes = new Set(ROUTE_TEMPLATES.map(shape));
const type = (name: string) => schema.getType(name) as GraphQLObjectType;
const rootOf = (on: string) => (on === 'Query' ? schema.getQueryType()! : type(on));

describe('the resource table, against the schema', () => {
  it.each(table)('%s: its REST paths are routes of the seed', (_name, r) => {
    // An object REST only embeds in its parent (`within`) has no path of its own.
    const own = r.within ? [] : [r.path, ...(r.list ? [listPath(r)] : [])];
    const paths = [...own, ...Object.values(r.writes ?? {}).flatMap((w) => (w.path ? [w.path] : []))];
    for (const p of paths) expect(routes, p).toContain(shape(p));
  });

  it.each(table)('%s: a Node with restId, its list with its filters, its lookup and its writes', (name, r) => {
    const node = type(name);
    expect(node.getInterfaces().map((i) => i.name)).toContain('Node');
    expect(Object.keys(node.getFields())).toEqual(expect.arrayContaining(['id', 'restId']));
    if (r.list) {
      const field = rootOf(r.list.on).getFields()[r.list.field];
      expect(getNamedType(field.type).name).toBe(`${name}Connection`);
      expect(field.args.map((a) => a.name)).toEqual(expect.arrayContaining(['first', 'after', ...Object.keys(r.list.filters ?? {})]));
    }
    if (r.lookup) {
      const lookup = schema.getQueryType()!.getFields()[r.lookup.field];
      expect(getNamedType(lookup.type).name).toBe(name);
      expect(lookup.args.map((a) => a.name)).toEqual(expect.arrayContaining(pathParams(r.path)));
    }
    for (const [mutation, write] of Object.entries(r.writes ?? {})) {
      const field = schema.getMutationType()!.getFields()[mutation];
      expect(field, mutation).toBeDefined();
      const input = getNamedType(field.args[0].type);
      expect(isInputObjectType(input) && Object.keys(input.getFields())).toEqual(
        expect.arrayContaining([
          ...pathParams(write.path ?? (write.kind === 'create' ? listPath(r) : r.path)),
          ...Object.keys(write.body ? {} : (write.rules ?? {})),
        ]),
      );
      const payload = getNamedType(field.type);
      expect(isObjectType(payload) && Object.keys(payload.getFields())).toContain(write.kind === 'delete' ? 'deletedId' : lowerFirst(name));
    }
  });
});

/**
 * How to try a resource's writes: `create` names a create-kind write (two creates and a delete in
 * one operation), `update` an update (two in one operation, `field` changing); `input` builds the
 * REST keys and body. A resource with neither is found by walking its parents' lists.
 */
interface Sample {
  /** A resource with no write, no list and no parent: its lookup's arguments. */
  lookup?: Record<string, string>;
  create?: string;
  delete?: string;
  update?: string;
  field?: string;
  input?: (i: number) => Record<string, unknown>;
}

describe('the resource table, over real HTTP', () => {
  let t: TestStack;
  const samples: Record<string, Sample> = {};
  /** Global ids of one object per resource, for the node(id:) round trip. */
  const found = new Map<string, string>();

  beforeAll(async () => {
    t = await startStack();
    const org = t.world.orgId;
    const site = newSite(t, { spaces: 4 });
    const keys = { organizationId: org, siteId: site.siteId };
    const [section] = await restAll(t, `${site.base}/sections`);
    const space = (await t.api.post(`/orgs/${org}/spaces`, { title: 'Table' })).body;
    const cr = (await t.api.post(`/spaces/${space.id}/change-requests`, { subject: 'Open' })).body;
    await t.api.patch(`/spaces/${space.id}/change-requests/${cr.id}`, { status: 'open' });
    const crKeys = { spaceId: space.id, changeRequestId: cr.id };
    const comment = (await t.api.post(`/spaces/${space.id}/change-requests/${cr.id}/comments`, { body: { markdown: 'Hi' } })).body;
    const integration = {
      title: 'An integration',
      description: 'Does things',
      scopes: ['space:content:read'],
      script: 'export default {}',
      organization: org,
    };
    Object.assign(samples, {
      Member: {
        update: 'updateMember',
        field: 'role',
        input: (i: number) => ({ organizationId: org, userId: t.world.users.read.id, role: i === 1 ? 'COMMENT' : 'REVIEW' }),
      },
      SamlProvider: {
        create: 'createSamlProvider',
        delete: 'deleteSamlProvider',
        input: (i: number) => ({ organizationId: org, label: `SAML ${i}` }),
      },
      OpenApiSpec: {
        create: 'createOpenApiSpec',
        delete: 'deleteOpenApiSpec',
        input: (i: number) => ({ organizationId: org, slug: `table-${i}`, source: { text: VALID_OPENAPI_YAML } }),
      },
      TranslationSettings: {
        create: 'createTranslationSettings',
        delete: 'deleteTranslationSettings',
        input: (i: number) => ({ organizationId: org, title: `Translations ${i}` }),
      },
      CustomFont: {
        create: 'createCustomFont',
        delete: 'deleteCustomFont',
        input: (i: number) => ({
          organizationId: org,
          fontFamily: `Font ${i}`,
          fontFaces: [{ weight: 400, storageKey: `fonts/${i}.woff2` }],
        }),
      },
      User: { lookup: { userId: t.world.users.read.id } },
      Integration: {
        update: 'publishIntegration',
        field: 'title',
        input: (i: number) => ({ integrationName: 'table', ...integration, title: `Table ${i}` }),
      },
      Space: { create: 'createSpace', input: (i: number) => ({ organizationId: org, title: `Space ${i}` }) },
      Collection: { create: 'createCollection', input: (i: number) => ({ organizationId: org, title: `Collection ${i}` }) },
      ChangeRequest: { update: 'updateChangeRequest', field: 'subject', input: (i: number) => ({ ...crKeys, subject: `Subject ${i}` }) },
      Comment: {
        create: 'createComment',
        delete: 'deleteComment',
        input: (i: number) => ({ ...crKeys, body: { markdown: `Comment ${i}` } }),
      },
      CommentReply: {
        create: 'createCommentReply',
        delete: 'deleteCommentReply',
        input: (i: number) => ({ ...crKeys, commentId: comment.id, body: { markdown: `Reply ${i}` } }),
      },
      Team: { create: 'createTeam', delete: 'deleteTeam', input: (i: number) => ({ organizationId: org, title: `Team ${i}` }) },
      Invite: { create: 'createLinkInvite', delete: 'deleteLinkInvite', input: () => ({ organizationId: org, role: 'READ' }) },
      Site: { update: 'updateSite', field: 'title', input: (i: number) => ({ ...keys, title: `Site ${i}` }) },
      SiteSection: {
        create: 'createSiteSection',
        delete: 'deleteSiteSection',
        input: (i: number) => ({ ...keys, spaceId: site.spaceIds[i], title: `Section ${i}` }),
      },
      SiteSectionGroup: {
        create: 'createSiteSectionGroup',
        delete: 'deleteSiteSectionGroup',
        input: (i: number) => ({ ...keys, title: `Group ${i}` }),
      },
      ShareLink: { create: 'createShareLink', delete: 'deleteShareLink', input: (i: number) => ({ ...keys, name: `Link ${i}` }) },
      SiteRedirect: {
        create: 'createSiteRedirect',
        delete: 'deleteSiteRedirect',
        input: (i: number) => ({ ...keys, source: `/old-${i}`, destination: { siteSection: { siteSectionId: section.id } } }),
      },
    } satisfies Record<string, Sample>);
  });
  afterAll(() => t?.stop());

  /** The parent field of a write's payload, with its list of the resource. */
  const parentList = (r: Resource, field = '') =>
    r.list && r.list.on !== 'Query' ? `${lowerFirst(r.list.on)} { ${r.list.field}(first: 100) { nodes { id ${field} } } }` : '';
  const listed = (payload: any, r: Resource) => payload[lowerFirst(r.list!.on)][r.list!.field].nodes as any[];

  it.each(table)('%s: a write then a read in one operation sees the write', async (name, r) => {
    const sample = samples[name];
    if (!sample) return expect(Object.keys(r.writes ?? {}), `${name} has writes: give it a sample`).toEqual([]);
    const node = lowerFirst(name);
    const Input = (m: string) => `${m[0].toUpperCase()}${m.slice(1)}Input`;
    if (sample.create) {
      const m = sample.create;
      const data = await t.data(
        `mutation($a: ${Input(m)}!, $b: ${Input(m)}!) {
          a: ${m}(input: $a) { ${node} { id restId } ${parentList(r)} }
          b: ${m}(input: $b) { ${node} { id restId } ${parentList(r)} } }`,
        { a: sample.input!(1), b: sample.input!(2) },
      );
      const [a, b] = [data.a[node], data.b[node]];
      // The list read after the second create is not the one cached after the first.
      expect(listed(data.b, r).map((n) => n.id)).toEqual(expect.arrayContaining([a.id, b.id]));
      found.set(name, a.id);
      if (!sample.delete) return;
      // The REST keys are those the global id holds (a spec's slug, not its `restId`).
      const keysOf = (id: string) => {
        const local = Buffer.from(id, 'base64')
          .toString('utf8')
          .slice(name.length + 1);
        const keys: string[] = local.startsWith('[') ? JSON.parse(local) : [local];
        return Object.fromEntries(pathParams(r.path).map((p, i) => [p, keys[i]]));
      };
      // A create whose payload reads the list, then a delete: the list read after it lacks the deleted one.
      const del = await t.data(
        `mutation($c: ${Input(m)}!, $d: ${Input(sample.delete)}!) {
          read: ${m}(input: $c) { ${node} { id } ${parentList(r)} }
          gone: ${sample.delete}(input: $d) { deletedId ${parentList(r)} } }`,
        { c: sample.input!(3), d: keysOf(b.id) },
      );
      expect(del.gone.deletedId).toBe(b.id);
      expect(listed(del.read, r).map((n) => n.id)).toContain(b.id);
      expect(listed(del.gone, r).map((n) => n.id)).not.toContain(b.id);
    } else if (sample.update) {
      const m = sample.update;
      const data = await t.data(
        `mutation($a: ${Input(m)}!, $b: ${Input(m)}!) {
          a: ${m}(input: $a) { ${node} { id ${sample.field} } ${parentList(r, sample.field)} }
          b: ${m}(input: $b) { ${node} { id ${sample.field} } ${parentList(r, sample.field)} } }`,
        { a: sample.input!(1), b: sample.input!(2) },
      );
      const id = data.a[node].id;
      expect(data.b[node][sample.field!]).toBe(sample.input!(2)[sample.field!]);
      if (parentList(r)) expect(listed(data.b, r).find((n) => n.id === id)?.[sample.field!]).toBe(sample.input!(2)[sample.field!]);
      found.set(name, id);
    }
  });

  it.each(table)('%s: its node round-trips through node(id:)', async (name, r) => {
    let id = found.get(name);
    if (!id && samples[name]?.lookup) {
      const args = Object.keys(samples[name].lookup!);
      const data = await t.data(
        `query(${args.map((a) => `$${a}: String!`).join(', ')}) { x: ${r.lookup!.field}(${args.map((a) => `${a}: $${a}`).join(', ')}) { id } }`,
        samples[name].lookup,
      );
      id = data.x.id;
    } else if (!id && r.list) {
      // Find one through its parent's list, as a client would.
      const parentId = r.list.on === 'Query' ? undefined : found.get(r.list.on);
      const query =
        r.list.on === 'Query'
          ? `{ list: ${r.list.field}(first: 1) { nodes { id } } }`
          : `query($id: ID!) { node(id: $id) { ... on ${r.list.on} { list: ${r.list.field}(first: 1) { nodes { id } } } } }`;
      const data = await t.data(query, { id: parentId });
      id = (r.list.on === 'Query' ? data.list : data.node.list).nodes[0]?.id;
    } else if (!id && r.within) {
      // Or inside its parent's JSON.
      const { resource, field } = r.within;
      const data = await t.data(`query($id: ID!) { node(id: $id) { ... on ${resource} { ${field} { id } } } }`, {
        id: found.get(resource),
      });
      id = data.node[field][0]?.id;
    }
    expect(id, `no ${name} to refetch: give it a sample or a parent that lists one`).toBeTruthy();
    found.set(name, id!);
    const data = await t.data(`query($id: ID!) { node(id: $id) { __typename id ... on ${name} { restId } } }`, { id });
    expect(data.node).toMatchObject({ __typename: name, id });
  });
});
