/** The schema builder and its plugins; no types are defined here (they live in src/schema/nodes). */
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import RelayPlugin from '@pothos/plugin-relay';
import type { GatewayContext } from '../gateway/context.js';

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
  plugins: [RelayPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'optional',
    relayMutationFieldOptions: { nullable: true },
    cursorType: 'String',
    nodesOnConnection: true,
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    nodeQueryOptions: { description: 'Fetches any node by its global id.' },
    nodesQueryOptions: { description: 'Fetches nodes by their global ids, in order; an unknown id gives null and an error at its index.' },
    defaultConnectionTypeOptions: {},
  },
});
