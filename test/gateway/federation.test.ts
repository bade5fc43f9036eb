import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import { isObjectType, parse, valueFromASTUntyped, type ObjectTypeDefinitionNode, type TypeNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedSubgraphSchema } from '../../scripts/print-schema.js';
import { schema } from '../../src/schema/index.js';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { encodeKeys } from '../../src/schema/lib/node.js';

const globalId = (typename: string, ...keys: string[]) => encodeGlobalID(typename, encodeKeys(keys));
import { startStack, type TestStack } from '../helpers/gateway.js';
import { newSite, restAll } from './siteFixture.js';

const printTypeName = (type: TypeNode): string => (type.kind === 'NamedType' ? type.name.value : printTypeName(type.type));

const REST_ID_KEYED = ['Collection', 'Integration', 'Organization', 'Space', 'User'];

let t: TestStack;
let spaceId: string;
let collectionId: string;
let comment: { spaceId: string; changeRequestId: string; id: string };
const integrationName = 'fed-integration';

beforeAll(async () => {
  t = await startStack();
  spaceId = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Federated' })).body.id;
  collectionId = (await t.api.post(`/orgs/${t.world.orgId}/collections`, { title: 'Shelf' })).body.id;
  const cr = (await t.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Entities' })).body;
  const posted = await t.api.post(`/spaces/${spaceId}/change-requests/${cr.id}/comments`, { body: { markdown: 'Keyed' } });
  comment = { spaceId, changeRequestId: cr.id, id: posted.body.id };
  const manifest = {
    title: 'Fed',
    description: 'Federation test',
    scopes: ['space:content:read'],
    script: 'export default {}',
    organization: t.world.orgId,
  };
  expect((await t.api.post(`/integrations/${integrationName}`, manifest)).status).toBe(200);
});
afterAll(() => t.stop());

const calls = () => t.calls.map((c) => `${c.method} ${c.path}`);

/** Each object type of an SDL with the fields of its `@key`s. */
function keysBySdl(sdl: string): Record<string, string[]> {
  const keys: Record<string, string[]> = {};
  for (const def of parse(sdl).definitions) {
    if (def.kind !== 'ObjectTypeDefinition') continue;
    const fields = (def as ObjectTypeDefinitionNode).directives
      ?.filter((d) => d.name.value === 'key')
      .map((d) => (d.arguments?.[0].value as { value: string }).value);
    if (fields?.length) keys[def.name.value] = fields;
  }
  return keys;
}

const nodeTypes = () =>
  Object.values(schema.getTypeMap())
    .filter((type) => isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node'))
    .map((type) => type.name);

const ENTITIES = `query($reps: [_Any!]!) { _entities(representations: $reps) {
  __typename
  ... on Space { id restId title organization { restId } }
  ... on Organization { id restId title }
  ... on Collection { restId title }
  ... on User { restId displayName }
  ... on Integration { restId title }
  ... on Comment { id restId body { document } }
} }`;

describe('_service', () => {
  it('serves the subgraph SDL, which is schema.subgraph.graphql, with @link to federation v2', async () => {
    const { _service } = await t.data('{ _service { sdl } }');
    expect(_service.sdl + '\n').toBe(printedSubgraphSchema());
    expect(_service.sdl).toMatch(
      /^extend schema\s+@link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.9", import: \["@key", "@cost", "@listSize"\]\)/,
    );
  });

  it('keys every Node type by id, and Space, Collection, Organization, User, Integration also by restId', async () => {
    const { _service } = await t.data('{ _service { sdl } }');
    const keys = keysBySdl(_service.sdl);
    const nodes = nodeTypes();
    expect(nodes.length).toBeGreaterThanOrEqual(20);
    expect(Object.keys(keys).sort()).toEqual([...nodes].sort());
    for (const name of nodes) expect(keys[name], name).toEqual(REST_ID_KEYED.includes(name) ? ['id', 'restId'] : ['id']);
  });

  it('is a valid subgraph: @apollo/subgraph builds it and prints it back unchanged', async () => {
    const { _service } = await t.data('{ _service { sdl } }');
    const rebuilt = buildSubgraphSchema(parse(_service.sdl));
    expect(printSubgraphSchema(rebuilt)).toBe(_service.sdl);
    // The check is real: a key on a field the type lacks is rejected.
    const broken = _service.sdl.replace('@key(fields: "restId")', '@key(fields: "noSuchField")');
    expect(() => buildSubgraphSchema(parse(broken))).toThrow(/noSuchField/);
  });
});

describe('demand control directives', () => {
  const fieldsOf = (sdl: string) =>
    parse(sdl).definitions.flatMap((def) =>
      def.kind === 'ObjectTypeDefinition' ? (def.fields ?? []).map((f) => ({ type: def.name.value, field: f })) : [],
    );
  const directive = (f: { directives?: readonly { name: { value: string } }[] }, name: string) =>
    f.directives?.find((d) => d.name.value === name) as { arguments?: readonly { name: { value: string }; value: unknown }[] } | undefined;
  const args = (d: ReturnType<typeof directive>) =>
    Object.fromEntries((d?.arguments ?? []).map((a) => [a.name.value, valueFromASTUntyped(a.value as never)]));

  it('every connection has @listSize(slicingArguments: ["first"], sizedFields: ["edges", "nodes"]) with the default page size and @cost(weight: 1)', async () => {
    const { _service } = await t.data('{ _service { sdl } }');
    const connections = fieldsOf(_service.sdl).filter(({ field }) => /Connection$/.test(printTypeName(field.type)));
    expect(connections.length).toBeGreaterThanOrEqual(20);
    for (const { type, field } of connections) {
      const where = `${type}.${field.name.value}`;
      expect(args(directive(field, 'listSize')), where).toEqual({
        slicingArguments: ['first'],
        sizedFields: ['edges', 'nodes'],
        assumedSize: 20,
        requireOneSlicingArgument: false,
      });
      expect(args(directive(field, 'cost')), where).toEqual({ weight: 1 });
    }
  });

  it('REST-backed fields weigh 1 (root fields, Node edges, fields with arguments); embedded objects and plumbing 0', async () => {
    const { _service } = await t.data('{ _service { sdl } }');
    const weight = (type: string, name: string) => {
      const found = fieldsOf(_service.sdl).find((f) => f.type === type && f.field.name.value === name);
      return args(directive(found!.field, 'cost')).weight;
    };
    expect(weight('Query', 'viewer')).toBe(1);
    expect(weight('Query', 'nodes')).toBe(1);
    expect(weight('Space', 'organization')).toBe(1);
    expect(weight('ChangeRequest', 'pdfUrl')).toBe(1);
    expect(weight('SpaceConnection', 'edges')).toBe(0);
    expect(weight('SpaceEdge', 'node')).toBe(0);
    expect(weight('SpaceConnection', 'pageInfo')).toBe(0);
    expect(weight('Collection', 'urls')).toBe(0);
    expect(weight('Comment', 'body')).toBe(1); // an argument: the other format costs a call
    // Scalars the parent's JSON carries have the spec's default, 0: no directive.
    expect(weight('Space', 'title')).toBeUndefined();
  });
});

describe('_entities', () => {
  it('a representation without its key is BAD_USER_INPUT, before any REST call', async () => {
    t.resetCalls();
    // Before: NOT_FOUND "No Space with restId undefined".
    const result = await t.gql(ENTITIES, { reps: [{ __typename: 'Space' }] });
    expect(result.errors?.[0]).toMatchObject({
      message: 'A Space representation needs its key: id or restId',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect(t.calls).toEqual([]);
  });

  it('a representation whose __typename names no entity type is BAD_USER_INPUT, not echoed, with or without a token', async () => {
    for (const typename of [undefined, 42, 'Nope\nINFO forged', 'Query', 'Node', 'PageInfo', '__Type'])
      for (const token of [undefined, null]) {
        t.resetCalls();
        const result = await t.gql(ENTITIES, { reps: [{ __typename: typename, id: 'x' }] }, token);
        // Before: UPSTREAM_ERROR ("Unexpected error." or graphql-js's own message), the typename in an ERROR log line.
        expect(result.errors?.[0].extensions?.code, String(typename)).toBe('BAD_USER_INPUT');
        expect(JSON.stringify(result)).not.toContain('forged');
        expect(t.calls).toEqual([]);
      }
  });

  it('resolves representations by global id and by REST id, with the REST values', async () => {
    const reps = [
      { __typename: 'Space', id: globalId('Space', spaceId) },
      { __typename: 'Space', restId: spaceId },
      { __typename: 'Organization', restId: t.world.orgId },
      { __typename: 'Comment', id: globalId('Comment', comment.spaceId, comment.changeRequestId, comment.id) },
      { __typename: 'Collection', restId: collectionId },
      { __typename: 'User', restId: t.world.users.edit.id },
      { __typename: 'Integration', restId: integrationName },
    ];
    const { _entities } = await t.data(ENTITIES, { reps });
    const space = (await t.api.get(`/spaces/${spaceId}`)).body;
    const org = (await t.api.get(`/orgs/${t.world.orgId}`)).body;
    const restComment = (await t.api.get(`/spaces/${spaceId}/change-requests/${comment.changeRequestId}/comments/${comment.id}`)).body;
    const spaceEntity = {
      __typename: 'Space',
      id: globalId('Space', spaceId),
      restId: spaceId,
      title: space.title,
      organization: { restId: org.id },
    };
    expect(_entities).toEqual([
      spaceEntity,
      spaceEntity,
      { __typename: 'Organization', id: globalId('Organization', org.id), restId: org.id, title: org.title },
      {
        __typename: 'Comment',
        id: globalId('Comment', comment.spaceId, comment.changeRequestId, comment.id),
        restId: comment.id,
        body: { document: restComment.body.document },
      },
      { __typename: 'Collection', restId: collectionId, title: 'Shelf' },
      { __typename: 'User', restId: t.world.users.edit.id, displayName: 'Ada edit' },
      { __typename: 'Integration', restId: integrationName, title: 'Fed' },
    ]);
  });

  it('resolves nodes of every kind: organization-scoped (Member) and site-scoped (SiteSection)', async () => {
    const site = newSite(t);
    const [section] = await restAll(t, `${site.base}/sections`);
    const userId = t.world.users.review.id;
    const reps = [
      { __typename: 'Member', id: globalId('Member', t.world.orgId, userId) },
      { __typename: 'SiteSection', id: globalId('SiteSection', site.organizationId, site.siteId, section.id) },
    ];
    const q = `query($reps: [_Any!]!) { _entities(representations: $reps) {
      __typename ... on Member { restId user { restId } } ... on SiteSection { restId title }
    } }`;
    const { _entities } = await t.data(q, { reps });
    expect(_entities).toEqual([
      { __typename: 'Member', restId: userId, user: { restId: userId } },
      { __typename: 'SiteSection', restId: section.id, title: section.title },
    ]);
  });

  it('loads an object named by several representations (and node(id)) with one REST call', async () => {
    t.resetCalls();
    const q = `query($reps: [_Any!]!, $id: ID!) {
      _entities(representations: $reps) { ... on Space { restId } ... on Organization { restId } }
      node(id: $id) { ... on Space { title } }
    }`;
    const reps = [
      { __typename: 'Space', id: globalId('Space', spaceId) },
      { __typename: 'Space', restId: spaceId },
      { __typename: 'Organization', restId: t.world.orgId },
      { __typename: 'Organization', id: globalId('Organization', t.world.orgId) },
    ];
    const data = await t.data(q, { reps, id: globalId('Space', spaceId) });
    expect(data._entities).toEqual([{ restId: spaceId }, { restId: spaceId }, { restId: t.world.orgId }, { restId: t.world.orgId }]);
    expect(data.node).toEqual({ title: 'Federated' });
    expect(calls().sort()).toEqual([`GET /orgs/${t.world.orgId}`, `GET /spaces/${spaceId}`]);
  });

  it("a router's batch of entity fetches, one alias of _entities each, is not refused by --max-aliases; --max-ids bounds it", async () => {
    // Hive Gateway's shape: 35 entity fetches of one plan in one request (the default --max-aliases is 30).
    const n = 35;
    const vars = Array.from({ length: n }, (_, i) => `$_v${i}_representations: [_Any!]!`).join(' ');
    const fields = Array.from(
      { length: n },
      (_, i) => `_v${i}__entities: _entities(representations: $_v${i}_representations) { ... on Space { title } }`,
    );
    const batch = `query(${vars}) { ${fields.join(' ')} }`;
    const one = (count: number) =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`_v${i}_representations`, Array(count).fill({ __typename: 'Space', restId: spaceId })]),
      );
    const res = await t.gql(batch, one(1));
    expect(res.errors).toBeUndefined();
    expect(Object.values(res.data ?? {})).toEqual(Array(n).fill([{ title: 'Federated' }]));
    // 35 × 3 representations: over --max-ids (100), before any REST call.
    t.resetCalls();
    const over = await t.gql(batch, one(3));
    expect(over.errors?.map((e) => [e.extensions?.code, e.extensions?.limit])).toEqual([['BAD_USER_INPUT', 'maxIds']]);
    expect(t.calls).toHaveLength(0);
    // Aliases of any other field still count.
    const aliased = await t.gql(`{ ${Array.from({ length: n }, (_, i) => `a${i}: space(spaceId: "${spaceId}") { title }`).join(' ')} }`);
    expect(aliased.errors?.map((e) => e.extensions?.limit)).toEqual(['maxAliases']);
  });

  it('an unknown REST id is null with NOT_FOUND at its index; the others resolve', async () => {
    t.resetCalls();
    const reps = [
      { __typename: 'Space', restId: 'no-such-space' },
      { __typename: 'Organization', restId: t.world.orgId },
    ];
    const res = await t.gql(ENTITIES, { reps });
    expect(res.data?._entities[0]).toBeNull();
    expect(res.data?._entities[1]).toMatchObject({ __typename: 'Organization', restId: t.world.orgId });
    expect(res.errors).toHaveLength(1);
    expect(res.errors?.[0]).toMatchObject({ path: ['_entities', 0], extensions: { code: 'NOT_FOUND' } });
  });

  it('a malformed key, a key of another type or a key the type lacks is BAD_USER_INPUT, as node(id:) says, with no REST call', async () => {
    const reps = [
      { __typename: 'Space', id: 'not-a-global-id' },
      { __typename: 'Space', id: globalId('Organization', t.world.orgId) },
      { __typename: 'Comment', id: globalId('Comment', 'only-one-key') },
      { __typename: 'Comment', restId: comment.id },
      { __typename: 'Space', restId: '' },
      { __typename: 'Space', id: null },
      { __typename: 'Space', id: 5 },
      { __typename: 'Space', id: [globalId('Space', spaceId)] },
      { __typename: 'Space', restId: { spaceId } },
    ];
    t.resetCalls();
    const res = await t.gql(ENTITIES, { reps });
    expect(res.data?._entities).toEqual(reps.map(() => null));
    // Before: NOT_FOUND ("No Space with id null"), as if a well-formed reference named a deleted object.
    expect(res.errors?.map((e) => [e.path, e.extensions?.code])).toEqual(reps.map((_, i) => [['_entities', i], 'BAD_USER_INPUT']));
    expect(res.errors?.[0].message).toBe('id: "not-a-global-id" is not the global id of a Space');
    expect(res.errors?.[3].message).toBe('A Comment representation needs its key: id');
    expect(t.calls).toHaveLength(0);
    // What node(id:) answers the same caller for the same id.
    const node = await t.gql('query($id: ID!) { node(id: $id) { id } }', { id: 'not-a-global-id' });
    expect(node.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('REST decides access: a space hidden from the caller is NOT_FOUND from REST', async () => {
    const reps = [{ __typename: 'Space', restId: spaceId }];
    const hidden = await t.gql(ENTITIES, { reps }, t.world.users.outsider.token);
    expect(hidden.data?._entities).toEqual([null]);
    expect(hidden.errors?.[0]).toMatchObject({ path: ['_entities', 0], extensions: { code: 'NOT_FOUND', upstream: { status: 404 } } });
  });
});

describe('the subgraph still serves the graph', () => {
  it('queries, node(id) and mutations work as before', async () => {
    const data = await t.data('query($id: ID!) { viewer { restId } node(id: $id) { ... on Space { restId } } }', {
      id: globalId('Space', spaceId),
    });
    expect(data).toEqual({ viewer: { restId: t.world.users.admin.id }, node: { restId: spaceId } });
    const m = await t.data('mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { title } } }', {
      input: { spaceId, title: 'Renamed' },
    });
    expect(m.updateSpace.space.title).toBe('Renamed');
    expect((await t.api.get(`/spaces/${spaceId}`)).body.title).toBe('Renamed');
  });
});
