/**
 * What the resource table (src/schema/resources.ts) derives: a resource's node ref (global id over
 * its path parameters, refetch by GET or by a walk of its list), its connection type, the parent's
 * connection field, the root lookup, the create/update/delete mutations, and what a write makes
 * stale. A node file calls `resourceNode(name)`, implements the node's own fields, and the schema
 * index calls `deriveResources()` once every node file is loaded.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import type { Field, Fields, Rule } from '../../api/validate.js';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { listPath, RESOURCES, writePath, type InputObjectSpec, type Resource, type ResourceName, type Write } from '../resources.js';
import { forwardArgs, resolveList, type ListEnvelope } from './connection.js';
import { describeRule } from './descriptions.js';
import { ContentFormat, enumOfValues } from './enums.js';
import { bodyFormat } from './fields.js';
import { notFoundError } from './errors.js';
import { badNodeIdError } from './globalIds.js';
import { checkInput, restBody } from './mutation.js';
import { decodeKeys, encodeKeys, registerNode, restPath } from './node.js';
import { refOf, registerRefType, restRef } from './refs.js';
import { ANY_SEGMENT, type QueryParams } from '../restLoader.js';

type Json = Record<string, any>;
type Values = Record<string, any>;

/** Parameter names of a path template, in order: `/orgs/{organizationId}/teams/{teamId}` → both ids. */
export const pathParams = (template: string): string[] => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/**
 * A path template filled from `values`, each value one URI-encoded segment (empty, "." and ".."
 * refused); with `pattern`, a missing value becomes ANY_SEGMENT (a pattern of every path it could
 * be, for `RestLoader.forget`), else the path is undefined.
 */
export function fillPath(template: string, values: Values, pattern = false): string | undefined {
  let out = '';
  for (const part of templateParts(template)) {
    if (!part.name) out += part.text;
    // An empty key is refused by `restPath` (BAD_USER_INPUT), unless only a pattern is asked for.
    else if (typeof values[part.name] === 'string' && (values[part.name] || !pattern)) out += restPath`/${values[part.name] as string}`.slice(1);
    else if (pattern) out += ANY_SEGMENT;
    else return undefined;
  }
  return out;
}

/** A template's literal parts and parameters, split once per template (paths are built per request). */
const parsedTemplates = new Map<string, Array<{ text: string; name?: string }>>();
function templateParts(template: string): Array<{ text: string; name?: string }> {
  let parts = parsedTemplates.get(template);
  if (!parts) {
    parts = template
      .split(/(\{\w+\})/)
      .filter(Boolean)
      .map((text) => ({ text, name: /^\{(\w+)\}$/.exec(text)?.[1] }));
    parsedTemplates.set(template, parts);
  }
  return parts;
}


/** The shape of a node: its REST JSON plus every path parameter (attached wherever it is built). */
export interface ResourceInfo {
  name: string;
  spec: Resource;
  params: string[];
  idField: string;
  /** The REST JSON plus the path parameters `known` (the last one read from the JSON's id field). */
  attach: (json: Json, known: Values) => Json;
  keys: (obj: Json) => string[];
  path: (keys: string[]) => string;
  listPath: (values: Values) => string;
  /** The current object (a GET, or a walk of its list for resources REST has no GET of; a
   * shareable list is walked with `known.shareKey`). */
  find: (ctx: GatewayContext, keys: string[], known?: Values) => Promise<Json>;
  ref: any;
  connection?: any;
}

export const resources = new Map<string, ResourceInfo>();

/** Input types that writes name in `inputs` (input objects, or an enum wider than the rule), with how a value becomes its REST shape. */
const inputObjects = new Map<string, { ref: any; toRest?: (value: any) => unknown }>();

export function inputObject<T>(name: string, ref: T, toRest?: (value: any) => unknown): T {
  inputObjects.set(name, { ref, toRest });
  return ref;
}

/** The largest REST page, so a refetch by list walk costs as few calls as possible. */
const WALK_LIMIT = 1000;

/** The REST read query of a site's content: its share key, when opened by one. */
export const shareQuery = (o: { shareKey?: string }) => (o.shareKey ? { shareKey: o.shareKey } : undefined);

async function walkList(ctx: GatewayContext, info: ResourceInfo, keys: string[], known: Values = {}): Promise<Json> {
  const values = { ...Object.fromEntries(info.params.map((p, i) => [p, keys[i]])), shareKey: known.shareKey };
  const id = keys[keys.length - 1];
  const query = info.spec.list?.shareable ? shareQuery(values) : undefined;
  let page: string | undefined;
  do {
    const res = await ctx.rest.load<ListEnvelope<Json>>(info.listPath(values), { ...query, page, limit: WALK_LIMIT });
    const hit = res.items.find((item) => item[info.idField] === id);
    if (hit) return info.attach(hit, values);
    page = res.next?.page;
  } while (page);
  throw notFoundError(`${info.name} not found`);
}

/** The objects of `name` embedded in `parent` (a node of the resource it lives `within`), each
 * carrying that parent under its type name in lowerFirst (`siteSection`). */
export function within(name: ResourceName, parent: Json): Json[] {
  const info = resources.get(name)!;
  const { resource, field } = info.spec.within!;
  return (parent[field] as Json[]).map((item) => ({ ...info.attach(item, parent), [lowerFirst(resource)]: parent }));
}

async function findWithin(ctx: GatewayContext, info: ResourceInfo, keys: string[]): Promise<Json> {
  const parent = await resources.get(info.spec.within!.resource)!.find(ctx, keys.slice(0, -1));
  const hit = within(info.name as ResourceName, parent).find((item) => item[info.idField] === keys[keys.length - 1]);
  if (!hit) throw notFoundError(`${info.name} not found`);
  return hit;
}

/** The node ref of a resource of the table; implement its own fields with `.implement`. */
export function resourceNode<Shape extends object>(name: ResourceName) {
  const spec: Resource = RESOURCES[name];
  const params = pathParams(spec.path);
  const idField = spec.idField ?? 'id';
  const last = params[params.length - 1];
  const info: ResourceInfo = {
    name,
    spec,
    params,
    idField,
    attach: (json, known) => {
      const out: Json = { ...json };
      for (const p of params.slice(0, -1)) if (typeof known[p] === 'string') out[p] = known[p];
      for (const [p, field] of Object.entries(spec.jsonKeys ?? {})) out[p] ??= json[field];
      out[last] = json[idField] ?? known[last];
      if (typeof known.shareKey === 'string') out.shareKey = known.shareKey;
      return out;
    },
    keys: (obj) => params.map((p, i) => obj[p] ?? (i === params.length - 1 ? obj[idField] : obj[spec.jsonKeys?.[p] ?? p])),
    path: (keys) => fillPath(spec.path, Object.fromEntries(params.map((p, i) => [p, keys[i]])))!,
    listPath: (values) => fillPath(listPath(spec), values)!,
    find: async (ctx, keys, known) => {
      if (spec.within) return findWithin(ctx, info, keys);
      if (spec.listedOnly) return walkList(ctx, info, keys, known);
      const values = Object.fromEntries(params.map((p, i) => [p, keys[i]]));
      return info.attach(await ctx.rest.load<Json>(info.path(keys)), values);
    },
    ref: undefined,
  };
  const ref = builder.loadableNodeRef(name, {
    id: { resolve: (obj: Shape) => encodeKeys(info.keys(obj as Json)) },
    // No second cache over ctx.rest (which writes invalidate): a read after a write in the same
    // operation must see the write.
    loaderOptions: { cache: false },
    load: (ids: string[], ctx: GatewayContext) =>
      Promise.all(
        ids.map(async (id): Promise<Shape | Error> => {
          const keys = decodeKeys(id, params.length);
          if (!keys) return badNodeIdError(encodeGlobalID(name, id), name);
          return (info.find(ctx, keys) as Promise<Shape>).catch((error: Error) => error);
        }),
      ),
  });
  info.ref = ref;
  if (!spec.listedOnly)
    registerRefType(
      name,
      (keys) => ({ ...info.attach({}, Object.fromEntries(params.map((p, i) => [p, keys[i]]))), [idField]: keys[keys.length - 1] }),
      info.find,
    );
  resources.set(name, info);
  if (spec.list) info.connection = builder.connectionObject({ type: ref, name: `${name}Connection` }, { name: `${name}Edge` });
  return registerNode(ref, params.length, spec.restIdKey);
}

/** The table's derived parts of a resource (path, attach, find), for what is written by hand. */
export const resourceInfo = (name: ResourceName): ResourceInfo => resources.get(name)!;

/**
 * An object of `name` embedded in another answer (a member's teams, a change request's author):
 * its node shape, primed in the request's loader (under `query`) so reading it again costs no call.
 */
export function embedded<T extends object | undefined>(ctx: GatewayContext, name: ResourceName, json: T, known: Values = {}, query?: QueryParams): T {
  if (!json) return json;
  const info = resources.get(name)!;
  const node = info.attach(json as Json, known);
  if (!info.spec.listedOnly) ctx.rest.prime(info.path(info.keys(node)), json, query);
  return node as T;
}

/** The connection type of a resource (for other lists of it, e.g. a collection's spaces). */
export const connectionOf = (name: ResourceName) => resources.get(name)!.connection;

/** The GraphQL type of a rule: String, Boolean, Int, a REST enum, a list of those; JSON else. */
function ruleType(rule: Rule): any {
  switch (rule.kind) {
    case 'string':
      return 'String';
    case 'boolean':
      return 'Boolean';
    case 'number':
      return rule.int ? 'Int' : 'Float';
    case 'enum':
      return enumOfValues(rule.values);
    case 'array': {
      const of = ruleType(rule.of);
      return of === 'JSON' ? 'JSON' : [of];
    }
    default:
      return 'JSON';
  }
}

/** An input field of a body rule, described by the rule and the note. */
function ruleField(t: any, type: any, rule: Field, note?: string): any {
  const description = [note, describeRule(rule)].filter(Boolean).join(' ');
  // A required field that may be null (a role: null for guests) is nullable in GraphQL; the rule asks for it.
  return t.field({ type, required: Boolean(rule.required) && !rule.nullable, description: description || undefined });
}

const derivedInputs = new Map<string, unknown>();
const inputName = (spec: string | InputObjectSpec) => (typeof spec === 'string' ? spec : spec.name);

/** The type a write's `inputs` names: a registered or derived input object, or a scalar; a list of it for an array rule. */
function namedInput(spec: string | InputObjectSpec, rule: Rule): any {
  const name = inputName(spec);
  const item = rule.kind === 'array' ? rule.of : rule;
  const type =
    inputObjects.get(name)?.ref ??
    derivedInputs.get(name) ??
    (item.kind === 'object' && typeof spec !== 'string' ? deriveInput(spec, item.fields) : name);
  return rule.kind === 'array' ? [type] : type;
}

/** The input object of an object rule's fields (see `InputObjectSpec`). */
function deriveInput({ name, description, notes = {} }: InputObjectSpec, fields: Fields): unknown {
  const types = Object.fromEntries(
    Object.entries(fields).map(([f, rule]) => {
      const nested = { name: `${name.replace(/Input$/, '')}${f[0].toUpperCase()}${f.slice(1)}Input`, description: notes[f] ?? '' };
      return [f, (rule.kind === 'array' ? rule.of : rule).kind === 'object' ? namedInput(nested, rule) : ruleType(rule)];
    }),
  );
  const ref = builder.inputType(name, {
    description,
    fields: (t) => Object.fromEntries(Object.entries(fields).map(([f, rule]) => [f, ruleField(t, types[f], rule, notes[f])])) as never,
  });
  derivedInputs.set(name, ref);
  return ref;
}

const lowerFirst = (s: string) => s[0].toLowerCase() + s.slice(1);

/** What a write of `info` makes stale: its list, itself, and the table's `stale` paths, filled
 * from the input and then from the written JSON (its id, its `jsonKeys`). */
export function staleAfter(info: ResourceInfo, values: Values, json?: Json, write?: Write): string[] {
  const templates = [listPath(info.spec), info.spec.path, ...(info.spec.stale ?? []), ...(write?.stale ?? [])];
  const known = { ...(json ? info.attach(json, {}) : {}), ...values };
  return templates.map((t) => fillPath(t, known, true)!);
}

/**
 * `values` with the number of a `numbered` resource (a change request's) replaced by its REST id:
 * one GET, which primes the object's path by id too. `own` is left as given.
 */
let numbered: ResourceInfo[] | undefined;
export async function canonicalKeys(ctx: GatewayContext, values: Values, own?: string): Promise<Values> {
  const out = { ...values };
  for (const info of (numbered ??= [...resources.values()].filter((i) => i.spec.numbered))) {
    const p = info.params[info.params.length - 1];
    if (p === own || typeof out[p] !== 'string' || !info.spec.numbered!.test(out[p])) continue;
    const json = await ctx.rest.load<Json>(fillPath(info.spec.path, out)!);
    out[p] = json[info.idField];
    ctx.rest.prime(fillPath(info.spec.path, out)!, json);
  }
  return out;
}

/**
 * A hand-written write of a resource (a merge, a move, reactions): REST `method` on `path`, and
 * the request's loader forgets what the table says a write of `name` makes stale (the one
 * invalidation policy; `values` fill the table's templates). The written JSON is answered as is.
 */
export async function writeResource<T = Json>(
  ctx: GatewayContext,
  name: ResourceName,
  method: Write['method'],
  path: string,
  values: Values,
  body?: unknown,
  write?: Write,
) {
  let json: T | undefined;
  try {
    return (json = await ctx.rest.write<T>(method, path, body));
  } finally {
    // Filled from the input and the written JSON (e.g. a space's `organization`); a failed write
    // forgets the prefixes its input names.
    ctx.rest.forget(staleAfter(resources.get(name)!, values, json as Json | undefined, write));
  }
}

/** The parent's keys in `values`, as the parent's field resolves them (a reference). */
function parentOf(info: ResourceInfo, values: Values, ctx: GatewayContext, gql: any): unknown {
  const parent = resources.get(info.spec.list!.on);
  if (!parent) return null;
  const keys = parent.params.map((p, i) => (i === parent.params.length - 1 ? (values[p] ?? values[parent.idField]) : values[p]));
  if (keys.some((k) => typeof k !== 'string')) return null;
  return parent.spec.listedOnly ? parent.find(ctx, keys as string[]) : restRef(parent.name, keys as string[], ctx, gql);
}

/** Payload fields of a derived write beyond the table's (written in the node's file), by mutation name. */
const extraPayloadFields = new Map<string, (t: any) => Record<string, unknown>>();

/** Adds fields to the payload of the table's write `mutation`; they read `{values, node}` (input and written JSON). */
export function payloadFields(mutation: string, fields: (t: any) => Record<string, unknown>): void {
  extraPayloadFields.set(mutation, fields);
}

function deriveWrite(info: ResourceInfo, name: string, write: Write): void {
  const template = writePath(info.spec, write);
  const keyNames = pathParams(template);
  const parentName = info.spec.list?.on;
  const parentField = parentName && resources.has(parentName) ? lowerFirst(parentName) : undefined;
  const rules = write.body ? {} : (write.rules ?? {});
  const types = Object.fromEntries(
    Object.entries(rules).map(([field, rule]) => [field, write.inputs?.[field] ? namedInput(write.inputs[field], rule) : ruleType(rule)]),
  );
  const keyRules = Object.entries(info.spec.keyRules ?? {}).flatMap(([k, rule]) => (keyNames.includes(k) ? [[k, { ...rule, required: true }]] : []));
  builder.relayMutationField(
    name,
    {
      inputFields: (t) => ({
        ...Object.fromEntries(keyNames.map((k) => [k, t.string({ required: true, description: keyNote(k) })])),
        ...Object.fromEntries(Object.entries(rules).map(([field, rule]) => [field, ruleField(t, types[field], rule, write.notes?.[field])])),
      }),
    },
    {
      description: `${write.description} (\`${write.method} ${template}\`).`,
      resolve: async (_root, { input }, ctx) => {
        if (keyRules.length) checkInput(Object.fromEntries(keyRules), input as Values);
        const body = write.body ?? restBody(input as Values, keyNames);
        for (const [field, spec] of Object.entries(write.inputs ?? {}))
          if (body[field] !== undefined && body[field] !== null) body[field] = inputObjects.get(inputName(spec))?.toRest?.(body[field]) ?? body[field];
        if (write.rules) checkInput(write.rules, body);
        let values = await canonicalKeys(ctx, input as Values, info.params[info.params.length - 1]);
        if (write.readFirst) values = { ...info.attach(await info.find(ctx, info.keys(values)), values), ...values };
        const json = await writeResource(ctx, info.name as ResourceName, write.method, fillPath(template, values)!, values, write.method === 'DELETE' ? undefined : body, write);
        if (write.kind === 'delete') return { values, deletedId: encodeGlobalID(info.name, encodeKeys(info.keys(values))) };
        if (write.returns || write.empty) return { values, json };
        const node = info.attach(json, values);
        if (!info.spec.listedOnly) ctx.rest.prime(info.path(info.keys(node)), json);
        return { values: { ...values, ...node }, node };
      },
    },
    {
      outputFields: (t: any) => ({
        ...(write.kind === 'delete'
          ? { deletedId: t.id({ description: 'The global id of the deleted object.', resolve: (p: any) => p.deletedId }) }
          : write.returns || write.empty
            ? {
                ...(write.returns && { [write.returns.field]: t.field({ type: write.returns.type, nullable: true, resolve: (p: any) => p.json }) }),
                [lowerFirst(info.name)]: edge(t, info.name as ResourceName, (p: any) => info.keys(p.values), {
                  description: 'The object written, read again after the write.',
                }),
              }
            : { [lowerFirst(info.name)]: t.field({ type: info.ref, nullable: true, resolve: (p: any) => p.node }) }),
        ...extraPayloadFields.get(name)?.(t),
        ...(parentField
          ? {
              [parentField]: t.field({
                type: resources.get(parentName!)!.ref,
                nullable: true,
                description: `The ${parentField} it belongs to, as it is after the write.`,
                resolve: (p: any, _args: unknown, ctx: GatewayContext, gql: any) => parentOf(info, p.values, ctx, gql),
              }),
            }
          : {}),
      }),
    } as never,
  );
}

/** What a key argument says: a `numbered` resource's last key may be its number. */
const keyNote = (param: string) =>
  [...resources.values()].some((r) => r.spec.numbered && r.params[r.params.length - 1] === param) ? 'The REST id or the number.' : undefined;

/** Where the bodies of a connection's nodes are selected. */
const LISTED_BODIES = [
  ['edges', 'node', 'body'],
  ['nodes', 'body'],
];

/** The root's "keys": none. */
const ROOT = { params: [] as string[], keys: () => [] as string[] };

function deriveList(info: ResourceInfo): void {
  const list = info.spec.list!;
  const parent = list.on === 'Query' ? ROOT : resources.get(list.on);
  if (!parent) throw new Error(`${info.name}: list on ${list.on}, which is not a resource of the table`);
  const filters = list.filters ?? {};
  const onParent = list.on === 'Query' ? (f: any) => builder.queryField(list.field, f) : (f: any) => builder.objectField(resources.get(list.on)!.ref, list.field, f);
  onParent((t: any) =>
    t.field({
      type: info.connection,
      nullable: true,
      description: `${list.description} (\`GET ${listPath(info.spec)}\`).`,
      args: {
        ...forwardArgs,
        ...(list.bodies ? { format: t.arg({ type: ContentFormat, description: 'Format of the listed bodies.' }) } : {}),
        ...Object.fromEntries(
          Object.entries(filters).map(([name, f]) => [name, t.arg({ type: ruleType(f), description: f.description })]),
        ),
        ...(list.shareable ? { shareKey: t.arg.string({ description: `A share key (default: the one the ${lowerFirst(list.on)} was opened with).` }) } : {}),
      },
      resolve: (p: Json, args: Values, ctx: GatewayContext, gql: any) => {
        const parentKeys = parent.keys(p);
        const known: Values = { ...(parent.params.length ? p : {}), ...Object.fromEntries(parent.params.map((k, i) => [k, parentKeys[i]])) };
        if (list.shareable) known.shareKey = args.shareKey ?? p.shareKey;
        const query = Object.fromEntries(Object.keys(filters).map((k) => [k, args[k] ?? undefined]));
        // Listed bodies: REST is asked for the format the selection needs; items prime their path under it.
        const format = list.bodies ? bodyFormat(gql, LISTED_BODIES, args.format) : undefined;
        const formatQuery = format ? { format } : undefined;
        return resolveList(ctx, args, {
          path: info.listPath(known),
          query: { ...query, ...formatQuery, ...(list.shareable ? shareQuery(known) : undefined) } as never,
          node: (item: Json) => info.attach(item, known),
          itemPath: info.spec.listedOnly ? undefined : (_item: Json, node: Json) => info.path(info.keys(node)),
          primeQuery: formatQuery,
        });
      },
    }),
  );
}

function deriveLookup(info: ResourceInfo): void {
  const lookup = info.spec.lookup!;
  builder.queryField(lookup.field, (t: any) =>
    t.field({
      type: info.ref,
      nullable: true,
      description: `${lookup.description} (\`GET ${info.spec.path}\`).`,
      args: {
        ...Object.fromEntries(info.params.map((p) => [p, t.arg.string({ required: true, description: keyNote(p) })])),
        ...(lookup.bodies ? { format: t.arg({ type: ContentFormat, description: 'Format of the body, as REST `format`.' }) } : {}),
        ...(lookup.shareable
          ? { shareKey: t.arg.string({ description: lookup.shareable === 'lists' ? 'Opens what REST serves by share key (nothing is read up front).' : 'Opens share-link content: the object is read with it.' }) }
          : {}),
      },
      resolve: async (_root: unknown, args: Values, ctx: GatewayContext, gql: any) => {
        const values = await canonicalKeys(ctx, args);
        const keys = info.params.map((p) => values[p] as string);
        if (lookup.shareable === 'lists' && args.shareKey) return refOf(info.name, keys, { shareKey: args.shareKey });
        const format = lookup.bodies ? bodyFormat(gql, [['body']], args.format) : undefined;
        const query = { ...(format ? { format } : {}), ...(lookup.shareable ? shareQuery(args) : {}) };
        if (Object.keys(query).length) return info.attach(await ctx.rest.load<Json>(info.path(keys), query), values);
        return info.spec.listedOnly ? info.find(ctx, keys) : restRef(info.name, keys, ctx, gql);
      },
    }),
  );
}

/**
 * An edge to a resource whose REST keys the object carries (`Space.organization`, `Team.organization`):
 * a reference, so the lists below it start at once (src/schema/lib/refs.ts); null when a key is absent.
 */
export function edge<P>(t: any, name: ResourceName, keys: (p: P) => Array<string | null | undefined> | undefined, options: { description?: string } = {}) {
  return t.field({
    type: resources.get(name)?.ref ?? name,
    nullable: true,
    ...options,
    resolve: (p: P, _args: unknown, ctx: GatewayContext, gql: any) => {
      const info = resources.get(name)!;
      const k = keys(p);
      if (!k || !k.every((key): key is string => typeof key === 'string' && key !== '')) return null;
      return info.spec.listedOnly ? info.find(ctx, k) : restRef(name, k, ctx, gql);
    },
  });
}

/** Derives lists, lookups and writes of every resource in the table (once every node file is loaded). */
export function deriveResources(): void {
  for (const info of resources.values()) {
    if (info.spec.list) deriveList(info);
    if (info.spec.lookup) deriveLookup(info);
    for (const [name, write] of Object.entries(info.spec.writes ?? {})) deriveWrite(info, name, write);
  }
}
