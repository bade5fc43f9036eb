/**
 * Rejects operations nested deeper than `maxDepth` fields (GraphQL Armor's max-depth rule), at
 * validation, so before any REST call. Fragments count by the fields they contain, not as a level
 * of their own; introspection (`__schema`) is not counted, so GraphiQL's schema query passes.
 */
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import type { Plugin } from 'graphql-yoga';
import { rejectAs } from '../lib/limitError.js';

export function useMaxDepth(maxDepth: number): Plugin {
  return maxDepthPlugin({
    n: maxDepth,
    ignoreIntrospection: true,
    flattenFragments: true,
    exposeLimits: true,
    propagateOnRejection: false,
    onReject: [rejectAs('maxDepth', maxDepth)],
  }) as Plugin;
}
