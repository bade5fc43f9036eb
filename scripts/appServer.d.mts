import type { Server } from 'node:http';
import type { Visit } from '../src/gateway/lib/localVisit.js';
import type { boundHttpServer, ServerBounds } from '../src/serverBounds.js';

/** Where the gateway listens, once it does (`GraphQL:` line of its child process). */
export interface GatewayAddress {
  /** `Host` of the requests proxied to it. */
  host: string;
  hostname: string;
  port: string;
}

export interface AppState {
  gateway: GatewayAddress | null;
  demoToken: string | null;
}

export interface AppBounds extends Required<Omit<ServerBounds, 'keepAliveTimeoutMs' | 'writeStallTimeoutMs' | 'ipv6Prefix'>> {
  /** As the gateway's (absent: clientNetwork's default). */
  ipv6Prefix?: number;
  /** As the gateway's (absent: unread answers are held for as long as their clients stay). */
  writeStallTimeoutMs?: number;
  /** Requests proxied to the gateway at once: past it, 503 at once. */
  maxProxied: number;
}

export interface AppServerOptions {
  /** The built app (examples/web/dist). */
  files: string;
  isLocalVisit(visit: Visit): boolean;
  /** Headers of the app's HTML page (`PAGE_HEADERS`, as GraphiQL's). */
  pageHeaders: Readonly<Record<string, string>>;
  boundHttpServer: typeof boundHttpServer;
  bounds: AppBounds;
}

/** The app's bounds, from the `http` settings of the gateway it proxies to. */
export function appBounds(gateway: ServerBounds & { maxConnectionsPerAddress: number }): AppBounds;

export function appServer(options: AppServerOptions, state: AppState): Server;
