/**
 * Bounds request bodies (`--max-body-bytes`) on every endpoint, /graphql/stream included: by
 * `Content-Length` when the request has one (nothing else to do per request: Yoga's own
 * `maxRequestBodySize`, turned off, pipes every body through a TransformStream), and by counting
 * the bytes of a chunked body as it is read. Past the limit: 413 with a GraphQL error
 * (BAD_USER_INPUT, `maxBodyBytes`), before anything is parsed or any REST call is made.
 */
import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { limitError } from '../lib/limitError.js';

const CONTENT_LENGTH = /^\d+$/;

export function useRequestBodyLimit(maxBytes: number): Plugin {
  const tooLarge = (found?: number) => limitError('maxBodyBytes', maxBytes, `Request body larger than ${maxBytes} bytes.`, found);
  const respond = (Response: typeof globalThis.Response, status: number, error: GraphQLError) =>
    new Response(JSON.stringify({ errors: [{ message: error.message, extensions: error.extensions }] }), {
      status,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
  return {
    onRequest({ request, setRequest, endResponse, fetchAPI }) {
      const length = request.headers.get('content-length');
      if (length !== null) {
        if (!CONTENT_LENGTH.test(length))
          endResponse(respond(fetchAPI.Response, 400, limitError('maxBodyBytes', maxBytes, 'Content-Length is not a number.')));
        else if (Number(length) > maxBytes) endResponse(respond(fetchAPI.Response, 413, tooLarge(Number(length))));
        return;
      }
      if (!request.headers.has('transfer-encoding') || !request.body) return;
      // As Yoga does: the stream classes must match the body's (native or whatwg-node's ponyfill).
      const Transform = request.body instanceof ReadableStream ? globalThis.TransformStream : fetchAPI.TransformStream;
      let read = 0;
      const body = request.body.pipeThrough(
        new Transform<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            read += chunk.byteLength;
            if (read <= maxBytes) return controller.enqueue(chunk);
            const error = tooLarge();
            error.extensions.http = { status: 413 };
            controller.error(error);
          },
        }),
      );
      setRequest(
        new fetchAPI.Request(request.url, {
          method: request.method,
          headers: request.headers,
          signal: request.signal,
          body,
          duplex: 'half',
        } as RequestInit),
      );
    },
  };
}
