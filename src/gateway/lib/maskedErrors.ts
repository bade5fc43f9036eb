/**
 * Yoga's error masking, hardened (the `maskedErrors` option of createYoga). A failed REST call
 * reaches the client as src/schema/lib/errors.ts maps it; errors the gateway made on purpose
 * (GraphQL errors without a foreign `originalError`: input and limit errors, validation) unchanged. Anything else (an exception thrown by a
 * resolver, e.g. on an upstream answer of an unexpected shape) becomes `Unexpected error.` with
 * `extensions.code: UPSTREAM_ERROR` (the fixed set has no other code for it, and in a gateway over
 * REST it is nearly always an upstream answer the gateway could not use) and keeps only its path:
 * never its message, stack or cause, even with NODE_ENV=development (Yoga's `isDev` would expose
 * them). Yoga logs the original error at `error` level.
 */
import { GraphQLError } from 'graphql';
import { maskError as yogaMaskError, type YogaServerOptions } from 'graphql-yoga';
import { fromRestError } from '../../schema/lib/errors.js';

export const UNEXPECTED_ERROR_MESSAGE = 'Unexpected error.';

export function maskError(error: unknown, message: string): Error {
  const located = error instanceof GraphQLError ? error : undefined;
  const rest = located && fromRestError(located);
  if (rest) return rest;
  const masked = yogaMaskError(error, message, false);
  if (masked === error) return masked;
  return new GraphQLError(message, {
    nodes: located?.nodes,
    source: located?.source,
    positions: located?.positions,
    path: located?.path,
    // Yoga's own `http` hint (a status for the response) is kept; nothing else is.
    extensions: { code: 'UPSTREAM_ERROR', ...(located?.extensions?.http ? { http: located.extensions.http } : {}) },
  });
}

export const maskedErrors: NonNullable<YogaServerOptions<object, object>['maskedErrors']> = {
  isDev: false,
  errorMessage: UNEXPECTED_ERROR_MESSAGE,
  maskError,
};
