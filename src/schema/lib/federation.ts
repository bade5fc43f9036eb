/**
 * The gateway as an Apollo Federation v2 subgraph. Every registered node type (src/schema/lib/node.ts)
 * is an entity keyed by its global id (`@key(fields: "id")`); those registered with `restIdKey`
 * are also keyed by their REST id (`@key(fields: "restId")`). A representation is loaded through
 * the type's per-request loader, the one `node(id)` uses, so several representations of one object
 * cost one REST call.
 *
 * Built with @apollo/subgraph's own parts (`_entities`, `_service`, `_Entity`), as
 * @pothos/plugin-federation does. `printSubgraphSchema` reads directives from AST nodes, so each
 * entity type gets one carrying its `@key`s and the schema gets `extend schema @link(…)`.
 *
 * Why not @pothos/plugin-federation (4.4.2 with @pothos/plugin-directives 4.3.2, tried with
 * @pothos/core 4.15.1, graphql 16.11, @apollo/subgraph 2.11.3; issue 13): it works (same
 * schema.graphql once the schema is sorted before plugin-directives mocks its AST, federation tests
 * green) but costs more at start. Its module imports `@apollo/subgraph`'s index, so
 * @apollo/federation-internals loads at start (34 modules), and `toSubGraphSchema` prints the SDL
 * eagerly; plugin-directives also builds an AST node for every type, field and argument. Measured
 * (dist/, 5 alternating runs, medians): RSS 3 s after start 108.7 MiB against 100.6 MiB here;
 * start to listening 2.2 s against 1.3 s; importing the schema alone 670–760 ms and 108–112 MiB
 * against 450–500 ms and 85–88 MiB. Revisit if the plugin loads the printer lazily.
 */
import { createRequire } from 'node:module';
import { EntityType, entitiesField, serviceField } from '@apollo/subgraph/dist/types.js';
import {
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLUnionType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  lexicographicSortSchema,
  parse,
  printType,
  type FieldDefinitionNode,
  type FragmentDefinitionNode,
  type InterfaceTypeDefinitionNode,
  type ObjectTypeDefinitionNode,
  type OperationDefinitionNode,
  type SchemaExtensionNode,
} from 'graphql';
import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';
import type { GatewayContext } from '../context.js';
import { costDirectives, declareCosts } from './cost.js';
import { userInputError } from './errors.js';
import { decodeNodeId, readWithBody } from './globalIds.js';
import { decodeKeys, nodeEntries, type NodeEntry } from './node.js';
import { SCHEMA_INTROSPECTION, rootFieldNames } from './rootFields.js';

export const FEDERATION_LINK = 'https://specs.apollo.dev/federation/v2.9';

/** A representation `_entities` receives: `__typename` and one of the entity's keys. */
interface Representation {
  id?: unknown;
  restId?: unknown;
}

/**
 * The local part of the global id a representation names. A key that is missing, of the wrong type,
 * or not one of this type's (a global id of another type or arity, `restId` on a type without that
 * key) is BAD_USER_INPUT, as `node(id:)` answers such an id: it was NOT_FOUND, which told a router
 * or client that a well-formed reference had been deleted.
 */
function localId(entry: NodeEntry, rep: Representation): string {
  const name = entry.ref.name;
  if (rep.id === undefined && (rep.restId === undefined || !entry.restIdKey))
    throw userInputError(`A ${name} representation needs its key: ${keyFields(entry).join(' or ')}`, 'representations');
  if (rep.id === undefined) {
    if (typeof rep.restId === 'string' && rep.restId) return rep.restId;
    throw userInputError(`restId: ${JSON.stringify(rep.restId)} is not the REST id of a ${name}`, 'representations');
  }
  const { typename, id } = typeof rep.id === 'string' ? decodeNodeId(rep.id) : { typename: '', id: '' };
  if (typename === name && decodeKeys(id, entry.arity)) return id;
  throw userInputError(`id: ${JSON.stringify(rep.id)} is not the global id of a ${name}`, 'representations');
}

function resolveReference(entry: NodeEntry) {
  return async (rep: Representation, ctx: GatewayContext, info: GraphQLResolveInfo) => {
    const id = localId(entry, rep);
    // A comment's `body { markdown }` read in that format at once, as node(id:) does.
    return readWithBody(ctx, info, entry.ref.name, id) ?? entry.ref.getDataloader(ctx).load(id);
  };
}

/**
 * @apollo/subgraph's `_entities` resolver, given only representations whose `__typename` names an
 * entity type: it threw a plain Error for any other (missing, unknown, `Query`, an interface),
 * which reached the caller as UPSTREAM_ERROR and the log with the caller's text in it.
 */
function resolveEntities(entityTypes: GraphQLObjectType[]): GraphQLFieldResolver<unknown, unknown> {
  const names = new Set(entityTypes.map((t) => t.name));
  const resolve = entitiesField.resolve!;
  return (source, args, context, info) => {
    const representations = (args as { representations: unknown[] }).representations;
    representations.forEach((rep, i) => {
      const typename = (rep as { __typename?: unknown } | null)?.__typename;
      if (typeof typename !== 'string' || !names.has(typename))
        throw userInputError(
          `representations[${i}].__typename: must name an entity type of this subgraph (a type with @key)`,
          'representations',
        );
    });
    return resolve(source, args, context, info);
  };
}

const keyFields = (entry: NodeEntry) => (entry.restIdKey ? ['id', 'restId'] : ['id']);

/** The schema with `_entities` (when it has entities) and `_service` on its query type. */
function withFederationFields(base: GraphQLSchema, entityTypes: GraphQLObjectType[], sdl: () => string): GraphQLSchema {
  const query = base.getQueryType();
  if (!query) throw new Error('A subgraph needs a query type');
  const entity = new GraphQLUnionType({ ...EntityType.toConfig(), types: entityTypes });
  const federationQuery = new GraphQLObjectType({
    ...query.toConfig(),
    fields: () => ({
      ...(entityTypes.length
        ? { _entities: { ...entitiesField, type: new GraphQLNonNull(new GraphQLList(entity)), resolve: resolveEntities(entityTypes) } }
        : {}),
      _service: { ...serviceField, resolve: () => ({ sdl: sdl() }) },
      ...query.toConfig().fields,
    }),
  });
  const config = base.toConfig();
  return new GraphQLSchema({ ...config, query: federationQuery, types: config.types.filter((t) => t !== query) });
}

/** Makes a type an entity: its reference resolver (its `@key`s are printed by `printDirectives`). */
function makeEntity(type: GraphQLObjectType, entry: NodeEntry): void {
  // The schema is this module's own sorted copy: its types are set up here, once, before use.
  type.extensions = { ...type.extensions, apollo: { subgraph: { resolveReference: resolveReference(entry) } } };
}

/**
 * The AST node `printSubgraphSchema` prints a type from (it reads applied directives from AST
 * nodes): its definition with its `@key`s, each field with its `@cost` and `@listSize` (cost.ts).
 */
function printedDefinition(
  type: GraphQLObjectType | GraphQLInterfaceType,
  entry?: NodeEntry,
): ObjectTypeDefinitionNode | InterfaceTypeDefinitionNode {
  const definition = parse(printType(type)).definitions[0] as ObjectTypeDefinitionNode | InterfaceTypeDefinitionNode;
  const applied = (directives: string[]) =>
    directives.length ? ((parse(`extend type T ${directives.join(' ')}`).definitions[0] as ObjectTypeDefinitionNode).directives ?? []) : [];
  const fields = type.getFields();
  const withCosts = (field: FieldDefinitionNode): FieldDefinitionNode => {
    const costs = applied(costDirectives(fields[field.name.value]));
    return costs.length ? { ...field, directives: [...(field.directives ?? []), ...costs] } : field;
  };
  const keys = entry ? applied(keyFields(entry).map((f) => `@key(fields: "${f}")`)) : [];
  return { ...definition, directives: [...(definition.directives ?? []), ...keys], fields: definition.fields?.map(withCosts) };
}

/** Gives every object and interface type its printed definition (keys and costs): done before the first print only. */
function printDirectives(schema: GraphQLSchema, entries: NodeEntry[]): void {
  const entryOf = new Map(entries.map((entry) => [entry.ref.name, entry]));
  for (const type of Object.values(schema.getTypeMap()))
    if (!isIntrospectionType(type) && (isObjectType(type) || isInterfaceType(type)) && !type.name.startsWith('_'))
      type.astNode = printedDefinition(type, entryOf.get(type.name));
}

/**
 * Builds the subgraph schema from the builder's schema (sorted lexicographically), and `sdl()`, its
 * print, which `_service` serves and schema.subgraph.graphql holds. The print needs @apollo/subgraph's
 * printer and with it @apollo/federation-internals (several MiB): loaded on the first `sdl()`, not
 * at start, since most gateways are never asked.
 */
export function toSubgraphSchema(base: GraphQLSchema): { schema: GraphQLSchema; sdl: () => string } {
  const entries = nodeEntries.filter((entry) => base.getType(entry.ref.name));
  const entityTypes = entries.map((entry) => base.getType(entry.ref.name) as GraphQLObjectType);
  let printed: string | undefined;
  const sdl = () => {
    const { printSubgraphSchema } = createRequire(import.meta.url)('@apollo/subgraph') as typeof import('@apollo/subgraph');
    if (printed === undefined) {
      printDirectives(schema, entries);
      printed = printSubgraphSchema(schema);
    }
    return printed;
  };
  const schema = lexicographicSortSchema(withFederationFields(base, entityTypes, sdl));
  declareCosts(schema);
  for (const entry of entries) makeEntity(schema.getType(entry.ref.name) as GraphQLObjectType, entry);
  const link = parse(`extend schema @link(url: "${FEDERATION_LINK}", import: ["@key", "@cost", "@listSize"])`)
    .definitions[0] as SchemaExtensionNode;
  Object.assign(schema, { extensionASTNodes: [link] });
  return { schema, sdl };
}

/** What only a router reads: the root fields and types @apollo/subgraph adds. */
const FEDERATION_FIELDS = new Set(['_entities', '_service']);
const FEDERATION_TYPES = new Set(['_Any', '_Entity', '_Service']);

const clientSchemas = new WeakMap<GraphQLSchema, GraphQLSchema>();

/**
 * The client schema of a subgraph schema: the same types, without `_entities`, `_service` and their
 * types. Introspection serves it (useClientIntrospection.ts) and schema.graphql is its print, so
 * Relay, Codegen and Apollo tooling read the graph a frontend queries, not the router's plumbing.
 */
export function clientSchemaOf(subgraph: GraphQLSchema): GraphQLSchema {
  let client = clientSchemas.get(subgraph);
  if (client) return client;
  const query = subgraph.getQueryType();
  if (!query) throw new Error('A subgraph needs a query type');
  const { fields, ...rest } = query.toConfig();
  const clientQuery = new GraphQLObjectType({
    ...rest,
    fields: Object.fromEntries(Object.entries(fields).filter(([name]) => !FEDERATION_FIELDS.has(name))),
  });
  const config = subgraph.toConfig();
  const types = config.types.filter((t) => t !== query && !FEDERATION_TYPES.has(t.name));
  client = new GraphQLSchema({ ...config, query: clientQuery, types, extensionASTNodes: [] });
  client.extensions = subgraph.extensions;
  clientSchemas.set(subgraph, client);
  return client;
}

/**
 * Whether introspection of this operation is served the client schema: its root selection (through
 * fragments) names `__schema` or `__type` and neither `_entities` nor `_service`.
 */
export function introspectsClientSchema(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): boolean {
  const names = rootFieldNames(operation, fragments);
  return [...SCHEMA_INTROSPECTION].some((f) => names.has(f)) && ![...FEDERATION_FIELDS].some((f) => names.has(f));
}
