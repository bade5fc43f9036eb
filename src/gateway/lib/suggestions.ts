/**
 * graphql-js's validation messages end with "Did you mean …?" suggestions, which name the schema's
 * fields and types: a caller without a token the REST API has accepted is not given them (it is
 * not given introspection either), unless anonymous introspection is on. Applied to HTTP results
 * (useIntrospectionAccess.ts) and graphql-sse's (useGraphQLSSE.ts).
 */
import { GraphQLError } from 'graphql';
import { callerIdentity } from './callerHash.js';

/** A suggestion at the end of a message: ` Did you mean "a", "b", or "c"?`. */
const SUGGESTION = / Did you mean [^?]*\?$/;

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
  if (!errors.some((e) => SUGGESTION.test(e.message))) return undefined;
  return errors.map((error) =>
    SUGGESTION.test(error.message)
      ? new GraphQLError(error.message.replace(SUGGESTION, ''), {
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
