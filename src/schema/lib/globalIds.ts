/**
 * Global ids as `node(id:)` and `nodes(ids:)` read them. An id that is not one of this graph's
 * (not base64 `Type:key`, or of a type that is not a node) is BAD_USER_INPUT at its path, or at
 * its index in `nodes`, while the other ids and the rest of the query still resolve.
 */
import { decodeGlobalID, resolveNodes } from '@pothos/plugin-relay';
import type { GraphQLResolveInfo } from 'graphql';
import { userInputError } from './errors.js';

/** Names of the node types, filled as each node ref is registered (src/schema/lib/node.ts). */
export const nodeTypeNames = new Set<string>();

/** What an unreadable id decodes to: no type, the id itself kept for the error message. */
const UNREADABLE = '';

interface DecodedId {
  typename: string;
  id: string;
}

/** The builder's `decodeGlobalID`: never throws, so one bad id cannot fail a whole `nodes` list. */
export function decodeNodeId(globalID: string): DecodedId {
  try {
    const decoded = decodeGlobalID(globalID);
    if (nodeTypeNames.has(decoded.typename)) return decoded;
  } catch {
    /* unreadable */
  }
  return { typename: UNREADABLE, id: globalID };
}

/** The error of a global id that is not one of this graph's nodes (or of a node type whose keys it lacks). */
export const badNodeIdError = (globalID: string, typename?: string) =>
  userInputError(`id: ${JSON.stringify(globalID)} is not the global id of ${typename ? `a ${typename}` : 'a node of this graph'}`, 'id');

type Builder = Parameters<typeof resolveNodes>[0];
let nodeBuilder: Builder | undefined;

/** The builder whose node types `resolveNodeIds` loads (set once, by src/schema/builder.ts). */
export function setNodeBuilder(builder: Builder): void {
  nodeBuilder = builder;
}

/** Resolves decoded ids in order; an unreadable id gives its error in its slot. */
export async function resolveNodeIds(ctx: object, info: GraphQLResolveInfo, ids: DecodedId[]): Promise<unknown[]> {
  const readable = ids.map((g) => (g.typename === UNREADABLE ? null : g));
  const nodes = await resolveNodes(nodeBuilder!, ctx, info, readable);
  return ids.map((g, i) => (g.typename === UNREADABLE ? badNodeIdError(g.id) : nodes[i]));
}
