/**
 * Bounds of the gateway's node:http server: how long a client may take to send a request's
 * headers and its whole request (headers and body), how long an idle keep-alive connection stays,
 * and how many connections it holds at once (past the cap, a new connection is closed unanswered).
 * The request timeout covers receiving the request, not sending the response: a subscription's
 * event stream outlives it.
 */
import type { Server } from 'node:http';

import { DEFAULTS, withDefaults, type GroupConfig } from '../../config.js';

/** The `http` settings of src/config.ts (their meaning and defaults are there); headers are due at most at `requestTimeoutMs`. */
export type HttpBounds = GroupConfig<'http'>;

/** Bounds the server; absent bounds take their defaults. */
export function boundServer(server: Server, bounds?: Partial<HttpBounds>): void {
  const b = withDefaults(DEFAULTS.http, bounds);
  server.requestTimeout = b.requestTimeoutMs;
  server.headersTimeout = Math.min(b.headersTimeoutMs, b.requestTimeoutMs);
  server.keepAliveTimeout = b.keepAliveTimeoutMs;
  server.maxConnections = b.maxConnections;
  // Node checks both timeouts every `connectionsCheckingInterval` (default 30 s, read when the
  // server starts listening): a timeout of seconds needs a check at least every second.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    1000,
    Math.ceil(server.headersTimeout / 4),
  );
}
