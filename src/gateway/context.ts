/** What every resolver gets: the caller's REST access (loader + writes) and the gateway's limits. */
import type { Logger } from '../log.js';
import type { RestCaller } from '../rest/index.js';
import { RestLoader } from './restLoader.js';

export interface GatewayLimits {
  defaultPageSize: number;
  maxPageSize: number;
}

export interface GatewayContext {
  /** Per-request loader over the caller-bound REST client: never shared between requests. */
  rest: RestLoader;
  config: GatewayLimits;
  log: Logger;
  /** Aborted when the client goes away (subscriptions stop their upstream stream). */
  signal: AbortSignal;
  /** The caller-bound REST client (streams use it directly). */
  caller: RestCaller;
}

export function createContext(caller: GatewayContext['caller'], config: GatewayLimits, log: Logger, signal: AbortSignal): GatewayContext {
  return { rest: new RestLoader(caller), config, log, signal, caller };
}
