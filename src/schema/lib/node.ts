/**
 * REST resources as Relay nodes. A node's global id encodes its type and every REST key needed to
 * refetch it (a comment: space, change request, comment); `node(id)` loads it through the
 * request's REST loader, so a node already fetched or listed costs no call.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { badNodeIdError, nodeTypeNames } from './globalIds.js';
import { registerRefType } from './refs.js';

/** The local part of a global id: one key as is, several as a JSON array. */
export function encodeKeys(keys: string[]): string {
  return keys.length === 1 ? keys[0] : JSON.stringify(keys);
}

export function decodeKeys(id: string, arity: number): string[] | null {
  if (arity === 1) return id ? [id] : null;
  try {
    const keys = JSON.parse(id);
    if (Array.isArray(keys) && keys.length === arity && keys.every((k) => typeof k === 'string' && k)) return keys;
  } catch {
    /* not ours */
  }
  return null;
}

/**
 * Builds a REST path from keys, each one URI-encoded segment: restPath`/spaces/${spaceId}`. It is
 * src/rest's `path`: empty, "." and ".." are refused (BAD_USER_INPUT), since a URL resolves them
 * to another resource (a reply id of ".." would name the comment).
 */
export { path as restPath } from '../../rest/index.js';

export interface RestNodeOptions<Shape> {
  /** REST keys of an object, outermost first. */
  keys: (obj: Shape) => string[];
  /** How many keys the global id holds. */
  arity: number;
  /** REST path of the object, from its keys. */
  path: (keys: string[]) => string;
  /** Builds the node's shape from the fetched JSON and its keys (for JSON without parent ids). */
  wrap?: (json: any, keys: string[]) => Shape;
  /** Its REST id alone refetches it (arity 1): a federation entity also keyed by `restId`. */
  restIdKey?: boolean;
  /** What a reference by keys carries (src/schema/lib/refs.ts): the fields `keys` and the
   * connections read. Nodes with it can be looked up and linked to without their GET. */
  stub?: (keys: string[]) => Partial<Shape>;
}

/** A node type as federation sees it (src/schema/lib/federation.ts makes each an entity). */
export interface NodeEntry {
  ref: { name: string; getDataloader: (ctx: GatewayContext) => { load: (localId: string) => Promise<unknown> } };
  /** How many keys the local part of its global id holds. */
  arity: number;
  /** Also keyed by `restId`, the local part of its global id. */
  restIdKey: boolean;
}

/** Every node type, registered when its ref is made. */
export const nodeEntries: NodeEntry[] = [];

export function registerNode<Ref extends NodeEntry['ref']>(ref: Ref, arity: number, restIdKey = false): Ref {
  if (restIdKey && arity !== 1) throw new Error(`${ref.name}: a restId key needs a node of one key`);
  nodeEntries.push({ ref, arity, restIdKey });
  nodeTypeNames.add(ref.name);
  return ref;
}

/** A node ref loaded by REST path; implement its fields with `.implement({fields})`. */
export function restNodeRef<Shape extends object>(name: string, options: RestNodeOptions<Shape>) {
  const ref = builder.loadableNodeRef(name, {
    id: { resolve: (obj: Shape) => encodeKeys(options.keys(obj)) },
    // No second cache over ctx.rest (which writes invalidate): a read after a write in the same
    // operation must see the write.
    loaderOptions: { cache: false },
    load: (ids: string[], ctx: GatewayContext) =>
      Promise.all(
        ids.map(async (id): Promise<Shape | Error> => {
          const keys = decodeKeys(id, options.arity);
          if (!keys) return badNodeIdError(encodeGlobalID(name, id), name);
          try {
            const json = await ctx.rest.load(options.path(keys));
            return options.wrap ? options.wrap(json, keys) : (json as Shape);
          } catch (error) {
            return error as Error;
          }
        }),
      ),
  });
  if (options.stub)
    registerRefType(name, options.stub, async (ctx, keys) => {
      const json = await ctx.rest.load(options.path(keys));
      return options.wrap ? options.wrap(json, keys) : json;
    });
  return registerNode(ref, options.arity, options.restIdKey);
}
