/**
 * What every node:http server of the process is bounded by (the gateway's, lib/httpBounds.ts, and
 * the embedded REST API's, upstream/server.ts): seconds, not Node's minutes, for a client to send a
 * request's headers and its whole request (the response is not bounded: event streams outlive it),
 * a cap on the connections held at once and, optionally, on those of one client address (past
 * either, a new one is closed unanswered, unless another address holds more: see
 * `capConnections`), and every header seen. The example app's server
 * (scripts/appServer.mjs) takes them too, from dist/.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientNetwork } from './clientNetwork.js';
import { boundedLines, type Logger } from './log.js';

export interface ServerBounds {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
  /** Connections one client address (the socket's peer) holds at once (absent or 0: no cap). */
  maxConnectionsPerAddress?: number;
  /** The bits of an IPv6 peer's address that name one client for that cap (absent: clientNetwork's default). */
  ipv6Prefix?: number;
  /** An idle keep-alive connection's life (Node's default, 5 s, when absent). */
  keepAliveTimeoutMs?: number;
  /** How long a connection may leave what waits to be written to it unread (absent or 0: for good). */
  writeStallTimeoutMs?: number;
}

/**
 * Requests a connection may have pipelined behind the one being answered: past it, the client is
 * not waiting for its answers but flooding, and its connection is closed (here, for what one read
 * of it holds; the gateway also by what waits: lib/httpBounds.ts).
 */
export const MAX_PIPELINED = 16;

/**
 * A small body: most requests' (a query and its variables, a REST write). The bodies budgets do not
 * count one on arrival (the gateway's, lib/requestBytesInFlight.ts, counts what its parse builds
 * once that is much; the embedded REST API's, upstream/server.ts), and a refusal keeps its
 * connection (reading it costs nothing).
 */
export const SMALL_BODY_BYTES = 4 * 1024;

/**
 * A chunk of a chunked request body under SMALL_CHUNK_BYTES is copied, with the next ones, into a
 * buffer of JOINED_BYTES while the body is read: a reader that keeps each chunk until the body's
 * end keeps an object per chunk, and a body in 1-byte chunks is 1,000,000 of them per megabyte
 * (a token holder's 900 KB body so sent ran `npm start`'s heap out, in the gateway and in the
 * embedded REST API).
 */
export const SMALL_CHUNK_BYTES = 1024;
export const JOINED_BYTES = 16 * 1024;

/** A request body read chunk by chunk, kept in few buffers (SMALL_CHUNK_BYTES, JOINED_BYTES). */
export class JoinedBody {
  /** The bytes added so far. */
  bytes = 0;
  private readonly parts: Buffer[] = [];
  private block: Buffer | undefined;
  private used = 0;

  add(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (chunk.length >= SMALL_CHUNK_BYTES) {
      this.closeBlock();
      this.parts.push(chunk);
      return;
    }
    if (this.used + chunk.length > JOINED_BYTES) this.closeBlock();
    this.block ??= Buffer.allocUnsafe(JOINED_BYTES);
    chunk.copy(this.block, this.used);
    this.used += chunk.length;
  }

  /** The body, in one buffer. */
  whole(): Buffer {
    this.closeBlock();
    return this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.bytes);
  }

  private closeBlock(): void {
    if (this.used > 0) this.parts.push(this.block!.subarray(0, this.used));
    this.block = undefined;
    this.used = 0;
  }
}

/**
 * The chunks a chunked request body may come in: MIN_CHUNK_BYTES on average, past the first
 * FEW_CHUNKS (the gateway's, lib/chunkedBody.ts, and the embedded REST API's). Each chunk costs the event loop about 1.5 µs
 * (node:http's parser calls into JavaScript for it), so a 100 KB body in 16-byte chunks costs
 * about 4 times the same body with a `Content-Length` (3 ms), and one in 1-byte chunks, 45 times.
 */
export const MIN_CHUNK_BYTES = 16;
export const FEW_CHUNKS = 64;

/** Whether `chunks` chunks are too many for the `bytes` they brought (MIN_CHUNK_BYTES). */
export function tooManyChunks(chunks: number, bytes: number): boolean {
  return chunks > FEW_CHUNKS + bytes / MIN_CHUNK_BYTES;
}

/**
 * The bytes a request's body holds while it is read, for a budget of bodies read at once: its
 * `Content-Length` (a chunked one, the body bound `maxBodyBytes`), at most `maxBodyBytes`; 0 for a
 * small body (SMALL_BODY_BYTES or less), which is not counted.
 */
export function heldBodyBytes(req: IncomingMessage, maxBodyBytes: number): number {
  const length = req.headers['content-length'];
  const bytes = length !== undefined ? Math.min(Number(length) || 0, maxBodyBytes) : req.headers['transfer-encoding'] ? maxBodyBytes : 0;
  return bytes <= SMALL_BODY_BYTES ? 0 : bytes;
}

export function boundHttpServer(server: Server, bounds: ServerBounds): void {
  boundPipelining(server);
  if (bounds.maxConnectionsPerAddress) capConnections(server, bounds.maxConnections, bounds.maxConnectionsPerAddress, bounds.ipv6Prefix);
  else server.maxConnections = bounds.maxConnections;
  server.requestTimeout = bounds.requestTimeoutMs;
  server.headersTimeout = Math.min(bounds.headersTimeoutMs, bounds.requestTimeoutMs);
  if (bounds.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = bounds.keepAliveTimeoutMs;
  if (bounds.writeStallTimeoutMs) closeStalledWrites(server, bounds.writeStallTimeoutMs);
  // Every header reaches `req.headers`: past node:http's default of 2,000, the rest were dropped
  // while its parser still framed the body by them, so a `Content-Length` after 2,000 short
  // headers was unseen by every body bound (an anonymous 60 MB body ran the heap out). Their
  // size stays bounded (--max-http-header-size, 16 KiB: 431 past it).
  server.maxHeadersCount = 0;
  // Node checks both timeouts every `connectionsCheckingInterval` (default 30 s, read when the
  // server starts listening): a timeout of seconds needs a check at least every second.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    1000,
    Math.ceil(server.headersTimeout / 4),
  );
}

/**
 * At most `perAddress` connections from one client address at once, and `max` in all: past the
 * first, a new one is closed unanswered. One client holding 1,000 idle connections (reopened as
 * the headers timeout closed them) had every other client's connection refused, `/health` too.
 * Past `max`, a new connection from an address holding fewer than another is taken, and the
 * other address gives up one of its own (an idle one if it has one, else its oldest): four
 * addresses at the per-address cap held all 1,000 connections, and every other client's new
 * connection was closed unanswered (an IPv6 client has a network of addresses to open them from,
 * a /56 holds 256 /64s). A new connection from an address holding as many as any is closed.
 */
function capConnections(server: Server, max: number, perAddress: number, ipv6Prefix: number | undefined): void {
  // Ours to count: Node's own cap (`server.maxConnections`) closes a new connection before this
  // listener could make room for it.
  const open = new Map<string, Set<Socket & { _httpMessage?: unknown }>>();
  const forgets = new WeakMap<Socket, () => void>();
  let total = 0;
  server.on('connection', (socket: Socket) => {
    // An IPv6 client by its network (clientNetwork.ts): it has 2^64 addresses to open connections from.
    const address = clientNetwork(socket.remoteAddress ?? '', ipv6Prefix);
    const mine = open.get(address);
    const count = (mine?.size ?? 0) + 1;
    if (count > perAddress) return void socket.destroy();
    if (total >= max) {
      let most: Set<Socket & { _httpMessage?: unknown }> | undefined;
      for (const sockets of open.values()) if (!most || sockets.size > most.size) most = sockets;
      if (!most || most.size <= count) return void socket.destroy();
      // `_httpMessage`: the response node:http is writing on the socket (none between requests).
      let victim = most.values().next().value!;
      for (const held of most)
        if (!held._httpMessage) {
          victim = held;
          break;
        }
      forgets.get(victim)!();
      victim.destroy();
    }
    const sockets = mine ?? new Set();
    if (!mine) open.set(address, sockets);
    sockets.add(socket);
    total++;
    // Counted out once: when it is given up (at once, not at its `close`, which comes later) or closes.
    const forget = () => {
      if (!sockets.delete(socket)) return;
      total--;
      if (sockets.size === 0) open.delete(address);
    };
    forgets.set(socket, forget);
    socket.once('close', forget);
  });
}

/**
 * Closes a connection that has written nothing for `ms` while bytes wait to be written to it: its
 * client reads nothing of its response. Such a response holds its bytes (the results budget's
 * share of its caller, lib/httpBounds.ts and useMaxResponseBytes.ts, an event stream's queue)
 * for as long as the client keeps the connection open: a dozen connections of one token that
 * never read their 3.6 MB results held that token's share for good. node:http arms a socket
 * timeout of `server.timeout` on each connection, renewed by every read and write (a client
 * reading slowly renews it); on its expiry the server's `timeout` listener decides. net.Socket
 * holds back an expiry while the write it began last has moved since (its `kLastWriteQueueSize`,
 * the write's bytes, against the handle's queue), so a write the socket took part of at once is
 * cut after up to `2 × ms` (60 s by default, measured). A connection
 * with nothing waiting (a request whose REST calls are slow, a quiet event stream) is left open.
 * One with no response under way is closed too: node:http's keep-alive timeout fires the same
 * listener, and once a server has one it closes nothing itself. Left open, idle keep-alive
 * connections stayed for good: 250 from each of four client addresses, each after one
 * `GET /health`, held all 1,000 connections, and every other client's was closed unanswered.
 */
function closeStalledWrites(server: Server, ms: number): void {
  server.timeout = ms;
  server.on('timeout', (socket: Socket & { _httpMessage?: unknown }) => {
    // `_httpMessage`: the response node:http is writing on the socket (none between requests).
    if (socket.writableLength > 0 || !socket._httpMessage) socket.destroy();
  });
}

/** What node:http's connection listener leaves on a socket: its parser, whose `onIncoming` it calls per request. */
type ParsedSocket = Socket & { parser?: { onIncoming?: (req: unknown, keepAlive: unknown) => unknown } | null };

/**
 * Closes a connection one read of which holds more than MAX_PIPELINED + 1 requests, and parses no
 * further into that read. node:http parses all that a read of the socket holds (up to 64 KiB) at
 * once, and makes a request and a response for each before anyone can refuse them: 3,640
 * `GET / HTTP/1.1` without a `Host` fit in one read, each held until its connection closed, so 60
 * connections sending one such packet (3.9 MB, no token) ran `npm start`'s heap out; node:http
 * answers them itself (400), so no listener of ours saw one. Node calls the parser's `onIncoming`
 * for each request; an answer of 2 from it (what Node answers for an upgrade) stops the parse of
 * the read, and the connection is closed. Reads are counted between ticks: Node parses a read
 * before it runs the next tick. An older or newer Node without `onIncoming` is left as it is.
 */
function boundPipelining(server: Server): void {
  server.on('connection', (socket: ParsedSocket) => {
    const parser = socket.parser;
    const onIncoming = parser?.onIncoming;
    if (!parser || typeof onIncoming !== 'function') return;
    let inRead = 0;
    const endOfRead = () => (inRead = 0);
    parser.onIncoming = (req: unknown, keepAlive: unknown) => {
      if (inRead++ === 0) process.nextTick(endOfRead);
      if (inRead <= MAX_PIPELINED + 1) return onIncoming(req, keepAlive);
      socket.destroy();
      return 2;
    };
  });
}

/**
 * Listens on `port` and `host`: resolves once it does, rejects with the listen's error
 * (`EADDRINUSE`). After that, the server's errors are accept's (libuv gives up on `EMFILE` once its
 * reserved descriptor is spent, `ENOBUFS`, `ENOMEM`, a firewall's `EPERM`): each is one connection
 * not taken, not the server's end. They go to `acceptFailed`, never thrown: the listen's own
 * listener took the first of them, and a second, which nothing heard, ended the process.
 */
export function listenOn(server: Server, port: number, host: string, acceptFailed: (error: NodeJS.ErrnoException) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', acceptFailed);
      resolve();
    });
  });
}

/** A failing accept repeats for every connection tried: one line a minute at most. */
const ACCEPT_WARNING_MS = 60_000;

/**
 * A server's failed accepts (`listenOn`) as warnings: the first at once, then at most one a minute
 * (the next carries how many were not written: log.ts `boundedLines`). `what` names the server.
 */
export function acceptWarnings(log: Pick<Logger, 'warn'>, what: string, now?: () => number) {
  const warn = boundedLines((msg, fields) => log.warn(msg, fields), 1, ACCEPT_WARNING_MS, now);
  return (error: NodeJS.ErrnoException): void =>
    warn(`${what}: a connection could not be accepted (the process's or the machine's limits)`, { error: error.code ?? error.name });
}
