/**
 * The root fields an operation selects, through inline fragments and fragment spreads: what the
 * introspection checks decide on (federation.ts: is it served the client schema; the gateway's
 * introspection access, kept results and worker: does it introspect, is it introspection only),
 * and the writes a mutation makes (the response cache's invalidation).
 */
import {
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionNode,
} from 'graphql';

/** The root fields that introspect the schema (`__typename` does not). */
export const SCHEMA_INTROSPECTION = new Set(['__schema', '__type']);

/** A document's fragments by name. */
export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return fragments;
}

/**
 * The selections at the operation's root, in document order (each fragment walked once): its
 * fields, and the inline fragments and fragment spreads they are reached through.
 */
export function rootSelections(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): SelectionNode[] {
  const found: SelectionNode[] = [];
  const seen = new Set<string>();
  const walk = (selections: readonly SelectionNode[]): void => {
    for (const s of selections) {
      found.push(s);
      if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet.selections);
      else if (s.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(s.name.value);
        if (fragment && !seen.has(s.name.value)) {
          seen.add(s.name.value);
          walk(fragment.selectionSet.selections);
        }
      }
    }
  };
  walk(operation.selectionSet.selections);
  return found;
}

/**
 * The fields at the operation's root, in document order (each fragment walked once). Fields a
 * `@skip`/`@include` leaves out are among them.
 */
export function rootFields(operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): FieldNode[] {
  return rootSelections(operation, fragments).filter((s): s is FieldNode => s.kind === Kind.FIELD);
}

/** The names of the fields at the operation's root. */
export function rootFieldNames(operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): Set<string> {
  return new Set(rootFields(operation, fragments).map((f) => f.name.value));
}
