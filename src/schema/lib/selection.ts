/** What a query selects below a field, so a resolver asks REST only for what is needed. */
import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  type GraphQLResolveInfo,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';

/** Whether execution runs the selection: neither `@skip` nor `@include` leaves it out (throws on an `if` that cannot be read). */
export const included = (node: SelectionNode, variables: Record<string, unknown>): boolean =>
  !node.directives?.length ||
  (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if !== true &&
    getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false);

/**
 * Names of the fields selected at `path` below the field being resolved (fragments included),
 * those a `@skip`/`@include` leaves out excepted: `body { markdown document @include(if: false) }`
 * made a second REST call per object for the document no one read.
 */
export function selectedFields(info: GraphQLResolveInfo, path: string[] = []): string[] {
  const names: string[] = [];
  const walk = (set: SelectionSetNode | undefined, depth: number) => {
    for (const s of set?.selections ?? []) {
      if (!included(s, info.variableValues)) continue;
      if (s.kind === 'InlineFragment') walk(s.selectionSet, depth);
      else if (s.kind === 'FragmentSpread') walk(info.fragments[s.name.value]?.selectionSet, depth);
      else if (depth === path.length) names.push(s.name.value);
      else if (s.name.value === path[depth]) walk(s.selectionSet, depth + 1);
    }
  };
  for (const f of info.fieldNodes) walk(f.selectionSet, 0);
  return names;
}

const BODY_FORMATS = ['markdown', 'document'] as const;
export type BodyFormat = (typeof BODY_FORMATS)[number];

/** The body formats selected in `body { … }` at `path` below this field (`[]`: this field is the body). */
export const selectedFormats = (info: GraphQLResolveInfo, path: string[]): BodyFormat[] =>
  BODY_FORMATS.filter((f) => selectedFields(info, path).includes(f));

/**
 * The REST `format` a read should ask for, so the bodies at `paths` come in the selected format:
 * the one selected when only one is, `unselected` when none is and it is given, else `given` (a
 * body in the other format then costs one more call per object, made by the body field). The
 * document is REST's default: it is not asked for by name, so reads of it share the request's
 * cache with reads by path alone (`node(id:)`, edges).
 */
export function bodyFormat(
  info: GraphQLResolveInfo,
  paths: string[][],
  given?: BodyFormat | null,
  unselected?: BodyFormat,
): BodyFormat | undefined {
  const wanted = new Set(paths.flatMap((p) => selectedFormats(info, p)));
  const format = wanted.size === 1 ? [...wanted][0] : !wanted.size && unselected ? unselected : (given ?? undefined);
  return format === 'document' ? undefined : format;
}
