/**
 * The root fields an operation selects, through inline fragments and fragment spreads: what the
 * introspection checks decide on (federation.ts: is it served the client schema; the gateway's
 * introspection access, kept results and worker: does it introspect, is it introspection only).
 */
import { Kind, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionNode } from 'graphql';

/** The root fields that introspect the schema (`__typename` does not). */
export const SCHEMA_INTROSPECTION = new Set(['__schema', '__type']);

/** The names of the fields at the operation's root (each fragment walked once). */
export function rootFieldNames(operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): Set<string> {
  const names = new Set<string>();
  const seen = new Set<string>();
  const walk = (selections: readonly SelectionNode[]): void => {
    for (const s of selections) {
      if (s.kind === Kind.FIELD) names.add(s.name.value);
      else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet.selections);
      else {
        const fragment = fragments.get(s.name.value);
        if (fragment && !seen.has(s.name.value)) {
          seen.add(s.name.value);
          walk(fragment.selectionSet.selections);
        }
      }
    }
  };
  walk(operation.selectionSet.selections);
  return names;
}
