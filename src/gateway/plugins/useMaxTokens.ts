/**
 * Rejects documents of more than `maxTokens` lexical tokens (GraphQL Armor's max-tokens parser),
 * while parsing: a huge document is refused after `maxTokens + 1` tokens, before it is fully read,
 * validated or executed.
 */
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import type { Plugin } from 'graphql-yoga';
import { rejectAs } from '../lib/limitError.js';

export function useMaxTokens(maxTokens: number): Plugin {
  return maxTokensPlugin({
    n: maxTokens,
    exposeLimits: true,
    propagateOnRejection: false,
    onReject: [rejectAs('maxTokens', maxTokens)],
  }) as Plugin;
}
