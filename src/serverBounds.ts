/**
 * What every node:http server of the process is bounded by (the gateway's, lib/httpBounds.ts, and
 * the embedded REST API's, upstream/server.ts): seconds, not Node's minutes, for a client to send a
 * request's headers and its whole request (the response is not bounded: event streams outlive it),
 * a cap on the connections held at once and, optionally, on those of one client address (past
 * either, a new one is closed unanswered), and every header seen. The example app's server
 * (scripts/appServer.mjs) takes them too, from dist/.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ServerBounds {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
  /** Connections one client address (the socket's peer) holds at once (absent or 0: no cap). */
  maxConnectionsPerAddress?: number;
  /** An idle keep-alive connection's life (Node's default, 5 s, when absent). */
  keepAliveTimeoutMs?: number;
}

export function boundHttpServer(server: Server, bounds: ServerBounds): void {
  if (bounds.maxConnectionsPerAddress) capPerAddress(server, bounds.maxConnectionsPerAddress);
  server.requestTimeout = bounds.requestTimeoutMs;
  server.headersTimeout = Math.min(bounds.headersTimeoutMs, bounds.requestTimeoutMs);
  if (bounds.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = bounds.keepAliveTimeoutMs;
  server.maxConnections = bounds.maxConnections;
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
 * At most `max` connections from one client address at once: past it a new one is closed
 * unanswered, as past `maxConnections`. One client holding 1,000 idle connections (reopened as
 * the headers timeout closed them) had every other client's connection refused, `/health` too.
 */
function capPerAddress(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) return void socket.destroy();
    open.set(address, count);
    socket.once('close', () => {
      const left = open.get(address)! - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
