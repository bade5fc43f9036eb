/**
 * Introspection serves the client schema (schema.graphql): the graph without the federation
 * plumbing (`_entities`, `_service`, `_Any`, `_Entity`, `_Service`), so GraphiQL, Relay, Codegen and
 * Apollo tooling see what a frontend queries. A router still calls `_service { sdl }` and
 * `_entities` as before (validation and execution use the subgraph schema); only an operation that
 * introspects (`__schema`, `__type`) without selecting them runs against the client schema.
 */
import { Kind, getOperationAST, type DocumentNode, type FragmentDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { clientSchemaOf, introspectsClientSchema } from '../../schema/lib/federation.js';

export function useClientIntrospection(): Plugin {
  // Decided once per parsed document (Yoga caches those per query text) and operation name.
  const decided = new WeakMap<DocumentNode, Map<string, boolean>>();
  const introspects = (document: DocumentNode, operationName: string | null | undefined): boolean => {
    let byName = decided.get(document);
    if (!byName) decided.set(document, (byName = new Map()));
    let verdict = byName.get(operationName ?? '');
    if (verdict === undefined) {
      const operation = getOperationAST(document, operationName ?? undefined);
      const fragments: Record<string, FragmentDefinitionNode> = {};
      for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
      verdict = operation?.operation === 'query' && introspectsClientSchema(operation, fragments);
      if (byName.size < 16) byName.set(operationName ?? '', verdict);
    }
    return verdict;
  };
  return {
    onExecute({ args }) {
      if (introspects(args.document, args.operationName)) args.schema = clientSchemaOf(args.schema);
    },
  };
}
