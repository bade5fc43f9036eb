/**
 * A GraphQL error answered from `onRequest`, before Yoga reads the body: the JSON body Yoga would
 * write for it (`{"errors": [{message, extensions}]}`, without the `http` hint), with its status
 * and headers.
 */
import type { GraphQLError } from 'graphql';

export function errorResponse(
  Response: typeof globalThis.Response,
  status: number,
  error: GraphQLError,
  headers: Record<string, string> = {},
): Response {
  const { http: _, ...extensions } = error.extensions;
  return new Response(JSON.stringify({ errors: [{ message: error.message, extensions }] }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}
