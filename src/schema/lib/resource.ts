/**
 * What the resource table (src/schema/resources.ts) derives: a resource's node ref (global id over
 * its path parameters, `restId`, refetch by GET or by a walk of its list), its connection type,
 * the parent's connection field, the root lookup, the create/update/delete mutations, and what a
 * write makes stale. The registry of resources is built from the table when this module loads
 * (every node ref and connection at once, so no file depends on another being imported first). A
 * node file declares its shape in `ResourceShapes`, takes its ref with `resourceNode(name)` and
 * implements the node's own fields; the schema index calls `deriveResources()` once every node
 * file is loaded.
 *
 * The helpers node files call are typed like Pothos's own (`edge(t, …)` takes the field builder of
 * the parent, so `keys` gets the parent's shape); casts stay inside this file.
 */
import { brandWithType, type FieldKind, type FieldRef, type InputFieldRef, type InputTypeParam, type ObjectRef } from '@pothos/core';
import type { ImplementableLoadableNodeRef } from '@pothos/plugin-dataloader';
import { encodeGlobalID } from '@pothos/plugin-relay';
import type { GraphQLResolveInfo } from 'graphql';
import type { Field, Fields, Rule } from '../../api/validate.js';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import {
  listPath,
  pathParams,
  RESOURCES,
  writePath,
  type InputObjectSpec,
  type Resource,
  type ResourceName,
  type Write,
} from '../resources.js';
import { forwardArgs, nextPage, resolveList, type ConnectionArgs, type ListEnvelope } from './connection.js';
import { describeRule } from './descriptions.js';
import { ContentFormat, enumOfValues } from './enums.js';
import { bodyFormat } from './selection.js';
import { answerlessWriteError, notFoundError } from './errors.js';
import { badNodeIdError, registerBodyReader } from './globalIds.js';
import { checkInput, restBody } from './mutation.js';
import { decodeKeys, encodeKeys, pathSegment, primePath, registerNode } from './node.js';
import { refOf, registerRefType, restRef, selectsOnRef } from './refs.js';
import { ANY_SEGMENT, type QueryParams } from '../restLoader.js';

/** The builder's schema types (its Context, scalars, defaults), for the typed helpers below. */
export type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type Types = BuilderTypes;

/** A node's JSON: the REST object plus its path parameters. */
type Json = Record<string, unknown>;
/** Values a path template is filled from: input fields, path parameters, JSON fields. */
type Values = Record<string, unknown>;

/** The node ref of a resource whose objects have `Shape` (a loadable node keyed by its local id). */
export type ResourceRef<Shape extends object> = ImplementableLoadableNodeRef<Types, string | Shape, Shape, string, string, string>;

/**
 * The node shape of each resource of the table (its REST JSON plus its path parameters), declared
 * by the resource's node file as Pothos declares its global types:
 *
 *     declare module '../lib/resource.js' {
 *       interface ResourceShapes { Team: RestTeam & { organizationId: string } }
 *     }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface ResourceShapes {}

/** The declared shape of a resource (its JSON, until its node file declares it). */
export type ShapeOf<N extends ResourceName> = N extends keyof ResourceShapes ? ResourceShapes[N] & object : Json;

/**
 * A path template filled from `values`, each value one URI-encoded segment (empty, "." and ".."
 * refused); with `pattern`, a missing value becomes ANY_SEGMENT (a pattern of every path it could
 * be, for `RestLoader.forget`), else the path is undefined.
 */
export function fillPath(template: string, values: object, pattern = false): string | undefined {
  let out = '';
  for (const part of templateParts(template)) {
    const value = part.name ? (values as Values)[part.name] : undefined;
    if (!part.name) out += part.text;
    // An empty key is refused by `pathSegment` (BAD_USER_INPUT), unless only a pattern is asked for.
    else if (typeof value === 'string' && (value || !pattern)) out += pathSegment(value);
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
export interface ResourceInfo<Shape extends object = Json> {
  name: ResourceName;
  spec: Resource;
  params: string[];
  idField: string;
  /** The REST JSON plus the path parameters `known` (the last one read from the JSON's id field). */
  attach: (json: object, known: object) => Shape;
  /** The path parameters of a node, outermost first. */
  keys: (obj: object) => string[];
  path: (keys: readonly string[]) => string;
  listPath: (values: object) => string;
  /** The current object (a GET, or a walk of its list for resources REST has no GET of; a
   * shareable list is walked with `known.shareKey`). */
  find: (ctx: GatewayContext, keys: readonly string[], known?: object) => Promise<Shape>;
  ref: ResourceRef<Shape>;
  connection?: ObjectRef<Types, unknown>;
}

/** Input types that writes name in `inputs` (input objects, or an enum wider than the rule), with how a value becomes its REST shape. */
const inputObjects = new Map<string, { ref: InputTypeParam<Types>; toRest?: (value: never) => unknown }>();

/** Registers an input type a write of the table names in `inputs` (checked by `deriveResources`). */
export function inputObject<T extends InputTypeParam<Types>, V = never>(name: string, ref: T, toRest?: (value: V) => unknown): T {
  inputObjects.set(name, { ref, toRest });
  return ref;
}

/** The largest REST page, so a refetch by list walk costs as few calls as possible. */
const WALK_LIMIT = 1000;

/** The REST read query of a site's content: its share key, when opened by one. */
export const shareQuery = (o: { shareKey?: string }) => (o.shareKey ? { shareKey: o.shareKey } : undefined);

async function walkList(ctx: GatewayContext, info: ResourceInfo, keys: readonly string[], known: Values = {}): Promise<Json> {
  const values: { shareKey?: string } & Values = { ...Object.fromEntries(info.params.map((p, i) => [p, keys[i]])) };
  if (typeof known.shareKey === 'string') values.shareKey = known.shareKey;
  const id = keys[keys.length - 1];
  const query = info.spec.list?.shareable ? shareQuery(values) : undefined;
  const path = info.listPath(values);
  const seen = new Set<string | undefined>([undefined]);
  let page: string | undefined;
  do {
    const res = await ctx.rest.load<ListEnvelope<Json>>(path, { ...query, page, limit: WALK_LIMIT });
    const hit = res.items.find((item) => item[info.idField] === id);
    if (hit) return info.attach(hit, values);
    page = nextPage(path, res, seen, res.items.length);
  } while (page !== undefined);
  throw notFoundError(`${info.name} not found`);
}

/** The objects of `name` embedded in `parent` (a node of the resource it lives `within`), each
 * carrying that parent under its type name in lowerFirst (`siteSection`). */
export const within = <N extends ResourceName>(name: N, parent: object): Array<ShapeOf<N>> => withinJson(name, parent) as Array<ShapeOf<N>>;

function withinJson(name: ResourceName, parent: object): Json[] {
  const info = resources.get(name)!;
  const { resource, field } = info.spec.within!;
  const json = parent as Json;
  return (json[field] as Json[]).map((item) => ({ ...info.attach(item, json), [lowerFirst(resource)]: parent }));
}

async function findWithin(ctx: GatewayContext, info: ResourceInfo, keys: readonly string[]): Promise<Json> {
  const parent = await resources.get(info.spec.within!.resource as ResourceName)!.find(ctx, keys.slice(0, -1));
  const hit = withinJson(info.name, parent).find((item) => item[info.idField] === keys[keys.length - 1]);
  if (!hit) throw notFoundError(`${info.name} not found`);
  return hit;
}

/** The derived parts of one entry of the table: its keys, paths, refetch, node ref and connection. */
function buildResource(name: ResourceName): ResourceInfo {
  const spec: Resource = RESOURCES[name];
  const params = pathParams(spec.path);
  const idField = spec.idField ?? 'id';
  const last = params[params.length - 1];
  // Computed once: `attach` runs for every object a request reads or lists.
  const parentParams = params.slice(0, -1);
  const jsonKeys = Object.entries(spec.jsonKeys ?? {});
  const byKeys = (keys: readonly string[]) => {
    const values: Values = {};
    params.forEach((p, i) => (values[p] = keys[i]));
    return values;
  };
  /**
   * The keys of a global id a caller sent, a change request's number in a parent key replaced by
   * its REST id (one GET, primed): a comment read by `Comment:["s","3","c"]` is the one listed as
   * `Comment:["s","<id>","c"]`, and answers that id, as clients' normalized caches and the response
   * cache's invalidation know it. The gateway hands out no id with a number in it.
   */
  const idKeys = async (ctx: GatewayContext, keys: readonly string[]): Promise<readonly string[]> => {
    const values = await canonicalKeys(ctx, byKeys(keys), last);
    return params.map((p) => values[p] as string);
  };
  const info: ResourceInfo = {
    name,
    spec,
    params,
    idField,
    attach: (object, knownValues) => {
      const json = object as Json;
      const known = knownValues as Values;
      const out: Json = { ...json };
      for (const p of parentParams) if (typeof known[p] === 'string') out[p] = known[p];
      for (const [p, field] of jsonKeys) out[p] ??= json[field];
      out[last] = json[idField] ?? known[last];
      if (typeof known.shareKey === 'string') out.shareKey = known.shareKey;
      return out;
    },
    keys: (object) => {
      const obj = object as Json;
      return params.map((p, i) => obj[p] ?? (i === params.length - 1 ? obj[idField] : obj[spec.jsonKeys?.[p] ?? p])) as string[];
    },
    path: (keys) => fillPath(spec.path, byKeys(keys))!,
    listPath: (values) => fillPath(listPath(spec), values as Values)!,
    find: async (ctx, keys, known) => {
      if (spec.within) return findWithin(ctx, info, keys);
      if (spec.listedOnly) return walkList(ctx, info, keys, known as Values);
      return info.attach(await ctx.rest.load<Json>(info.path(keys)), byKeys(keys));
    },
    ref: builder.loadableNodeRef(name, {
      id: { resolve: (obj: Json) => encodeKeys(info.keys(obj)) },
      // No second cache over ctx.rest (which writes invalidate): a read after a write in the same
      // operation must see the write.
      loaderOptions: { cache: false },
      load: (ids: string[], ctx: GatewayContext) =>
        Promise.all(
          ids.map(async (id): Promise<Json | Error> => {
            const keys = decodeKeys(id, params.length);
            if (!keys) return badNodeIdError(encodeGlobalID(name, id), name);
            return idKeys(ctx, keys)
              .then((canonical) => info.find(ctx, canonical))
              .catch((error: Error) => error);
          }),
        ),
    }),
  };
  if (!spec.listedOnly)
    registerRefType(name, (keys) => ({ ...info.attach({}, byKeys(keys)), [idField]: keys[keys.length - 1] }), info.find);
  if (spec.list)
    info.connection = builder.connectionObject({ type: info.ref, name: `${name}Connection` }, { name: `${name}Edge` }) as ObjectRef<
      Types,
      unknown
    >;
  // Every node's REST id (API.md), beside the global `id`.
  const { field = 'id', description = `The REST id of the ${name.replace(/\B[A-Z]/g, (c) => ` ${c}`).toLowerCase()}.` } = spec.restId ?? {};
  builder.objectField(info.ref, 'restId', (t) => t.string({ description, resolve: (obj) => obj[field] as string }));
  registerNode(info.ref, params.length, spec.restIdKey);
  if (spec.lookup?.bodies && !spec.listedOnly && !spec.within)
    registerBodyReader(name, async (ctx, id, format) => {
      const decoded = decodeKeys(id, params.length);
      if (!decoded) return badNodeIdError(encodeGlobalID(name, id), name);
      const keys = await idKeys(ctx as GatewayContext, decoded);
      const node = info.attach(await (ctx as GatewayContext).rest.load<Json>(info.path(keys), { format }), byKeys(keys));
      brandWithType(node, name as never);
      return node;
    });
  return info;
}

/** Every resource of the table, by name, in table order: built here, before any node file runs. */
const resources: ReadonlyMap<ResourceName, ResourceInfo> = new Map(
  (Object.keys(RESOURCES) as ResourceName[]).map((name) => [name, buildResource(name)]),
);

/** The node ref of a resource of the table, for objects of its declared shape; implement its own fields with `.implement`. */
export const resourceNode = <N extends ResourceName & keyof ResourceShapes>(name: N): ResourceRef<ShapeOf<N>> =>
  resources.get(name)!.ref as unknown as ResourceRef<ShapeOf<N>>;

/** The table's derived parts of a resource (path, attach, find), for what is written by hand. */
export const resourceInfo = <N extends ResourceName>(name: N): ResourceInfo<ShapeOf<N>> =>
  resources.get(name) as unknown as ResourceInfo<ShapeOf<N>>;

/**
 * An object of `name` embedded in another answer (a member's teams, a change request's author):
 * its node shape, primed in the request's loader (under `query`) so reading it again costs no call.
 */
export function embedded<N extends ResourceName, T extends object | null | undefined>(
  ctx: GatewayContext,
  name: N,
  json: T,
  known: object = {},
  query?: QueryParams,
): ShapeOf<N> | Exclude<T, object> {
  if (!json) return json as Exclude<T, object>;
  const info = resources.get(name)!;
  const node = info.attach(json, known);
  const path = info.spec.listedOnly ? undefined : primePath(() => info.path(info.keys(node)));
  if (path) ctx.rest.prime(path, json, query);
  return node as ShapeOf<N>;
}

/** The connection type of a resource (for other lists of it, e.g. a collection's spaces). */
export const connectionOf = (name: ResourceName): ObjectRef<Types, unknown> => resources.get(name)!.connection!;

/** The GraphQL type of a rule: String, Boolean, Int, a REST enum, a list of those; JSON else. */
function ruleType(rule: Rule): InputTypeParam<Types> {
  switch (rule.kind) {
    case 'string':
      return 'String';
    case 'boolean':
      return 'Boolean';
    case 'number':
      return rule.int ? 'Int' : 'Float';
    case 'enum':
      return enumOfValues(rule.values) as InputTypeParam<Types>;
    case 'array': {
      const of = ruleType(rule.of);
      return of === 'JSON' ? 'JSON' : ([of] as unknown as InputTypeParam<Types>);
    }
    default:
      return 'JSON';
  }
}

/** An input field of a body rule, described by the rule and the note. */
function ruleField(
  t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>,
  type: InputTypeParam<Types>,
  rule: Field,
  note?: string,
): InputFieldRef<Types, unknown> {
  const description = [note, describeRule(rule)].filter(Boolean).join(' ');
  // A required field that may be null (a role: null for guests) is nullable in GraphQL; the rule asks for it.
  return t.field({ type: type as 'JSON', required: Boolean(rule.required) && !rule.nullable, description: description || undefined });
}

const derivedInputs = new Map<string, InputTypeParam<Types>>();
const inputName = (spec: string | InputObjectSpec) => (typeof spec === 'string' ? spec : spec.name);

/** The type a write's `inputs` names: a registered or derived input object, or a scalar; a list of it for an array rule. */
function namedInput(spec: string | InputObjectSpec, rule: Rule): InputTypeParam<Types> {
  const name = inputName(spec);
  const item = rule.kind === 'array' ? rule.of : rule;
  const type =
    inputObjects.get(name)?.ref ??
    derivedInputs.get(name) ??
    (item.kind === 'object' && typeof spec !== 'string' ? deriveInput(spec, item.fields) : (name as 'String'));
  return rule.kind === 'array' ? ([type] as unknown as InputTypeParam<Types>) : type;
}

/** The input object of an object rule's fields (see `InputObjectSpec`). */
function deriveInput({ name, description, notes = {} }: InputObjectSpec, fields: Fields): InputTypeParam<Types> {
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
const numbered = [...resources.values()].filter((i) => i.spec.numbered);
export async function canonicalKeys<V extends Values>(ctx: GatewayContext, values: V, own?: string): Promise<V> {
  const out: Values = { ...values };
  for (const info of numbered) {
    const p = info.params[info.params.length - 1];
    const key = out[p];
    if (p === own || typeof key !== 'string' || !info.spec.numbered!.test(key)) continue;
    const json = await ctx.rest.load<Json>(fillPath(info.spec.path, out)!);
    out[p] = json[info.idField];
    ctx.rest.prime(fillPath(info.spec.path, out)!, json);
  }
  return out as V;
}

/**
 * A hand-written write of a resource (a merge, a move, reactions): REST `method` on `path` (with
 * `query`), and the request's loader forgets what the table says a write of `name` makes stale
 * (the one invalidation policy; `values` fill the table's templates). The written JSON is
 * answered as is.
 */
export async function writeResource<T = Json>(
  ctx: GatewayContext,
  name: ResourceName,
  method: Write['method'],
  path: string,
  values: Values,
  body?: unknown,
  write?: Write,
  query?: QueryParams,
) {
  let json: T | undefined;
  try {
    return (json = await ctx.rest.write<T>(method, path, body, query));
  } finally {
    // Filled from the input and the written JSON (e.g. a space's `organization`); a failed write
    // forgets the prefixes its input names.
    ctx.rest.forget(staleAfter(resources.get(name)!, values, json as Json | undefined, write));
  }
}

/**
 * The REST query of a write answered with a `info` object that carries a body: the format the
 * payload's `body` selects, markdown (the text as stored) when it selects none. The document,
 * REST's default, is built for each answer at up to 11 times its markdown: a 900 KB comment's was
 * 9 MB, 0.5 s of `npm start`'s one event loop, and more than the gateway reads, so its write,
 * made, answered UPSTREAM_ERROR.
 */
export function writeQuery(info: Pick<ResourceInfo<object>, 'name' | 'spec'>, gql: GraphQLResolveInfo): QueryParams | undefined {
  if (!info.spec.lookup?.bodies) return undefined;
  const format = bodyFormat(gql, [[lowerFirst(info.name), 'body']], undefined, 'markdown');
  return format ? { format } : undefined;
}

/**
 * The query a write's answer is primed under: `query` when the answer's body came in the format it
 * asks for. GitBook's OpenAPI description (and the seed) take `format` on a reply's POST only among
 * comment writes: an API that ignores it elsewhere answers its default, the document, which primed
 * as the markdown read answered `body { markdown }` null instead of reading it.
 */
export function answeredQuery(json: unknown, query: QueryParams | undefined): QueryParams | undefined {
  const body = (json as { body?: unknown } | undefined)?.body;
  const format = query?.format;
  if (typeof format !== 'string' || (body !== null && typeof body === 'object' && format in body)) return query;
  return undefined;
}

/** A hand-written write's answer its payload is read from; a 2xx without a body says the write was made (`answerlessWriteError`). */
export function answered<T>(json: T | undefined): T {
  if (json === undefined) throw answerlessWriteError();
  return json;
}

/** The parent's keys in `values`, as the parent's field resolves them (a reference). */
function parentOf(info: ResourceInfo, values: Values, ctx: GatewayContext, gql: GraphQLResolveInfo): unknown {
  const parent = resources.get(info.spec.list!.on as ResourceName);
  if (!parent) return null;
  const keys = parent.params.map((p, i) => (i === parent.params.length - 1 ? (values[p] ?? values[parent.idField]) : values[p]));
  if (keys.some((k) => typeof k !== 'string')) return null;
  return parent.spec.listedOnly ? parent.find(ctx, keys as string[]) : restRef(parent.name, keys as string[], ctx, gql);
}

/** What the payload of a derived write holds: the input's values (with the written node's), and
 * the written node, the REST answer, or the deleted node's global id. */
export interface WritePayload<Shape extends object = Json> {
  values: Values;
  node?: Shape;
  json?: unknown;
  deletedId?: string;
}

type WritesOf<N extends ResourceName> = (typeof RESOURCES)[N] extends { writes: infer W } ? keyof W & string : never;
/** The name of a mutation the table derives (`createTeam`, `moveSpace`, …). */
export type WriteName = { [N in ResourceName]: WritesOf<N> }[ResourceName];
type ResourceOfWrite<M extends string> = { [N in ResourceName]: M extends WritesOf<N> ? N : never }[ResourceName];

/** The field builder of the payload of the table's write `M`: its node has the resource's shape. */
export type PayloadFieldBuilder<M extends WriteName> = PothosSchemaTypes.ObjectFieldBuilder<
  Types,
  WritePayload<ShapeOf<ResourceOfWrite<M>>>
>;
type PayloadFields<M extends WriteName> = (t: PayloadFieldBuilder<M>) => Record<string, FieldRef<Types, unknown, 'Object'>>;
type JsonPayloadBuilder = PothosSchemaTypes.ObjectFieldBuilder<Types, WritePayload>;

/** Payload fields of a derived write beyond the table's (written in the node's file), by mutation name. */
const extraPayloadFields = new Map<string, (t: JsonPayloadBuilder) => Record<string, FieldRef<Types, unknown, 'Object'>>>();

/** Adds fields to the payload of the table's write `mutation`; they read `{values, node}` (input and written JSON). */
export function payloadFields<M extends WriteName>(mutation: M, fields: PayloadFields<M>): void {
  extraPayloadFields.set(mutation, fields as unknown as (t: JsonPayloadBuilder) => Record<string, FieldRef<Types, unknown, 'Object'>>);
}

function deriveWrite(info: ResourceInfo, name: string, write: Write): void {
  const template = writePath(info.spec, write);
  const keyNames = pathParams(template);
  const parent = resources.get(info.spec.list?.on as ResourceName);
  const parentField = parent ? lowerFirst(parent.name) : undefined;
  const rules = write.body ? {} : (write.rules ?? {});
  const types = Object.fromEntries(
    Object.entries(rules).map(([field, rule]) => [field, write.inputs?.[field] ? namedInput(write.inputs[field], rule) : ruleType(rule)]),
  );
  const keyRules = Object.entries(info.spec.keyRules ?? {}).flatMap(([k, rule]) =>
    keyNames.includes(k) ? [[k, { ...rule, required: true }]] : [],
  );
  builder.relayMutationField(
    name,
    {
      inputFields: (t) => ({
        ...Object.fromEntries(keyNames.map((k) => [k, t.string({ required: true, description: keyNote(k) })])),
        ...Object.fromEntries(
          Object.entries(rules).map(([field, rule]) => [field, ruleField(t, types[field], rule, write.notes?.[field])]),
        ),
      }),
    },
    {
      description: `${write.description} (\`${write.method} ${template}\`).`,
      resolve: async (_root, { input }, ctx, gql): Promise<WritePayload> => {
        if (keyRules.length) checkInput(Object.fromEntries(keyRules), input as Values);
        const body = write.body ?? restBody(input as Values, keyNames);
        for (const [field, spec] of Object.entries(write.inputs ?? {}))
          if (body[field] !== undefined && body[field] !== null)
            body[field] = inputObjects.get(inputName(spec))?.toRest?.(body[field] as never) ?? body[field];
        if (write.rules) checkInput(write.rules, body);
        let values = await canonicalKeys(ctx, input as Values, info.params[info.params.length - 1]);
        if (write.readFirst) values = { ...info.attach(await info.find(ctx, info.keys(values)), values), ...values };
        const query = write.kind === 'delete' ? undefined : writeQuery(info, gql);
        const json = await writeResource<Json>(
          ctx,
          info.name,
          write.method,
          fillPath(template, values)!,
          values,
          write.method === 'DELETE' ? undefined : body,
          write,
          query,
        );
        if (write.kind === 'delete') return { values, deletedId: encodeGlobalID(info.name, encodeKeys(info.keys(values))) };
        if (write.returns || write.empty) return { values, json };
        // A 2xx without a body (GitBook's OpenAPI description allows a 204 for some updates): the
        // write was made; its object is read again (`readAgain`). Its JSON read as one, a TypeError
        // answered "Unexpected error." for a write that was made.
        if (json === undefined) return { values };
        const node = info.attach(json, values);
        const path = info.spec.listedOnly ? undefined : primePath(() => info.path(info.keys(node)));
        if (path) ctx.rest.prime(path, json, answeredQuery(json, query));
        return { values: { ...values, ...node }, node };
      },
    },
    {
      outputFields: (t: JsonPayloadBuilder) => ({
        ...(write.kind === 'delete'
          ? { deletedId: t.id({ description: 'The global id of the deleted object.', resolve: (p) => p.deletedId! }) }
          : write.returns || write.empty
            ? {
                ...(write.returns && {
                  [write.returns.field]: t.field({ type: write.returns.type as 'JSON', nullable: true, resolve: (p) => p.json }),
                }),
                [lowerFirst(info.name)]: edge(t, info.name, (p) => info.keys(p.values), {
                  description: 'The object written, read again after the write.',
                }),
              }
            : {
                [lowerFirst(info.name)]: t.field({
                  type: info.ref,
                  nullable: true,
                  resolve: (p, _args, ctx, gql) => p.node ?? readAgain(info, p.values, ctx, gql),
                }),
              }),
        ...extraPayloadFields.get(name)?.(t),
        ...(parent && parentField
          ? {
              [parentField]: t.field({
                type: parent.ref as ObjectRef<Types, unknown>,
                nullable: true,
                description: `The ${parentField} it belongs to, as it is after the write.`,
                resolve: (p, _args, ctx, gql) => parentOf(info, p.values, ctx, gql),
              }),
            }
          : {}),
      }),
    } as never,
  );
}

/** The object a write answered without JSON, read again by its keys; null when they are not all known (a create's id). */
function readAgain(info: ResourceInfo, values: Values, ctx: GatewayContext, gql: GraphQLResolveInfo): Json | Promise<Json> | null {
  const keys = info.keys(values);
  if (!keys.every((key) => typeof key === 'string' && key !== '')) return null;
  return info.spec.listedOnly ? info.find(ctx, keys) : restRef<Json>(info.name, keys, ctx, gql);
}

/** What a key argument says: a `numbered` resource's last key may be its number. */
const keyNote = (param: string) =>
  [...resources.values()].some((r) => r.spec.numbered && r.params[r.params.length - 1] === param)
    ? 'The REST id or the number.'
    : undefined;

/** Where the bodies of a connection's nodes are selected. */
const LISTED_BODIES = [
  ['edges', 'node', 'body'],
  ['nodes', 'body'],
];

/** The root's "keys": none. */
const ROOT = { params: [] as string[], keys: () => [] as string[] };

/** A field on the root or on a node: the field builder either gives. */
type AnyFieldBuilder = PothosSchemaTypes.FieldBuilder<Types, unknown, FieldKind>;

function deriveList(info: ResourceInfo): void {
  const list = info.spec.list!;
  const parent = list.on === 'Query' ? ROOT : resources.get(list.on as ResourceName);
  if (!parent) throw new Error(`${info.name}: list on ${list.on}, which is not a resource of the table`);
  const filters = list.filters ?? {};
  const filterNames = Object.keys(filters);
  // The list's resolver passes on the parent's keys only: they must be all its path and its items need.
  const missing = [...pathParams(listPath(info.spec)), ...info.params.slice(0, -1)].filter((k) => !parent.params.includes(k));
  if (missing.length) throw new Error(`${info.name}: its list needs ${missing.join(', ')}, which ${list.on} has no key for`);
  const onParent = (f: (t: AnyFieldBuilder) => FieldRef<Types, unknown>) =>
    list.on === 'Query'
      ? builder.queryField(list.field, f as never)
      : builder.objectField(resources.get(list.on as ResourceName)!.ref, list.field, f as never);
  onParent((t) =>
    t.field({
      type: info.connection!,
      nullable: true,
      description: `${list.description} (\`GET ${listPath(info.spec)}\`).`,
      args: {
        ...forwardArgs,
        ...(list.bodies ? { format: t.arg({ type: ContentFormat, description: 'Format of the listed bodies.' }) } : {}),
        ...Object.fromEntries(Object.entries(filters).map(([name, f]) => [name, t.arg({ type: ruleType(f), description: f.description })])),
        ...(list.shareable
          ? { shareKey: t.arg.string({ description: `A share key (default: the one the ${lowerFirst(list.on)} was opened with).` }) }
          : {}),
      },
      resolve: (parentObject: unknown, fieldArgs: Values, ctx: GatewayContext, gql: GraphQLResolveInfo) => {
        const p = parentObject as Json;
        const args = fieldArgs as Values & { format?: 'markdown' | 'document' | null };
        // The parent's keys are all the list's path and its items need (checked above).
        const parentKeys = parent.keys(p);
        const known: Values = {};
        parent.params.forEach((k, i) => (known[k] = parentKeys[i]));
        if (list.shareable) known.shareKey = args.shareKey ?? p.shareKey;
        const query: Values = {};
        for (const k of filterNames) query[k] = args[k] ?? undefined;
        // Listed bodies: REST is asked for the format the selection needs; items prime their path under it.
        // None selected: markdown, the text as stored. The document, REST's default, is built for each
        // read at up to 11 times its markdown: a page of 900 KB comments asked for by `nodes { id }`
        // was 9 MB (18 before pages counted documents) and 0.5 s of `npm start`'s one event loop, and
        // more than the gateway reads (UPSTREAM_ERROR), where its markdown is 1.8 MB and 50 ms.
        const format = list.bodies ? bodyFormat(gql, LISTED_BODIES, args.format, 'markdown') : undefined;
        const formatQuery = format ? { format } : undefined;
        return resolveList(
          ctx,
          args as ConnectionArgs,
          {
            path: info.listPath(known),
            query: { ...query, ...formatQuery, ...(list.shareable ? shareQuery(known) : undefined) } as never,
            node: (item: Json) => info.attach(item, known),
            itemPath: info.spec.listedOnly ? undefined : (_item: Json, node: Json) => info.path(info.keys(node)),
            primeQuery: formatQuery,
            // `node` and `itemPath` depend on the resource and `known` alone.
            nodesKey: `${info.name}\0${JSON.stringify(known)}`,
          },
          gql,
        );
      },
    }),
  );
}

function deriveLookup(info: ResourceInfo): void {
  const lookup = info.spec.lookup!;
  // What REST serves by share key of an object it serves no GET of by key (a site's sections).
  const keyedList = [...resources.values()].find((r) => r.spec.list?.on === info.name && r.spec.list.shareable);
  if (lookup.shareable === 'lists' && !keyedList) throw new Error(`${info.name}: a lookup opened by key needs a list read by key`);
  builder.queryField(lookup.field, (t) =>
    t.field({
      type: info.ref as ObjectRef<Types, unknown>,
      nullable: true,
      description: `${lookup.description} (\`GET ${info.spec.path}\`).`,
      args: {
        ...Object.fromEntries(info.params.map((p) => [p, t.arg.string({ required: true, description: keyNote(p) })])),
        ...(lookup.bodies ? { format: t.arg({ type: ContentFormat, description: 'Format of the body, as REST `format`.' }) } : {}),
        ...(lookup.shareable
          ? {
              shareKey: t.arg.string({
                description:
                  lookup.shareable === 'lists'
                    ? 'Opens what REST serves by share key (nothing is read up front unless no list is selected).'
                    : 'Opens share-link content: the object is read with it.',
              }),
            }
          : {}),
      },
      resolve: async (_root, fieldArgs, ctx, gql) => {
        const args = fieldArgs as Values & { shareKey?: string | null; format?: 'markdown' | 'document' | null };
        const values = await canonicalKeys(ctx, args);
        const keys = info.params.map((p) => values[p] as string);
        if (lookup.shareable === 'lists' && args.shareKey) {
          // Nothing selected reads by the key (`{ id }` alone, or fields read with the token): the key
          // must open the object all the same, one call of its list REST serves by key, or any key
          // answered an object no call read (a site of any ids, cached as such).
          if (!selectsOnRef(info.name, gql)) await ctx.rest.load(keyedList!.listPath(values), { shareKey: args.shareKey, limit: 1 });
          return refOf<Json>(info.name, keys, { shareKey: args.shareKey });
        }
        const format = lookup.bodies ? bodyFormat(gql, [['body']], args.format) : undefined;
        const query = { ...(format ? { format } : {}), ...(lookup.shareable ? shareQuery({ shareKey: args.shareKey ?? undefined }) : {}) };
        if (Object.keys(query).length) return info.attach(await ctx.rest.load<Json>(info.path(keys), query), values);
        return info.spec.listedOnly ? info.find(ctx, keys) : restRef<Json>(info.name, keys, ctx, gql);
      },
    }),
  );
}

/**
 * An edge to a resource whose REST keys the object carries (`Space.organization`, `Team.organization`):
 * a reference, so the lists below it start at once (src/schema/lib/refs.ts); null when a key is
 * absent or empty. `t` is the parent's field builder, so `keys` reads the parent's shape.
 */
export function edge<Parent, Kind extends FieldKind>(
  t: PothosSchemaTypes.FieldBuilder<Types, Parent, Kind>,
  name: ResourceName,
  keys: (parent: Parent) => readonly unknown[] | undefined,
  options: { description?: string } = {},
): FieldRef<Types, unknown, Kind> {
  const info = resources.get(name)!;
  return t.field({
    type: info.ref as ObjectRef<Types, unknown>,
    nullable: true,
    ...options,
    resolve: (p: Parent, _args: unknown, ctx: GatewayContext, gql: GraphQLResolveInfo) => {
      const k = keys(p);
      if (!k || !k.every((key): key is string => typeof key === 'string' && key !== '')) return null;
      return info.spec.listedOnly ? info.find(ctx, k) : restRef(name, k, ctx, gql);
    },
  } as never);
}

/** Derives lists, lookups and writes of every resource in the table (once every node file is loaded). */
export function deriveResources(): void {
  const named = [...resources.values()].flatMap((info) =>
    Object.values(info.spec.writes ?? {}).flatMap((w) => Object.values(w.inputs ?? {})),
  );
  const missing = named.filter(
    (spec) => typeof spec === 'string' && !inputObjects.has(spec) && !['String', 'Int', 'Boolean', 'Float', 'JSON'].includes(spec),
  );
  if (missing.length) throw new Error(`inputs named by the resource table but never registered with inputObject(): ${missing.join(', ')}`);
  const writes = new Set([...resources.values()].flatMap((info) => Object.keys(info.spec.writes ?? {})));
  const stray = [...extraPayloadFields.keys()].filter((m) => !writes.has(m));
  if (stray.length) throw new Error(`payloadFields() for mutations the resource table does not declare: ${stray.join(', ')}`);
  for (const info of resources.values()) {
    if (info.spec.list) deriveList(info);
    if (info.spec.lookup) deriveLookup(info);
    for (const [name, write] of Object.entries(info.spec.writes ?? {})) deriveWrite(info, name, write);
  }
}
