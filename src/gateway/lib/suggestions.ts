/**
 * graphql-js's validation messages end with "Did you mean …?" suggestions, which name the schema's
 * fields and types: a caller without a token the REST API has accepted is not given them (it is
 * not given introspection either), unless anonymous introspection is on. Applied to HTTP results
 * (useIntrospectionAccess.ts) and graphql-sse's (useGraphQLSSE.ts).
 */
import { GraphQLError } from 'graphql';
import { callerIdentity } from './callerHash.js';

/** How a suggestion starts: ` Did you mean "a", "b", or "c"?` at the end of a message. */
const SUGGESTION = ' Did you mean ';

/**
 * Where the suggestion at the end of `message` starts, -1 when it has none. Found with `indexOf`
 * after the `?` before its own (a suggestion holds no other), not by `/ Did you mean [^?]*\?$/`:
 * that tried each ` Did you mean ` of the message up to the next `?`, and messages echo what the
 * caller sent (a variable's value, twice): 8,000 of them and a `?` took 1.4 s of the event loop
 * for a 112 KB request without a token, a 1 MB one with a token minutes.
 */
function suggestionAt(message: string): number {
  if (!message.endsWith('?')) return -1;
  return message.indexOf(SUGGESTION, message.lastIndexOf('?', message.length - 2) + 1);
}

/**
 * The errors `request`'s caller is given: without their suggestions unless `anonymous` (anonymous
 * introspection is on) or its token is accepted; undefined when they are given as they are.
 */
export function errorsForCaller(errors: readonly GraphQLError[], request: Request, anonymous: boolean): GraphQLError[] | undefined {
  if (anonymous) return undefined;
  const hidden = withoutSuggestions(errors);
  return hidden && !callerIdentity(request).proven ? hidden : undefined;
}

/** `errors` without their suggestions (each located as before), or undefined when none has one. */
function withoutSuggestions(errors: readonly GraphQLError[]): GraphQLError[] | undefined {
  const at = errors.map((e) => suggestionAt(e.message));
  if (at.every((i) => i < 0)) return undefined;
  return errors.map((error, i) =>
    at[i] >= 0
      ? new GraphQLError(error.message.slice(0, at[i]), {
          nodes: error.nodes,
          source: error.source,
          positions: error.positions,
          path: error.path,
          originalError: error.originalError,
          extensions: error.extensions,
        })
      : error,
  );
}
