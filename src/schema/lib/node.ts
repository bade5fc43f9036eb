/**
 * REST resources as Relay nodes. A node's global id encodes its type and every REST key needed to
 * refetch it (a comment: space, change request, comment); `node(id)` loads it through the
 * request's REST loader, so a node already fetched or listed costs no call. The node refs
 * themselves are derived from the resource table (src/schema/lib/resource.ts).
 */
import type { GatewayContext } from '../context.js';
import { RestError } from '../../rest/index.js';
import { nodeTypeNames } from './globalIds.js';

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
export { path as restPath, pathSegment } from '../../rest/index.js';

/**
 * The path `make` builds from keys an upstream answer named, or none when one of them cannot be a
 * path segment: an id the upstream sent empty, "." or ".." (or with half a surrogate pair) is
 * refused by `pathSegment` as the caller's BAD_USER_INPUT. For priming the request's loader, which
 * is only a saving: thrown there, it failed the whole list (or the write's payload, the write made)
 * for one object of the upstream's. A field of such an object that needs its path fails alone.
 */
export function primePath(make: () => string | undefined): string | undefined {
  try {
    return make();
  } catch (error) {
    if (error instanceof RestError) return undefined;
    throw error;
  }
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
