/** The schema builder and its plugins; no types are defined here (they live in src/schema/nodes). */
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import RelayPlugin from '@pothos/plugin-relay';
import type { GatewayContext } from './context.js';
import { decodeNodeId, resolveNodeIds, setNodeBuilder } from './lib/globalIds.js';
import './lib/refs.js';

export const builder = new SchemaBuilder<{
  Context: GatewayContext;
  Scalars: {
    DateTime: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
    ID: { Input: string; Output: string };
  };
  // Fields are non-null unless marked `nullable: true`; every field that makes a REST call is
  // nullable, so a failed call yields an error at its path while the rest of the query resolves.
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
}>({
  plugins: [RelayPlugin, DataloaderPlugin, 'restRefs'],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'optional',
    relayMutationFieldOptions: { nullable: true },
    cursorType: 'String',
    nodesOnConnection: true,
    nodeTypeOptions: { description: 'An addressable resource of the REST API, refetched by its global `id` with `node(id:)`.' },
    pageInfoTypeOptions: { description: 'Where a connection page ends and whether more items follow.' },
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    // An id that is not one of this graph's nodes is BAD_USER_INPUT at its path (src/schema/lib/globalIds.ts).
    decodeGlobalID: decodeNodeId,
    nodeQueryOptions: {
      description: 'Fetches any node by its global id.',
      resolve: async (_root, { id }, ctx, info) => {
        const [node] = await resolveNodeIds(ctx, info, [id]);
        if (node instanceof Error) throw node;
        return node as never;
      },
    },
    nodesQueryOptions: {
      description: 'Fetches nodes by their global ids, in order; an unknown id gives null and an error at its index.',
      resolve: (_root, { ids }, ctx, info) => resolveNodeIds(ctx, info, ids) as never,
    },
    defaultConnectionTypeOptions: {},
  },
});

setNodeBuilder(builder as never);
