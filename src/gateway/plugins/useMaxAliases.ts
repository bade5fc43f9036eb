/**
 * Rejects operations with more than `maxAliases` aliased fields (GraphQL Armor's max-aliases
 * rule; fragments counted where spread), at validation, so before any REST call. Aliases are how
 * one request multiplies the same expensive field, so they are bounded apart from the cost.
 */
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import type { Plugin } from 'graphql-yoga';
import { rejectAs } from '../lib/limitError.js';

export function useMaxAliases(maxAliases: number): Plugin {
  return maxAliasesPlugin({
    n: maxAliases,
    exposeLimits: true,
    propagateOnRejection: false,
    onReject: [rejectAs('maxAliases', maxAliases)],
  }) as Plugin;
}
