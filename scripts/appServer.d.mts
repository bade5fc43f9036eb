import type { Server } from 'node:http';
import type { Visit } from '../src/gateway/lib/localVisit.js';

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

export interface AppServerOptions {
  /** The built app (examples/web/dist). */
  files: string;
  isLocalVisit(visit: Visit): boolean;
}

export function appServer(options: AppServerOptions, state: AppState): Server;
