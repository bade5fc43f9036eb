/**
 * Compresses responses (br or gzip, as the client prefers: lib/contentEncoding.ts) of at least
 * `minBytes`. Below it the fixed cost of a compressor (about 0.1 ms for a 0.4 kB result, measured)
 * buys nothing: with its headers such a response fits one TCP segment anyway. Only whole bodies of
 * text types are compressed; event streams (SSE, graphql-sse, multipart `@defer`/`@stream`) never
 * are, since a compressor would hold their events back, nor a response that already names its
 * encoding (GraphiQL's precompressed assets; Yoga's `Content-Encoding: none` on its streams).
 *
 * Not @whatwg-node/server's `useContentEncoding`: it compresses every body whatever its size or
 * type (an SSE stream through it holds every event until the stream ends), matches
 * `Accept-Encoding` without weights or spaces, and inflates request bodies, which the gateway's
 * body limit counts compressed (a 50 kB gzip of 50 MB would pass it).
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync, type BrotliOptions, type ZlibOptions } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';
import { negotiateEncoding, type Encoding } from '../lib/contentEncoding.js';
import { addVary } from '../lib/vary.js';
import type { SharedBodies } from '../lib/sharedBodies.js';

export const DEFAULT_COMPRESS_MIN_BYTES = 1024;

const COMPRESSIBLE = /^(application\/(json|graphql-response\+json)|text\/(html|plain|css|javascript))\b/;
/** Bodies up to this are compressed on the event loop (about 0.1 ms); larger ones on libuv's thread pool. */
const SYNC_MAX_BYTES = 64 * 1024;
/** Brotli at quality 4: about gzip's speed for a third less bytes (the default, 11, is 50 times slower). */
const BROTLI: BrotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };
const GZIP: ZlibOptions = { level: 6 };
const compressAsync = { br: promisify(brotliCompress), gzip: promisify(gzip) };

function compress(encoding: Encoding, body: Buffer): Buffer | Promise<Buffer> {
  const async = body.length > SYNC_MAX_BYTES;
  if (encoding === 'gzip') return async ? compressAsync.gzip(body, GZIP) : gzipSync(body, GZIP);
  const options: BrotliOptions = { params: { ...BROTLI.params, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } };
  return async ? compressAsync.br(body, options) : brotliCompressSync(body, options);
}

/** The body's length when known without reading it: its header, or whatwg-node's own count for a string or buffer body. */
function knownLength(response: Response): number | undefined {
  const header = response.headers.get('content-length');
  if (header !== null) return Number(header);
  const own = (response as Response & { contentLength?: unknown }).contentLength;
  return typeof own === 'number' ? own : undefined;
}

/** A string body's text, as whatwg-node's own writer reads it (sendNodeResponse); undefined for others. */
function stringBody(response: Response): string | undefined {
  const own = response as Response & { bodyType?: unknown; bodyInit?: unknown };
  return own.bodyType === 'String' && typeof own.bodyInit === 'string' ? own.bodyInit : undefined;
}

/**
 * `shared`: bodies the same for every caller (lib/sharedBodies.ts), compressed once per encoding
 * rather than at each response.
 */
export function useCompression(minBytes = DEFAULT_COMPRESS_MIN_BYTES, shared?: SharedBodies): Plugin {
  return {
    onResponse({ request, response, setResponse, fetchAPI }) {
      // Cheapest checks first: most results are small (and `body` makes a stream of a string body).
      if (request.method === 'HEAD' || response.headers.has('content-encoding')) return;
      if (!COMPRESSIBLE.test(response.headers.get('content-type') ?? '')) return;
      const length = knownLength(response);
      if (length !== undefined && length < minBytes) return;
      const encoding = negotiateEncoding(request.headers.get('accept-encoding'));
      if (!encoding) {
        // Another client would get it compressed: caches must tell them apart.
        addVary(response.headers, 'Accept-Encoding');
        // A body the same for every caller is written from bytes made once.
        const text = shared && stringBody(response);
        const bytes = text === undefined ? undefined : shared!.bytes(text);
        if (bytes) {
          const headers = new fetchAPI.Headers(response.headers);
          headers.set('content-length', String(bytes.length));
          setResponse(
            new fetchAPI.Response(bytes as unknown as BodyInit, { status: response.status, statusText: response.statusText, headers }),
          );
        }
        return;
      }
      const headers = new fetchAPI.Headers(response.headers);
      addVary(headers, 'Accept-Encoding');
      const init = { status: response.status, statusText: response.statusText, headers };
      const send = (compressed: Buffer) => {
        headers.set('content-encoding', encoding);
        headers.set('content-length', String(compressed.length));
        setResponse(new fetchAPI.Response(compressed as unknown as BodyInit, init));
      };
      const text = shared && stringBody(response);
      const once =
        text !== undefined && text.length >= minBytes
          ? shared!.compressed(text, encoding, async () => compress(encoding, Buffer.from(text)))
          : undefined;
      if (once) return once.then(send);
      // Only now: reading `body` turns a string body into a stream, written more slowly.
      if (!response.body) return;
      return response.arrayBuffer().then(async (read) => {
        const body = Buffer.from(read);
        if (body.length < minBytes) return setResponse(new fetchAPI.Response(body as unknown as BodyInit, init));
        send(await compress(encoding, body));
      });
    },
  };
}
