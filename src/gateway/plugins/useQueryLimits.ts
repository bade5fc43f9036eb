/**
 * The operation limits of GatewayLimits as Yoga plugins, each rejecting before execution with
 * BAD_USER_INPUT `<limit>: …` (see limitError.ts): document bytes before parsing, tokens while parsing, fields and operation names just before
 * validating, depth and aliases while validating, cost (connection `first` multiplies; ids of
 * `nodes`/`_entities` counted and capped, see useCostLimit.ts) just before executing, and the
 * result's bytes before it is serialized.
 */
import type { Plugin } from 'graphql-yoga';
import type { GatewayLimits } from '../context.js';
import type { SharedBodies } from '../lib/sharedBodies.js';
import { useCostLimit } from './useCostLimit.js';
import { useDirectiveArguments } from './useDirectiveArguments.js';
import { useIntrospectionAccess } from './useIntrospectionAccess.js';
import { useIntrospectionCache } from './useIntrospectionCache.js';
import { useMaxAliases } from './useMaxAliases.js';
import { useMaxDocumentBytes } from './useMaxDocumentBytes.js';
import { useMaxDepth } from './useMaxDepth.js';
import { useMaxFields } from './useMaxFields.js';
import { useMaxListItems } from './useMaxListItems.js';
import { useMaxOperationName } from './useMaxOperationName.js';
import { useMaxResponseBytes } from './useMaxResponseBytes.js';
import { useMaxTokens } from './useMaxTokens.js';
import { useMaxVariablesDepth } from './useMaxVariablesDepth.js';
import { useSubscriptionRootConditions } from './useSubscriptionRootConditions.js';

/** Bytes of results written at once across requests (default: a quarter of V8's heap limit); not a setting. */
export interface InFlightLimit {
  responseBytesInFlight?: number;
  /** Values operations' connections build at once (default: src/schema/lib/resultValues.ts). */
  resultValuesInFlight?: number;
  /** Bytes of request bodies held at once (default: lib/requestBytesInFlight.ts). */
  requestBytesInFlight?: number;
}

/** `shared`: the gateway's bodies the same for every caller (kept introspection answers' texts, see lib/sharedBodies.ts). */
/**
 * The limits that depend on the document alone (its parse and validation), and the spec's rule
 * graphql-js 16 lacks: also what each document of a persisted operations file is checked against
 * at start (usePersistedOperations.ts).
 */
export const useDocumentLimits = (limits: GatewayLimits): Plugin[] => [
  useMaxTokens(limits.maxTokens),
  useMaxFields(limits.maxFields),
  useMaxOperationName(),
  useMaxDepth(limits.maxDepth),
  useMaxAliases(limits.maxAliases),
  useSubscriptionRootConditions(),
];

export function useQueryLimits(limits: GatewayLimits & InFlightLimit, shared?: SharedBodies): Plugin[] {
  return [
    ...useDocumentLimits(limits),
    useDirectiveArguments(),
    useIntrospectionAccess({ anonymous: limits.anonymousIntrospection ?? false }),
    useCostLimit(limits),
    // After the cost, whose `--max-ids` is the tighter bound of the lists it prices.
    useMaxListItems(limits.maxListItems),
    // After access and cost: kept introspection results are served to requests that passed both.
    useIntrospectionCache(shared),
  ];
}

/**
 * The bounds that must come before the persisted operations and the response cache in the plugin
 * list: the request's variables depth and document bytes (the cache's key walks the variables, a
 * stack overflow on 200,000-deep ones), and response bytes (result hooks run in plugin order, so an
 * oversized result is replaced by its refusal before the cache would keep it and serialize it for
 * Redis: 95 MB on the heap).
 */
export const useRequestBounds = (limits: GatewayLimits & InFlightLimit): Plugin[] => [
  useMaxVariablesDepth(),
  useMaxDocumentBytes(limits.maxDocumentBytes),
  useMaxResponseBytes(limits.maxResponseBytes, limits.responseBytesInFlight),
];
