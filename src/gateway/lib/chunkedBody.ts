/**
 * A chunked POST body, read from node:http before Yoga sees it (as lib/plainPost.ts reads a small
 * body) and handed on as frameworks hand a parsed one (`req.body`). Through whatwg-node's stream
 * adapter and the body bounds' transform each chunk cost about 3 µs of the event loop: an
 * anonymous 100 KB body in 1-byte chunks cost 135 ms, 45 times the same body sent with a
 * `Content-Length` (3 ms), and even refused by its count of chunks, what one read of the socket
 * holds (64 KiB, 11,000 such chunks) went through the adapter first (36 ms). Here a chunk costs
 * node:http's parse and a copy, and a body in too many chunks for its bytes (serverBounds.ts) is
 * refused as the chunk that passes the bound arrives: 400 BAD_USER_INPUT, and the connection is
 * read no further and closed once answered. The body bounds stay useRequestBodyLimit's: a body
 * over `maxBytes` (its caller's bound) is handed on as soon as it is, to be refused there (413).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { errorBody } from './errorResponse.js';
import { closeWhenAnswered, JoinedBody, MIN_CHUNK_BYTES, tooManyChunks } from './httpBounds.js';

const TOO_MANY_CHUNKS_BODY = errorBody({
  message: `Bad request: a chunked request body in chunks of fewer than ${MIN_CHUNK_BYTES} bytes on average; send larger chunks or a Content-Length.`,
  extensions: { code: 'BAD_USER_INPUT' },
});

/** A POST with a chunked body (no `Content-Length`; node:http refuses both at once). */
export function isChunkedPost(req: IncomingMessage): boolean {
  return req.method === 'POST' && req.headers['transfer-encoding'] !== undefined;
}

/** Reads `req`'s chunked body into `req.body`, then calls `next`; or answers 400 itself. */
export function readChunkedBody(req: IncomingMessage, res: ServerResponse, maxBytes: number, next: () => void): void {
  // Small chunks joined (JoinedBody): a reader that kept each chunk kept an object per chunk.
  const body = new JoinedBody();
  let chunks = 0;
  const stop = () => {
    req.off('data', onData);
    req.off('end', onEnd);
    // node:http reads no more of the connection (its client may be sending the rest), closed once
    // answered. What it already read it parses still, in this turn: a dumped request's chunks
    // (`_dumped`, as node:http marks one whose body it drops) are not pushed through its stream,
    // which halved what a refused body in 1-byte chunks cost (18 ms to 9 ms; Node 20 to 24).
    req.socket.pause();
    (req as IncomingMessage & { _dumped?: boolean })._dumped = true;
    closeWhenAnswered(req, res);
  };
  const onData = (chunk: Buffer) => {
    body.add(chunk);
    if (tooManyChunks(++chunks, body.bytes)) {
      stop();
      res.writeHead(400, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(TOO_MANY_CHUNKS_BODY),
        connection: 'close',
      });
      res.end(TOO_MANY_CHUNKS_BODY);
      return;
    }
    if (body.bytes > maxBytes) {
      stop();
      onEnd();
    }
  };
  const onEnd = () => {
    // As a stream of one chunk: whatwg-node takes a `req.body` that has own keys (it would read an
    // empty one from the spent stream) and lists them, so a Buffer of 100 KB made 100,000 strings
    // (4 ms a request).
    (req as IncomingMessage & { body?: Readable }).body = Readable.from(body.bytes === 0 ? [] : [body.whole()]);
    next();
  };
  // A client that leaves mid-body: nothing to answer (the response's close ends the rest).
  req.on('error', () => undefined);
  req.on('data', onData);
  req.once('end', onEnd);
}
