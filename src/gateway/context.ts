/** Moved to src/schema/context.ts (the per-request context lives with the schema); kept for the
 * gateway plugins that import the limit types from here. */
export type { GatewayContext, GatewayLimits } from '../schema/context.js';
