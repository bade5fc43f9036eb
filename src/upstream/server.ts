import { isUtf8 } from 'node:buffer';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import {
  boundHttpServer,
  heldBodyBytes,
  JoinedBody,
  listenOn,
  MIN_CHUNK_BYTES,
  tooManyChunks,
  type ServerBounds,
} from '../serverBounds.js';
import { abortWith, drainable } from '../shutdown.js';
import { authenticate } from './auth.js';
import { systemClock, type Clock } from './clock.js';
import { RequestContext, type UpstreamServices } from './context.js';
import { openDatabase, type Db } from './db/index.js';
import { HttpError, unauthorized } from './errors.js';
import { resumeProcessing } from './openapi/process.js';
import { Query } from './query.js';
import { RateLimiter, type RateLimit } from './rateLimit.js';
import { RAW, Reply, Router } from './router.js';
import { redactUrl } from './redact.js';
import { registerRoutes } from './routes/index.js';

export interface UpstreamOptions {
  /** An open database, or a file path / `:memory:` (default `:memory:`). */
  db?: Db | string;
  clock?: Clock;
  /** Artificial delay added before each response, in ms. */
  latencyMs?: number;
  port?: number;
  host?: string;
  /** Requests per window per caller; off when absent. */
  rateLimit?: RateLimit;
  /** Called for each request when set (method, path with credential query values redacted, status, ms). */
  log?: (line: { method: string; path: string; status: number; ms: number }) => void;
  /** A connection the server could not accept (src/serverBounds.ts `listenOn`; default: nothing said). */
  acceptFailed?: (error: NodeJS.ErrnoException) => void;
  /** Largest accepted JSON body, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Bytes of request bodies read at once, across requests (default: defaultBodyBytesInFlight). */
  bodyBytesInFlight?: number;
  /** Time allowed to fetch an OpenAPI spec from its URL, in ms (default 10 s); beyond: FETCH_TIMEOUT. */
  openApiFetchTimeoutMs?: number;
  /** Time allowed to parse an OpenAPI spec, in ms (default 10 s); beyond: PARSE_ERROR. */
  openApiParseTimeoutMs?: number;
  /**
   * OpenAPI source URLs fetched although their address is loopback, private or link-local (a test
   * hook for specs served on loopback; by default every such URL is refused).
   */
  openApiFetchAllow?: (url: URL) => boolean;
  /** Pause between two Server-Sent Events of the streamed ask endpoints, in ms (default 25). */
  askStreamDelayMs?: number;
  /** Called when a streamed ask endpoint ends, with how (complete / aborted) and the events written. */
  onAskStreamEnd?: UpstreamServices['onAskStreamEnd'];
  /** The HTTP server's bounds (defaults: HTTP_BOUNDS). */
  http?: Partial<typeof HTTP_BOUNDS>;
}

export interface Upstream {
  /** Base URL ending in `/v1` (valid after start). */
  readonly url: string;
  readonly origin: string;
  readonly db: Db;
  readonly router: Router;
  /** Connections open now (tests). */
  connections(): number;
  start(): Promise<string>;
  stop(): Promise<void>;
  /** Resolves when the background work started so far (OpenAPI processing, …) has finished. */
  idle(): Promise<void>;
}

/** Builds the embedded REST API (the seed's endpoints under `/v1`). */
export function buildUpstream(options: UpstreamOptions = {}): Upstream {
  const db = typeof options.db === 'object' ? options.db : openDatabase(options.db ?? ':memory:');
  const clock = options.clock ?? systemClock;
  const router = new Router();
  const pending = new Set<Promise<unknown>>();
  const shutdown = new AbortController();
  // Windows on the monotonic clock unless a test moves time: on the wall clock, stepped back 10
  // minutes (NTP, a resumed VM), a caller over the limit was refused for 11 (Retry-After: 660).
  const windowClock = options.clock ? () => clock.now().getTime() : () => performance.now();
  const limiter = options.rateLimit ? new RateLimiter(options.rateLimit, windowClock) : null;
  const maxBodyBytes = options.maxBodyBytes ?? 1 << 20;
  const bodyBudget = Math.max(maxBodyBytes, options.bodyBytesInFlight ?? defaultBodyBytesInFlight());
  let bodyBytesHeld = 0;
  let origin = '';

  const services: UpstreamServices = {
    db,
    clock,
    origin: () => origin,
    shutdown: shutdown.signal,
    openApiFetchTimeoutMs: options.openApiFetchTimeoutMs ?? 10_000,
    openApiParseTimeoutMs: options.openApiParseTimeoutMs ?? 10_000,
    openApiFetchAllow: options.openApiFetchAllow,
    askStreamDelayMs: options.askStreamDelayMs ?? 25,
    onAskStreamEnd: options.onAskStreamEnd,
    track(work) {
      const p = work.catch(() => undefined).finally(() => pending.delete(p));
      pending.add(p);
    },
  };
  registerRoutes(router, services);

  const server: Server = createServer((req, res) => {
    const started = performance.now();
    res.on('finish', () =>
      options.log?.({ method: req.method ?? '', path: redactUrl(req.url ?? ''), status: res.statusCode, ms: performance.now() - started }),
    );
    handle(req, res).catch((err) => sendError(res, err));
  });
  // With Node's defaults (a minute for headers, five for a body, no cap), 21,000 idle connections
  // took the process's file descriptors, and with them the gateway's own port under `npm start`.
  boundHttpServer(server, { ...HTTP_BOUNDS, ...options.http });
  const drainer = drainable(server);

  async function handle(req: IncomingMessage, res: ServerResponse) {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      // A target node:http accepts but no URL reads (`//[`): no route has it.
      return sendError(res, new HttpError(400, 'The request target is not a valid URL'));
    }
    if (options.latencyMs) await delay(options.latencyMs);
    if (!url.pathname.startsWith('/v1/') && url.pathname !== '/v1') {
      return sendError(res, new HttpError(404, `No route for ${req.method} ${url.pathname}`));
    }
    const path = url.pathname.slice(3) || '/';
    const match = router.match(req.method ?? 'GET', path);
    if (!match) return sendError(res, new HttpError(404, `No route for ${req.method} ${url.pathname}`));
    if ('allowed' in match) {
      return sendError(res, new HttpError(405, `Method ${req.method} not allowed`, { allow: match.allowed.join(', ') }));
    }
    const caller = authenticate(db, req.headers.authorization);
    if (!caller && !match.route.options.anonymous) throw unauthorized();
    // Per user (however the header is spelled), or per address for anonymous calls.
    if (limiter) limiter.take(caller ? `user:${caller.id}` : `ip:${req.socket.remoteAddress}`);
    holdBody(req, res);
    const body = await readJson(req, maxBodyBytes);
    // Aborted when the client leaves (maybe while its body was read) or the server stops
    // (abortWith: not AbortSignal.any, which left 50 bytes in the shutdown signal per request).
    const aborted = new AbortController();
    const unlink = abortWith(aborted, shutdown.signal);
    const left = () => {
      unlink();
      aborted.abort();
    };
    if (res.closed) left();
    else res.on('close', left);
    const signal = aborted.signal;
    const ctx = new RequestContext(services, req, res, match.params, new Query(url.searchParams), body, caller, signal);
    const result = await match.route.handler(ctx);
    if (result === RAW) return;
    if (result instanceof Reply) return sendJson(res, result.status, result.body);
    if (result === undefined) {
      res.writeHead(204).end();
      return;
    }
    sendJson(res, 200, result);
  }

  /**
   * Counts the request's body (its Content-Length; a chunked one, the body bound) among the bytes
   * read at once until its response is done, or refuses it (503, `Retry-After: 1`, its connection
   * closed, its body unread) when that would pass the budget: each body is bounded, but not all of
   * them. 600 connections with a token, each 1 MiB of body sent but its last byte, held 600 MB of
   * `npm start`'s memory (the gateway's process) until the request timeout, and 1,000 would hold a
   * gigabyte. Bytes as the gateway counts its own bodies (heldBodyBytes): a small body is not
   * counted, no bookkeeping for most requests.
   */
  function holdBody(req: IncomingMessage, res: ServerResponse) {
    const bytes = heldBodyBytes(req, maxBodyBytes);
    if (!bytes) return;
    if (bodyBytesHeld + bytes > bodyBudget)
      throw new HttpError(503, 'body: too many request bodies are being read at once; retry shortly', {
        'retry-after': '1',
        connection: 'close',
      });
    bodyBytesHeld += bytes;
    res.once('close', () => (bodyBytesHeld -= bytes));
  }

  return {
    get url() {
      return `${origin}/v1`;
    },
    get origin() {
      return origin;
    },
    db,
    router,
    connections: () => drainer.connections(),
    async start() {
      await listenOn(server, options.port ?? 0, options.host ?? '127.0.0.1', options.acceptFailed ?? (() => undefined));
      const { address, port } = server.address() as AddressInfo;
      origin = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
      resumeProcessing(services);
      return `${origin}/v1`;
    },
    async stop() {
      shutdown.abort();
      await drainer.close(2000);
      await Promise.all(pending);
      if (typeof options.db !== 'object') db.close();
    },
    async idle() {
      while (pending.size) await Promise.all(pending);
    },
  };
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Bytes of request bodies the embedded upstream reads at once by default: a quarter of V8's heap
 * limit (about 38 MiB under `npm start`, whose heap it shares with the gateway), some 38 bodies of 1 MiB.
 * The gateway's own writes stay well within it: its request bodies are bounded at a sixteenth.
 */
export function defaultBodyBytesInFlight(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 4);
}

/** The HTTP server's bounds (src/serverBounds.ts). */
export const HTTP_BOUNDS: ServerBounds = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 1_000,
  writeStallTimeoutMs: 30_000,
};

async function readJson(req: IncomingMessage, max: number): Promise<unknown> {
  const body = new JoinedBody();
  const chunked = req.headers['transfer-encoding'] !== undefined;
  let chunks = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    body.add(chunk);
    // The rest of the body is left unread: the connection closes with the answer (kept alive, it
    // was reset under the client's next request on it).
    if (body.bytes > max) throw new HttpError(413, `body: must be at most ${max} bytes`, { connection: 'close' });
    // The gateway's rule (serverBounds.ts): each chunk costs the event loop, whatever it brings.
    if (chunked && tooManyChunks(++chunks, body.bytes))
      throw new HttpError(400, `body: chunks of fewer than ${MIN_CHUNK_BYTES} bytes on average; send larger chunks or a Content-Length`, {
        connection: 'close',
      });
  }
  if (!body.bytes) return undefined;
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) throw new HttpError(415, 'body: Content-Type must be application/json');
  const bytes = body.whole();
  // JSON's encoding (RFC 8259, 8.1): decoded, each byte that is not UTF-8 became U+FFFD, and a
  // write stored that as the caller's text without a word.
  if (!isUtf8(bytes)) throw new HttpError(400, 'body: is not valid UTF-8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new HttpError(400, 'body: is not valid JSON');
  }
  if (nestedDeeperThan(parsed, MAX_JSON_DEPTH)) throw new HttpError(400, `body: must not nest more than ${MAX_JSON_DEPTH} levels`);
  return parsed;
}

/** JSON.parse takes any depth, but later work (JSON.stringify when storing) overflows the stack on it. */
const MAX_JSON_DEPTH = 64;

/** True when arrays and objects nest more than `max` levels (checked without recursion). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, thrown: unknown) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // The client left while its body was being read (node:http's "aborted"): nobody to answer, nothing to log.
  if (res.req.destroyed && (thrown as NodeJS.ErrnoException)?.code === 'ECONNRESET') return;
  // The database is at its size cap (--db-max-bytes), or its disk is full: the write that needed room failed.
  const err =
    (thrown as { code?: unknown })?.code === 'SQLITE_FULL'
      ? new HttpError(507, 'The database is full: nothing more can be stored until something is deleted')
      : thrown;
  const known = err instanceof HttpError;
  if (!known) console.error('[upstream] internal error:', err);
  const status = known ? err.status : 500;
  const message = known ? err.message : 'Internal server error';
  if (known) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  sendJson(res, status, { error: { code: status, message } });
}
