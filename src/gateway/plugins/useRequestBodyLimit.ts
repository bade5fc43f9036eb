/**
 * Bounds request bodies (`--max-body-bytes`) on every endpoint, /graphql/stream included: by
 * `Content-Length` when the request has one (nothing else to do per request: Yoga's own
 * `maxRequestBodySize`, turned off, pipes every body through a TransformStream), and by counting
 * the bytes of a chunked body as it is read. Past the limit: 413 with a GraphQL error
 * (BAD_USER_INPUT, `maxBodyBytes`), before anything is parsed or any REST call is made.
 *
 * `useAnonymousBodyLimit` is the same bound, lower, for requests without an accepted token (none,
 * or one the REST API rejected lately): such work (introspection, share-key reads, APQ
 * registrations) needs a document under `--max-document-bytes` and a few variables, so its body
 * may hold twice the document bound. Without it, each 900 KB body of an anonymous flood was read
 * and JSON-parsed (a few ms of the event loop each) before the document bound refused it. A token
 * the REST API has not answered yet is not bounded so (a caller's first large mutation after a
 * restart must pass); it gets its own budget once accepted, or its address's once rejected.
 */
import type { Plugin } from 'graphql-yoga';
import { callerIdentity, sameCaller } from '../lib/callerHash.js';
import { errorResponse } from '../lib/errorResponse.js';
import { closeWhenAnswered, type NodeServerContext } from '../lib/httpBounds.js';
import { limitError } from '../lib/limitError.js';

const CONTENT_LENGTH = /^\d+$/;
/**
 * A body refused by its `Content-Length` is not read: the response closes the connection, as soon
 * as it is written (closeWhenAnswered). Kept open, Node reads and drops the rest to reuse it, and
 * 234 anonymous 900 KB bodies in 5 s were 210 MB of buffers, a full GC of the gateway's heap every
 * 100 ms (6–16 ms pauses each).
 */
const CLOSE = { connection: 'close' };

export function useRequestBodyLimit(
  maxBytes: number,
  scope: { applies(request: Request): boolean; why: string } = { applies: () => true, why: '' },
): Plugin {
  const tooLarge = (found?: number) =>
    limitError('maxBodyBytes', maxBytes, `Request body larger than ${maxBytes} bytes${scope.why}.`, found);
  return {
    onRequest({ request, setRequest, endResponse, fetchAPI, serverContext }) {
      if (!scope.applies(request)) return;
      const length = request.headers.get('content-length');
      if (length !== null) {
        if (!CONTENT_LENGTH.test(length))
          endResponse(errorResponse(fetchAPI.Response, 400, limitError('maxBodyBytes', maxBytes, 'Content-Length is not a number.')));
        // `Connection: close`: the body is not read (Node would read and drop it to reuse the connection).
        else if (Number(length) > maxBytes) {
          endResponse(errorResponse(fetchAPI.Response, 413, tooLarge(Number(length)), CLOSE));
          const { req, res } = (serverContext ?? {}) as NodeServerContext;
          if (req && res) closeWhenAnswered(req, res);
        }
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
      const bounded = new fetchAPI.Request(request.url, {
        method: request.method,
        headers: request.headers,
        signal: request.signal,
        body,
        duplex: 'half',
      } as RequestInit);
      sameCaller(request, bounded);
      setRequest(bounded);
    },
  };
}

/**
 * The body bound of requests without an accepted token (see above): `2 × maxDocumentBytes`, at
 * most `maxBodyBytes`. After useCallerIdentity, which tells whose the request is.
 */
export function useAnonymousBodyLimit(maxDocumentBytes: number, maxBodyBytes: number): Plugin {
  const maxBytes = anonymousBodyBytes(maxDocumentBytes, maxBodyBytes);
  return useRequestBodyLimit(maxBytes, {
    applies(request) {
      const { budget, address } = callerIdentity(request);
      return budget === address;
    },
    why: ` without an accepted token (twice the document limit, --max-document-bytes); larger requests need a token the REST API accepts`,
  });
}

/** The body bound of requests without an accepted token (useAnonymousBodyLimit). */
export const anonymousBodyBytes = (maxDocumentBytes: number, maxBodyBytes: number) => Math.min(maxBodyBytes, 2 * maxDocumentBytes);
