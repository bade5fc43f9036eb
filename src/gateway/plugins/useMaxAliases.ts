/**
 * Rejects operations with more than `maxAliases` aliased fields (GraphQL Armor's max-aliases
 * rule; fragments counted where spread), at validation, so before any REST call. Aliases are how
 * one request multiplies the same expensive field, so they are bounded apart from the cost.
 *
 * Aliases of `_entities` are not counted: a federation router (Hive Gateway) sends the entity
 * fetches of one plan to this subgraph as one request, one alias of `_entities` each
 * (`_v0__entities`, …), so a plan of 35 entity fetches was refused as 35 aliases, the router's
 * and not its caller's. `--max-ids` bounds them instead (every representation in all of them
 * counts, and an empty list loads nothing), as the cost limit prices each occurrence. (An alias
 * named `_entities` is not counted either: one per selection set, as response names must differ.)
 */
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import type { Plugin } from 'graphql-yoga';
import { rejectAs } from '../lib/limitError.js';

export function useMaxAliases(maxAliases: number): Plugin {
  return maxAliasesPlugin({
    n: maxAliases,
    // Armor's default list (`__typename`), and `_entities` (see above).
    allowList: ['__typename', '_entities'],
    exposeLimits: true,
    propagateOnRejection: false,
    onReject: [rejectAs('maxAliases', maxAliases)],
  }) as Plugin;
}
