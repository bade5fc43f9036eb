/**
 * Refuses a subscription whose root selection uses `@skip` or `@include`, at validation (so
 * before any REST call): the GraphQL spec forbids it (graphql-spec#860, "Single Root Field"), as
 * graphql-js 17's rule does with this message; graphql-js 16 does not. Its rule picks the one
 * root field without the variables: a literal condition that left no root field reached
 * execution, which threw a TypeError (an "Unexpected error." UPSTREAM_ERROR and an ERROR line,
 * for any caller, with or without a token), and a condition's variable made validation throw that
 * the variable had not been given, whatever its value.
 */
import { GraphQLError, Kind, type DirectiveNode, type FragmentDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { fragmentsOf, rootSelections } from '../../schema/lib/rootFields.js';

const CONDITIONS = new Set(['skip', 'include']);

export function useSubscriptionRootConditions(): Plugin {
  return {
    onValidate({ params, setResult }) {
      const errors: GraphQLError[] = [];
      let fragments: Map<string, FragmentDefinitionNode> | undefined;
      for (const definition of params.documentAST.definitions) {
        if (definition.kind !== Kind.OPERATION_DEFINITION || definition.operation !== 'subscription') continue;
        fragments ??= fragmentsOf(params.documentAST);
        const conditions: DirectiveNode[] = rootSelections(definition, fragments).flatMap(
          (s) => s.directives?.filter((d) => CONDITIONS.has(d.name.value)) ?? [],
        );
        if (!conditions.length) continue;
        const name = definition.name ? `Subscription "${definition.name.value}"` : 'Anonymous Subscription';
        errors.push(
          new GraphQLError(`${name} must not use \`@skip\` or \`@include\` directives in the top level selection.`, { nodes: conditions }),
        );
      }
      if (errors.length) setResult(errors);
    },
  };
}
