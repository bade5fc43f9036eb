/**
 * A GraphQL error answered before Yoga reads the body (from `onRequest`, or by the HTTP server
 * itself): the JSON body Yoga would write for it (`{"errors": [{message, extensions}]}`, without
 * the `http` hint), with its status and headers.
 */

/** What of an error its answer shows: a GraphQLError, or the same shape built without one (no stack trace to capture). */
export interface ErrorShape {
  message: string;
  extensions: Record<string, unknown>;
}

export function errorBody(error: ErrorShape): string {
  const { http: _, ...extensions } = error.extensions;
  return JSON.stringify({ errors: [{ message: error.message, extensions }] });
}

export function errorResponse(
  Response: typeof globalThis.Response,
  status: number,
  error: ErrorShape,
  headers: Record<string, string> = {},
): Response {
  return new Response(errorBody(error), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}
