/** What a query selects below a field, so a resolver asks REST only for what is needed. */
import type { GraphQLResolveInfo, SelectionSetNode } from 'graphql';

/** Names of the fields selected at `path` below the field being resolved (fragments included). */
export function selectedFields(info: GraphQLResolveInfo, path: string[] = []): string[] {
  const names: string[] = [];
  const walk = (set: SelectionSetNode | undefined, depth: number) => {
    for (const s of set?.selections ?? []) {
      if (s.kind === 'InlineFragment') walk(s.selectionSet, depth);
      else if (s.kind === 'FragmentSpread') walk(info.fragments[s.name.value]?.selectionSet, depth);
      else if (depth === path.length) names.push(s.name.value);
      else if (s.name.value === path[depth]) walk(s.selectionSet, depth + 1);
    }
  };
  for (const f of info.fieldNodes) walk(f.selectionSet, 0);
  return names;
}
