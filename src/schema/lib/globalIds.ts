/**
 * Global ids as `node(id:)` and `nodes(ids:)` read them. An id that is not one of this graph's
 * (not base64 `Type:key`, or of a type that is not a node) is BAD_USER_INPUT at its path, or at
 * its index in `nodes`, while the other ids and the rest of the query still resolve.
 */
import { decodeGlobalID, encodeGlobalID, resolveNodes } from '@pothos/plugin-relay';
import type { GraphQLResolveInfo } from 'graphql';
import { stackless, userInputError } from './errors.js';
import { bodyFormat, type BodyFormat } from './selection.js';

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
    // Pothos throws an error (with its stack: stackless) for an id that does not decode.
    const decoded = stackless(() => decodeGlobalID(globalID));
    // Only an id this graph issues: base64 decoding takes bytes that are not UTF-8 (read as U+FFFD:
    // a REST call for a key no node has) and a last digit with stray low bits (`…TVF=` read as
    // `…TVE=`: a second id for one node, answered under the other), neither encoded back to it.
    if (nodeTypeNames.has(decoded.typename) && encodeGlobalID(decoded.typename, decoded.id) === globalID) return decoded;
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

/** Reads a node whose REST answer holds a content body, with its body in `format`; an unusable id gives its error. */
type BodyReader = (ctx: object, id: string, format: BodyFormat) => Promise<unknown>;

/** The node types with a content body (comments, replies), by name. */
const bodyReaders = new Map<string, BodyReader>();

/** Declares that nodes of `typename` carry a content body, read by `read` (src/schema/lib/resource.ts). */
export function registerBodyReader(typename: string, read: BodyReader): void {
  bodyReaders.set(typename, read);
}

/**
 * The read of the node of `typename` whose global id's local part is `id`, its body in the one
 * format the selection at `info` asks for when that is not REST's default (see resolveNodeIds);
 * undefined when the type has no body or the default will do. For `_entities` (federation.ts).
 */
export function readWithBody(ctx: object, info: GraphQLResolveInfo, typename: string, id: string): Promise<unknown> | undefined {
  const read = bodyReaders.get(typename);
  const format = read && bodyFormat(info, [['body']]);
  return format === undefined ? undefined : read!(ctx, id, format);
}

/**
 * Resolves decoded ids in order; an unreadable id gives its error in its slot. REST sends a
 * content body in one format per read: when the selection asks for one that is not REST's default
 * (`body { markdown }`), a node with a body is read in it, so its body field makes no second call
 * (a 900 KB comment would otherwise be fetched twice, as a document and as markdown).
 */
export async function resolveNodeIds(ctx: object, info: GraphQLResolveInfo, ids: DecodedId[]): Promise<unknown[]> {
  const format = bodyReaders.size ? bodyFormat(info, [['body']]) : undefined;
  const withBody = (g: DecodedId) => format !== undefined && bodyReaders.has(g.typename);
  const readable = ids.map((g) => (g.typename === UNREADABLE || withBody(g) ? null : g));
  const [nodes, bodied] = await Promise.all([
    resolveNodes(nodeBuilder!, ctx, info, readable),
    Promise.all(
      ids.map(async (g) => (withBody(g) ? bodyReaders.get(g.typename)!(ctx, g.id, format!).catch((error: Error) => error) : null)),
    ),
  ]);
  return ids.map((g, i) => (g.typename === UNREADABLE ? badNodeIdError(g.id) : withBody(g) ? bodied[i] : nodes[i]));
}
