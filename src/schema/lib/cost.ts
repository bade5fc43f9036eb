/**
 * What a field costs, declared once as field extensions in the IBM GraphQL cost directives' terms:
 * `cost: {weight}` and `listSize: {slicingArguments, sizedFields, assumedSize}`. The subgraph SDL
 * prints them as `@cost` / `@listSize` (federation.ts), which Apollo Router, Hive Gateway and Cosmo
 * read; the gateway's own `--max-cost` (useCostLimit.ts) prices an operation from the same
 * declarations. A field declares its own with Pothos (`extensions: { cost: { weight: 2 } }`); every
 * other field gets the rule below, applied once when the schema is built:
 *
 *   weight 1  a field that may make a REST call: a root field, a connection, a field returning a
 *             Node (an edge to another object, loaded by its REST path), a field with arguments
 *             (a computed field such as `ChangeRequest.pdfUrl(only:)`);
 *   weight 0  what the parent's REST JSON already carries (scalars, enums, embedded objects such
 *             as `body`) and the connection plumbing (`edges`, `nodes`, `node`, `pageInfo`,
 *             `cursor`). Printed as `@cost(weight: 0)` on object-typed fields, which the spec
 *             would otherwise price 1. A field returning a Node its parent's JSON embeds whole
 *             (`postedBy`, a site space's `space`) declares it: EMBEDDED.
 *   listSize  a connection: `slicingArguments: ["first"], sizedFields: ["edges", "nodes"]`,
 *             `assumedSize` the default page size (`--default-page-size`'s default): each item
 *             costs what is selected below it. `nodes(ids:)` and `_entities`: `assumedSize` the
 *             most ids accepted (`--max-ids`'s default), each item a REST call. A list the
 *             parent's JSON carries whose items have fields that may call (`ssoLogins`, each
 *             login's `samlProvider` a GET; a site section's `siteSpaces`, each a space with its
 *             connections): `assumedSize` the default page size, each item costing what is
 *             selected below it, as a connection without `first` (priced once, 40 logins made
 *             41 calls for a price of 3).
 */
import {
  getNamedType,
  getNullableType,
  isCompositeType,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isObjectType,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import { SETTINGS } from '../../config.js';

export interface CostDeclaration {
  weight: number;
}

export interface ListSizeDeclaration {
  assumedSize?: number;
  slicingArguments?: string[];
  sizedFields?: string[];
  requireOneSlicingArgument?: boolean;
}

/** The field extensions that carry the declarations (Pothos `extensions`, graphql-js `field.extensions`). */
export interface CostExtensions {
  cost?: CostDeclaration;
  listSize?: ListSizeDeclaration;
}

type AnyField = GraphQLField<unknown, unknown>;

/**
 * The declaration of a field returning a Node that its parent's REST JSON embeds whole (a
 * comment's `postedBy`, a site space's `space`): no REST call, where the rule prices an edge to a
 * Node 1. In a connection's items that 1 is multiplied by the page size: `createdBy { displayName }`
 * under 20 organizations × 50 spaces × 50 change requests took a query of 49 REST calls from a
 * price of 1,021 to 51,021, refused.
 */
export const EMBEDDED = { cost: { weight: 0 } } as const satisfies CostExtensions;

const PLUMBING = new Set(['edges', 'nodes', 'node', 'pageInfo', 'cursor']);
const SIZED_FIELDS = ['edges', 'nodes'];

/** Root fields that list objects to load, by their list argument: one REST call per item. */
export const LOADED_LISTS: Readonly<Record<string, string>> = { nodes: 'ids', _entities: 'representations' };

const settingDefault = (key: string): number => {
  const setting = SETTINGS.find((s) => s.key === key);
  if (!setting) throw new Error(`No default for setting ${key}`);
  return setting.fallback('start') as number;
};

/** The page size and id count the printed `assumedSize`s use: the settings' defaults. */
export const DECLARED_SIZES = {
  defaultPageSize: settingDefault('defaultPageSize'),
  maxIds: settingDefault('maxIds'),
};

export const isConnection = (field: AnyField): boolean =>
  getNamedType(field.type).name.endsWith('Connection') && field.args.some((a) => a.name === 'first');

function returnsNode(field: AnyField): boolean {
  const type = getNamedType(field.type) as GraphQLCompositeType;
  if (isInterfaceType(type) && type.name === 'Node') return true;
  return (isObjectType(type) || isInterfaceType(type)) && type.getInterfaces().some((i) => i.name === 'Node');
}

/** The declarations the rule gives a field of `parent` (a root type when `root`). */
function ruleFor(field: AnyField, parentName: string, root: boolean): CostExtensions {
  if (PLUMBING.has(field.name) && /(Connection|Edge)$/.test(parentName)) return { cost: { weight: 0 } };
  if (root && LOADED_LISTS[field.name]) return { cost: { weight: 1 }, listSize: { assumedSize: DECLARED_SIZES.maxIds } };
  if (isConnection(field)) {
    const connection = getNamedType(field.type) as GraphQLCompositeType & { getFields(): Record<string, AnyField> };
    const sizedFields = SIZED_FIELDS.filter((f) => connection.getFields()[f]);
    const listSize = {
      slicingArguments: ['first'],
      sizedFields,
      assumedSize: DECLARED_SIZES.defaultPageSize,
      requireOneSlicingArgument: false,
    };
    return { cost: { weight: 1 }, listSize };
  }
  return { cost: { weight: root || returnsNode(field) || field.args.length > 0 ? 1 : 0 } };
}

/**
 * Declares every field's cost on `schema` (in place; a field's own declaration wins), and checks
 * that a connection's fields besides its sized ones cost nothing (the price multiplies by the page
 * size only what is under `edges`/`nodes`).
 */
export function declareCosts(schema: GraphQLSchema): void {
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(Boolean));
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || !(isObjectType(type) || isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields())) {
      const own = field.extensions as CostExtensions;
      const rule = ruleFor(field, type.name, roots.has(type as never));
      field.extensions = { ...field.extensions, cost: own.cost ?? rule.cost, listSize: own.listSize ?? rule.listSize };
    }
  }
  // Once every field has its weight: whether a list's items may cost depends on their fields'.
  // A connection's lists are its sized fields, multiplied by the connection's own size.
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || !(isObjectType(type) || isInterfaceType(type)) || /(Connection|Edge)$/.test(type.name)) continue;
    for (const field of Object.values(type.getFields()))
      if (!costOf(field).listSize && isListType(getNullableType(field.type)) && itemsMayCost(field))
        field.extensions = { ...field.extensions, listSize: { assumedSize: DECLARED_SIZES.defaultPageSize } };
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || !type.name.endsWith('Connection')) continue;
    for (const field of Object.values(type.getFields()))
      if (!SIZED_FIELDS.includes(field.name) && hasCost(field))
        throw new Error(`${type.name}.${field.name}: a connection's unsized fields must cost nothing`);
  }
}

/** The declarations of a field (none for introspection's own fields). */
export const costOf = (field: AnyField): CostExtensions => field.extensions as CostExtensions;

/** Whether a field or anything selectable under it may cost (walks the types once each). */
function hasCost(field: AnyField, seen = new Set<string>()): boolean {
  if ((costOf(field).cost?.weight ?? 0) > 0) return true;
  const type = getNamedType(field.type);
  if (!isCompositeType(type) || seen.has(type.name) || !(isObjectType(type) || isInterfaceType(type))) return false;
  seen.add(type.name);
  return Object.values(type.getFields()).some((f) => hasCost(f, seen));
}

/** Whether the items of a list field have a field that may cost (the list's own weight aside). */
function itemsMayCost(field: AnyField): boolean {
  const type = getNamedType(field.type);
  if (!(isObjectType(type) || isInterfaceType(type))) return false;
  const seen = new Set([type.name]);
  return Object.values(type.getFields()).some((f) => hasCost(f, seen));
}

/** The directives to print on a field: `@cost` where the spec's default (1 for objects, 0 for leaves) differs or a REST call is made, `@listSize` where declared. */
export function costDirectives(field: AnyField): string[] {
  const { cost, listSize } = costOf(field);
  const directives: string[] = [];
  const specDefault = isCompositeType(getNamedType(field.type)) ? 1 : 0;
  if (cost && (cost.weight !== specDefault || cost.weight > 0)) directives.push(`@cost(weight: ${cost.weight})`);
  if (listSize) {
    const args = Object.entries(listSize).map(([name, value]) => `${name}: ${JSON.stringify(value)}`);
    directives.push(`@listSize(${args.join(', ')})`);
  }
  return directives;
}
