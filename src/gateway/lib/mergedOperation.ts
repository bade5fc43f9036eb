/**
 * An operation as execution runs it, for pricing (useCostLimit.ts): fragments inlined, fields a
 * `@skip`/`@include` leaves out dropped, and the fields of one selection set that share a response
 * key merged into one whose selection is all of theirs, as the executor collects them (it resolves
 * such a field once). graphql-query-complexity prices each occurrence instead: a Relay-style
 * document that spreads one fragment twice at each of its levels (two components of a screen
 * asking for the same thing) was priced 2^depth times what it makes, `...A ...A` under five
 * connections 38,923 for a query of 142.
 *
 * Only what execution surely merges is merged, so the price never falls under the work: a fragment
 * whose type condition every object there matches (none, the parent's type, or an abstract type
 * the parent object implements), fields without a directive left, and fragments on one other type
 * without a directive. What carries another directive (`@defer`, `@stream`) or an `if` that cannot
 * be read stays as written, priced on its own.
 */
import {
  getNamedType,
  isAbstractType,
  isInterfaceType,
  isObjectType,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLNamedType,
  type GraphQLSchema,
  type InlineFragmentNode,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { fragmentsOf } from '../../schema/lib/rootFields.js';
import { included } from '../../schema/lib/selection.js';

/** Thrown once more selections than the bound were visited. */
export class TooManySelections extends Error {}

/**
 * The document of `operation` alone, merged as above, visiting at most `maxSelections` selections
 * (each fragment once per merged selection set it is spread in; past that: TooManySelections).
 */
export function mergedOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  maxSelections: number,
): DocumentNode {
  const fragments = fragmentsOf(document);
  let visited = 0;

  /** Whether `@skip`/`@include` keep the node: true, false, or undefined when their `if` cannot be read. */
  const kept = (node: SelectionNode): boolean | undefined => {
    try {
      return included(node, variables);
    } catch {
      return undefined;
    }
  };
  /** The node's directives other than `@skip`/`@include` (those were read). */
  const others = (node: SelectionNode) => node.directives?.filter((d) => d.name.value !== 'skip' && d.name.value !== 'include') ?? [];
  /** Whether every object a selection set of `parent` resolves matches the type condition. */
  const always = (condition: GraphQLNamedType | undefined, parent: GraphQLCompositeType) =>
    !condition || condition === parent || (isObjectType(parent) && isAbstractType(condition) && schema.isSubType(condition, parent));

  /** The selections of `sets` (of objects of `parent`) as execution collects them. */
  const merge = (sets: Iterable<SelectionSetNode>, parent: GraphQLCompositeType): SelectionSetNode => {
    const fields = new Map<string, { node: FieldNode; sets: Set<SelectionSetNode> }>();
    const typed = new Map<string, { node: InlineFragmentNode; sets: Set<SelectionSetNode> }>();
    const apart: SelectionNode[] = [];
    const spread = new Set<SelectionSetNode>();
    const collect = (set: SelectionSetNode) => {
      // The same fragment spread twice here adds nothing the first did not.
      if (spread.has(set)) return;
      spread.add(set);
      for (const node of set.selections) {
        if (++visited > maxSelections) throw new TooManySelections();
        const keep = kept(node);
        if (keep === false) continue;
        const directives = keep === undefined ? (node.directives ?? []) : others(node);
        if (node.kind === Kind.FIELD) {
          const key = node.alias?.value ?? node.name.value;
          if (directives.length > 0) apart.push(mergeField({ ...node, directives }, [node.selectionSet], parent));
          else if (!fields.has(key))
            fields.set(key, { node: { ...node, directives }, sets: new Set(node.selectionSet && [node.selectionSet]) });
          else if (node.selectionSet) fields.get(key)!.sets.add(node.selectionSet);
          continue;
        }
        const fragment: FragmentDefinitionNode | InlineFragmentNode | undefined =
          node.kind === Kind.INLINE_FRAGMENT ? node : fragments.get(node.name.value);
        if (!fragment) continue; // validation refused it
        const condition = fragment.typeCondition ? schema.getType(fragment.typeCondition.name.value) : undefined;
        if (directives.length === 0 && always(condition, parent)) {
          collect(fragment.selectionSet);
          continue;
        }
        const inline: InlineFragmentNode = {
          kind: Kind.INLINE_FRAGMENT,
          typeCondition: fragment.typeCondition,
          directives,
          selectionSet: fragment.selectionSet,
        };
        const on = (condition ?? parent) as GraphQLCompositeType;
        if (directives.length > 0) apart.push({ ...inline, selectionSet: merge([fragment.selectionSet], on) });
        else if (!typed.has(on.name)) typed.set(on.name, { node: inline, sets: new Set([fragment.selectionSet]) });
        else typed.get(on.name)!.sets.add(fragment.selectionSet);
      }
    };
    for (const set of sets) collect(set);
    const selections: SelectionNode[] = [...fields.values()].map(({ node, sets }) => mergeField(node, sets, parent));
    for (const { node, sets } of typed.values())
      selections.push({ ...node, selectionSet: merge(sets, schema.getType(node.typeCondition!.name.value) as GraphQLCompositeType) });
    return { kind: Kind.SELECTION_SET, selections: [...selections, ...apart] };
  };

  /** A field whose selection is that of `sets`, merged. */
  const mergeField = (node: FieldNode, sets: Iterable<SelectionSetNode | undefined>, parent: GraphQLCompositeType): FieldNode => {
    const given = [...sets].filter((s) => s !== undefined);
    const field =
      node.name.value === '__schema'
        ? SchemaMetaFieldDef
        : node.name.value === '__type'
          ? TypeMetaFieldDef
          : isObjectType(parent) || isInterfaceType(parent)
            ? parent.getFields()[node.name.value]
            : undefined;
    if (given.length === 0 || !field) return node;
    return { ...node, selectionSet: merge(given, getNamedType(field.type) as GraphQLCompositeType) };
  };

  const root = schema.getRootType(operation.operation);
  if (!root) return document;
  // The fragments stay defined for what is kept as written (a field the schema does not name).
  return {
    kind: Kind.DOCUMENT,
    definitions: [{ ...operation, selectionSet: merge([operation.selectionSet], root) }, ...fragments.values()],
  };
}
