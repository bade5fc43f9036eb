/**
 * References: a node known only by its REST keys (a root lookup by REST ids, an edge such as
 * `Space.organization`). A reference resolves at once, so the lists hanging below it start
 * without waiting; the node's own GET is made only when a selected field needs its JSON, and then
 * concurrently with those lists (the request's REST loader makes it once). A Pothos plugin wraps
 * the field resolvers of node types: `id`, `restId` and connections run on the reference, every
 * other field gets the JSON.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';
import { pathSegment } from '../../rest/index.js';
import type { GatewayContext } from '../context.js';
import { selectedFields } from './selection.js';

const KEYS = Symbol('restRefKeys');

interface RefType {
  /** The fields a reference of this type carries (what `id`, `restId` and the connections read). */
  stub: (keys: readonly string[]) => object;
  /** The node's JSON (its REST GET through the request's loader). */
  load: (ctx: GatewayContext, keys: readonly string[]) => Promise<unknown>;
  /** Fields that run on a reference, filled as the schema is built. */
  onRef: Set<string>;
}

const refTypes = new Map<string, RefType>();
/** Fields every reference answers from its keys alone. */
const KEY_FIELDS = new Set(['id', 'restId', '__typename']);

/** Declares that nodes of `typename` may be references (src/schema/lib/node.ts does it for REST nodes). */
export function registerRefType(typename: string, stub: RefType['stub'], load: RefType['load']): void {
  refTypes.set(typename, { stub, load, onRef: new Set(KEY_FIELDS) });
}

/** Fields of `typename` besides its connections that run on a reference (e.g. a site's sections,
 * readable with a share key where the site's own JSON is not). */
export function markOnRef(typename: string, fields: string[]): void {
  for (const f of fields) refTypes.get(typename)!.onRef.add(f);
}

/**
 * A reference to the node of `typename` with these keys, carrying `extra` (e.g. a share key). A key
 * no REST path can hold (`pathSegment`: "", ".", "..") is the caller's BAD_USER_INPUT here: a
 * reference to it answered `id`, a global id node(id:) refuses, while each list below it failed.
 */
export function refOf<Shape>(typename: string, keys: readonly string[], extra: object = {}): Shape {
  for (const key of keys) pathSegment(key);
  return { ...refTypes.get(typename)!.stub(keys), ...extra, [KEYS]: keys } as Shape;
}

const isRef = (value: unknown): value is { [KEYS]: readonly string[] } => typeof value === 'object' && value !== null && KEYS in value;

/**
 * The node of `typename` with these keys, as the field at `info` needs it: a reference when a
 * list hangs below it (its own fields, if any, then load concurrently with that list, and an
 * unknown id is NOT_FOUND at those fields or lists); else the JSON, so an unknown id is NOT_FOUND
 * at this field's path.
 */
export function restRef<Shape>(
  typename: string,
  keys: readonly string[],
  ctx: GatewayContext,
  info: GraphQLResolveInfo,
): Shape | Promise<Shape> {
  if (!selectsOnRef(typename, info)) return refTypes.get(typename)!.load(ctx, keys) as Promise<Shape>;
  return refOf(typename, keys);
}

/** Whether the selection at `info` holds a field that runs on a reference of `typename` besides its keys (a list). */
export function selectsOnRef(typename: string, info: GraphQLResolveInfo): boolean {
  const type = refTypes.get(typename)!;
  return selectedFields(info).some((n) => type.onRef.has(n) && !KEY_FIELDS.has(n));
}

class RestRefPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const type = refTypes.get(fieldConfig.parentType);
    if (!type) return resolver;
    const returns = fieldConfig.type.kind === 'List' ? undefined : this.buildCache.getTypeConfig(fieldConfig.type.ref);
    if (type.onRef.has(fieldConfig.name) || returns?.name.endsWith('Connection')) {
      type.onRef.add(fieldConfig.name);
      return resolver;
    }
    return (parent, args, ctx, info) =>
      isRef(parent)
        ? type.load(ctx as GatewayContext, parent[KEYS]).then((json) => resolver(json, args, ctx, info))
        : resolver(parent, args, ctx, info);
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      restRefs: RestRefPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('restRefs', RestRefPlugin);
