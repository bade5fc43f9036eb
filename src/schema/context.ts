/** What every resolver gets: the caller's REST access (loader + writes) and the gateway's limits. */
import type { GroupConfig } from '../config.js';
import type { Logger } from '../log.js';
import type { RestCaller } from '../rest/index.js';
import { ResultValues } from './lib/resultValues.js';
import { RestLoader } from './restLoader.js';

/**
 * Bounds of one operation (depth, aliases, tokens, fields, ids, cost) and the page sizes of a
 * connection: the `limits` settings of src/config.ts, with their meaning and defaults.
 */
export type GatewayLimits = GroupConfig<'limits'>;

export interface GatewayContext {
  /** Per-request loader over the caller-bound REST client: never shared between requests. */
  rest: RestLoader;
  config: GatewayLimits;
  log: Logger;
  /**
   * Aborted when the client goes away (subscriptions end their upstream stream). Made on first
   * use: a query without a subscription never needs one (the REST client is told otherwise).
   */
  clientSignal(): AbortSignal;
  /** Aborted when the gateway stops (subscriptions end their upstream stream and complete). */
  shutdown: AbortSignal;
  /** The caller-bound REST client (streams use it directly). */
  caller: RestCaller;
  /** The values its connections bring into its result, within `maxResultValues` and the budget across operations (lib/resultValues.ts). */
  values: ResultValues;
}

export function createContext(
  caller: GatewayContext['caller'],
  config: GatewayLimits,
  log: Logger,
  clientSignal: () => AbortSignal,
  shutdown: AbortSignal = new AbortController().signal,
  values = new ResultValues(config.maxResultValues),
): GatewayContext {
  return { rest: new RestLoader(caller), config, log, clientSignal, shutdown, caller, values };
}
