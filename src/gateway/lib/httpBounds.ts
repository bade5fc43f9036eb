/**
 * Bounds of the gateway's node:http server: how long a client may take to send a request's
 * headers and its whole request (headers and body), how long an idle keep-alive connection stays,
 * and how many connections it holds at once, in all and per client address (past a cap, a new
 * connection is closed unanswered; src/serverBounds.ts). The request timeout covers receiving the
 * request, not sending the response: a subscription's event stream outlives it.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

import { DEFAULTS, withDefaults, type GroupConfig } from '../../config.js';
import { boundHttpServer, MAX_PIPELINED, SMALL_BODY_BYTES } from '../../serverBounds.js';

export { heldBodyBytes, JoinedBody, MAX_PIPELINED, MIN_CHUNK_BYTES, tooManyChunks } from '../../serverBounds.js';

/** The `http` settings of src/config.ts (their meaning and defaults are there); headers are due at most at `requestTimeoutMs`. */
export type HttpBounds = GroupConfig<'http'>;

/**
 * Bounds the server; absent bounds take their defaults. `behindProxies`: the socket addresses are
 * reverse proxies' (--trust-proxy-hops), so connections are not capped per address.
 */
export function boundServer(server: Server, bounds?: Partial<HttpBounds>, behindProxies = false): void {
  const b = withDefaults(DEFAULTS.http, bounds);
  boundHttpServer(server, { ...b, maxConnectionsPerAddress: behindProxies ? 0 : b.maxConnectionsPerAddress });
}

/**
 * Ends the connection of a request refused before its body is read (413 by its `Content-Length`,
 * 503 over the bodies budget, the HTTP server's own 429 of a large body) as soon as the refusal is
 * written. With `Connection: close` alone,
 * Node resumes the request to read and drop its body and closes only once its own end is flushed:
 * in that turn it read what the kernel held of the body, about 195 KB of each refused 900 KB body
 * (limits.test.ts), 45 MB in the abuse bench's padded-documents attack, whose buffers doubled the
 * well-behaved caller's p99 (docs/BENCHMARKS-history.md). The reset an unread body causes is the one Node's
 * own close sends too (the rest of the body was never going to be read), after the refusal.
 */
export function closeWhenAnswered(req: IncomingMessage, res: ServerResponse): void {
  res.once('finish', () => req.socket.destroy());
}

/**
 * Whether a request refused before its body is read should end its connection rather than keep
 * it alive (which reads and drops the body): a body over SMALL_BODY_BYTES, or chunked.
 */
export function largeBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return length !== undefined ? !(Number(length) <= SMALL_BODY_BYTES) : req.headers['transfer-encoding'] !== undefined;
}

/** node:http's request and response, as a server context holds them (absent over another transport). */
export type NodeServerContext = { req?: IncomingMessage; res?: ServerResponse };

/** The callbacks waiting for one response's end, and the socket whose close also ends it. */
type Waiting = { callbacks: Array<() => void>; socket?: IncomingMessage['socket']; end(): void };
const WAITING = Symbol('whenResponseDone');
type Watched = ServerResponse & { [WAITING]?: Waiting };

/**
 * Calls `done` once, when `res` is written (`finish`) or closed, or when the connection that
 * carried `req` closes. A response queued behind another on a pipelined connection emits neither
 * `finish` nor `close` when its client leaves (node:http drops it with the socket): what was held
 * until its end (bytes of a budget, the REST client's registration, an operation's answers) would
 * be held for good. The socket's listener goes when the response is done.
 *
 * A response's callbacks share one set of listeners, called in the order they were added: a small
 * query waits on its end in five places (the pipelining queue, the caller's registration, the
 * client-left signal, the bodies and results budgets), and three `once` listeners each, added and
 * removed per request, were about a twentieth of what such a request allocated.
 */
export function whenResponseDone(req: IncomingMessage | undefined, res: ServerResponse, done: () => void): void {
  const socket = req?.socket;
  if (res.closed || res.writableFinished || socket?.destroyed) return done();
  const watched = res as Watched;
  const waiting = watched[WAITING];
  if (waiting) {
    waiting.callbacks.push(done);
    if (socket && !waiting.socket) (waiting.socket = socket).on('close', waiting.end);
    return;
  }
  const state: Waiting = {
    callbacks: [done],
    socket,
    end() {
      if (watched[WAITING] !== state) return;
      watched[WAITING] = undefined;
      res.removeListener('finish', state.end);
      res.removeListener('close', state.end);
      state.socket?.removeListener('close', state.end);
      // Every callback runs, one that throws included (each releases something of its own).
      let failure: unknown;
      for (const callback of state.callbacks) {
        try {
          callback();
        } catch (error) {
          failure ??= error;
        }
      }
      if (failure !== undefined) throw failure;
    },
  };
  watched[WAITING] = state;
  // `on`, not `once`: `end` removes all three itself (and runs once).
  res.on('finish', state.end);
  res.on('close', state.end);
  socket?.on('close', state.end);
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Hands `listener` one request of a connection at a time: a request pipelined behind another waits
 * (nothing done for it) until that one's response is done, then runs. Past MAX_PIPELINED waiting,
 * or when one waiting has a large body, the connection is closed. node:http emits every request of
 * a packet at once (it stops reading only once written responses wait), so one write of 300 small
 * queries ran 300 operations at once: 100 connections of them (10 MB sent) ran a token holder's
 * gateway out of its 128 MB heap. Responses go out in order anyway: running them one by one delays
 * no answer a client could have read sooner.
 */
export function onePerConnection(listener: Listener): Listener {
  const waiting = new WeakMap<object, Array<[IncomingMessage, ServerResponse]>>();
  const run = (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    if (!waiting.has(socket)) waiting.set(socket, []);
    whenResponseDone(req, res, () => {
      const next = socket.destroyed ? undefined : waiting.get(socket)?.shift();
      if (next) run(...next);
      else waiting.delete(socket);
    });
    listener(req, res);
  };
  return (req, res) => {
    const queue = waiting.get(req.socket);
    if (!queue) return run(req, res);
    // A large body waiting would be held outside the bodies budget (requestBytesInFlight.ts),
    // which counts a body only once its request runs: its connection is closed too.
    if (queue.length >= MAX_PIPELINED || largeBody(req)) return void req.socket.destroy();
    queue.push([req, res]);
  };
}
