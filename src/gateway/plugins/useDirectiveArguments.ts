/**
 * Directive arguments graphql-js checks only while executing: `@stream(initialCount:)` below 0
 * made the executor throw, which reached the client as an unexpected UPSTREAM_ERROR. It is the
 * caller's BAD_USER_INPUT, refused before execution (so before any REST call), whether the count
 * is written in the document or passed as a variable.
 */
import { GraphQLInt, GraphQLError, valueFromAST, visit, type DocumentNode, type ValueNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** The `initialCount` values of the document's `@stream`s, found once per parsed document. */
const counts = new WeakMap<DocumentNode, ValueNode[]>();

function initialCounts(document: DocumentNode): ValueNode[] {
  let found = counts.get(document);
  if (found) return found;
  found = [];
  const into = found;
  visit(document, {
    Directive(node) {
      if (node.name.value !== 'stream') return;
      for (const arg of node.arguments ?? []) if (arg.name.value === 'initialCount') into.push(arg.value);
    },
  });
  counts.set(document, found);
  return found;
}

export function useDirectiveArguments(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      for (const node of initialCounts(args.document)) {
        const count = valueFromAST(node, GraphQLInt, args.variableValues as Record<string, unknown> | undefined);
        if (typeof count === 'number' && count < 0)
          return setResultAndStopExecution({
            errors: [
              new GraphQLError(`\`@stream(initialCount:)\` must be 0 or more, found ${count}.`, { extensions: { code: 'BAD_USER_INPUT' } }),
            ],
          });
      }
    },
  };
}
