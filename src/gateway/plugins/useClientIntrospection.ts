/**
 * Introspection serves the client schema (schema.graphql): the graph without the federation
 * plumbing (`_entities`, `_service`, `_Any`, `_Entity`, `_Service`), so GraphiQL, Relay, Codegen and
 * Apollo tooling see what a frontend queries. A router still calls `_service { sdl }` and
 * `_entities` as before (validation and execution use the subgraph schema); only an operation that
 * introspects (`__schema`, `__type`) without selecting them runs against the client schema.
 */
import { Kind, getOperationAST, type FragmentDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { clientSchemaOf, introspectsClientSchema } from '../../schema/lib/federation.js';

export function useClientIntrospection(): Plugin {
  return {
    onExecute({ args }) {
      const operation = getOperationAST(args.document, args.operationName ?? undefined);
      if (!operation || operation.operation !== 'query') return;
      const fragments: Record<string, FragmentDefinitionNode> = {};
      for (const d of args.document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
      if (introspectsClientSchema(operation, fragments)) args.schema = clientSchemaOf(args.schema);
    },
  };
}
