/**
 * GraphQL errors of the schema: its own (bad input, not found), and the one place where a failed
 * REST call (src/rest's RestError) becomes the GraphQL error a client sees. Codes: src/rest/errors.ts.
 */
import { GraphQLError } from 'graphql';
import { RestError, type ErrorCode } from '../../rest/index.js';

function schemaError(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return stackless(() => new GraphQLError(message, { extensions: { code, ...extensions } }));
}

/**
 * Runs `make` with no stack trace captured for the errors it creates. A client's error (bad input,
 * not found) never shows or logs its stack, and one cost about 100 µs to capture and then format
 * (graphql-js's locatedError reads it to copy it): 30 aliases of `nodes(ids:)` or `_entities` of
 * 100 malformed ids each, 3,000 errors from a 5 KB request without a token, held the event loop
 * some 400 ms.
 */
export function stackless<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Bad input caught before any REST call; `field` names the argument or input field. */
export const userInputError = (message: string, field?: string) => schemaError('BAD_USER_INPUT', message, field ? { field } : {});

export const notFoundError = (message: string) => schemaError('NOT_FOUND', message);

/**
 * An operation over one of the gateway's limits: BAD_USER_INPUT `<limit>: <message>` (like the REST
 * API's 400s), with the limit's name, maximum and (when known) the operation's value.
 */
export const limitExceededError = (limit: string, maximum: number, message: string, actual?: number) =>
  schemaError('BAD_USER_INPUT', `${limit}: ${message}`, { limit, maximum, ...(actual === undefined ? {} : { actual }) });

/** What the gateway holds at once is at its budget: UPSTREAM_UNAVAILABLE, to be tried again in a second. */
export const busyError = (message: string) => schemaError('UPSTREAM_UNAVAILABLE', message, { retryAfter: 1 });

/**
 * A write the REST API answered 2xx without the body its payload is read from (GitBook's OpenAPI
 * description documents JSON for it): the write was made, and the error says so. A TypeError, or
 * a null in a non-null field, answered "Unexpected error." and a client repeated the write.
 */
export const answerlessWriteError = () => schemaError('UPSTREAM_ERROR', 'Upstream error: the write was made, but its answer had no body');

/**
 * The client's error for one raised at `located` (a field's path) by a REST call: the RestError's
 * message and extensions (code, upstream status, method and path), never its stack; undefined for
 * an error of another kind.
 */
export function fromRestError(located: GraphQLError): GraphQLError | undefined {
  const rest = located.originalError;
  if (!(rest instanceof RestError)) return undefined;
  const { nodes, source, positions, path } = located;
  return stackless(() => new GraphQLError(rest.message, { nodes, source, positions, path, extensions: { ...rest.extensions } }));
}
