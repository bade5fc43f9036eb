/**
 * Bounds of the gateway's node:http server: how long a client may take to send a request's
 * headers and its whole request (headers and body), how long an idle keep-alive connection stays,
 * and how many connections it holds at once (past the cap, a new connection is closed unanswered).
 * The request timeout covers receiving the request, not sending the response: a subscription's
 * event stream outlives it.
 */
import type { Server } from 'node:http';

export interface HttpBounds {
  /** Whole request (headers and body) received within this (default 20000; 408 past it). */
  requestTimeoutMs: number;
  /** Headers received within this (default 10000; at most `requestTimeoutMs`). */
  headersTimeoutMs: number;
  /** Idle keep-alive connections close after this (default 5000, Node's). */
  keepAliveTimeoutMs: number;
  /** Connections held at once (default 1000). */
  maxConnections: number;
}

export const DEFAULT_HTTP_BOUNDS: HttpBounds = {
  requestTimeoutMs: 20_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
};

export function boundServer(server: Server, bounds: Partial<HttpBounds> = {}): void {
  const b = { ...DEFAULT_HTTP_BOUNDS, ...bounds };
  server.requestTimeout = b.requestTimeoutMs;
  server.headersTimeout = Math.min(b.headersTimeoutMs, b.requestTimeoutMs);
  server.keepAliveTimeout = b.keepAliveTimeoutMs;
  server.maxConnections = b.maxConnections;
  // Node checks both timeouts every `connectionsCheckingInterval` (default 30 s, read when the
  // server starts listening): a timeout of seconds needs a check at least every second.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(1000, Math.ceil(server.headersTimeout / 4));
}
