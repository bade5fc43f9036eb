/**
 * Rejects documents of more than `maxTokens` lexical tokens (GraphQL Armor's max-tokens parser),
 * while parsing: a huge document is refused after `maxTokens + 1` tokens, before it is fully read,
 * validated or executed.
 *
 * graphql-js parses recursively: a list or object literal nested about 2,000 levels deep (4 KB of
 * brackets, within the token limit as it is reached) runs out of stack first. Its RangeError
 * answered UPSTREAM_ERROR as an unexpected error; it is the caller's BAD_USER_INPUT.
 */
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { rejectAs } from '../lib/limitError.js';

export function useMaxTokens(maxTokens: number): Plugin {
  const tokens = maxTokensPlugin({
    n: maxTokens,
    exposeLimits: true,
    propagateOnRejection: false,
    onReject: [rejectAs('maxTokens', maxTokens)],
  }) as Plugin;
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(tokens);
      // After the tokens' parser: it wraps that one.
      addPlugin({
        onParse({ parseFn, setParseFn }) {
          setParseFn((source, options) => {
            try {
              return parseFn(source, options);
            } catch (error) {
              if (!(error instanceof RangeError)) throw error;
              throw createGraphQLError('Syntax Error: the document is nested too deeply to parse.', {
                extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
              });
            }
          });
        },
      });
    },
  };
}
