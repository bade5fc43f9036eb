/**
 * The operation limits of GatewayLimits as Yoga plugins, each rejecting before execution with
 * BAD_USER_INPUT `<limit>: …` (see limitError.ts): document bytes before parsing, tokens while parsing, fields and operation names just before
 * validating, depth and aliases while validating, cost (connection `first` multiplies; ids of
 * `nodes`/`_entities` counted and capped, see useCostLimit.ts) just before executing, and the
 * result's bytes before it is serialized.
 */
import type { Plugin } from 'graphql-yoga';
import type { GatewayLimits } from '../context.js';
import { useCostLimit } from './useCostLimit.js';
import { useDirectiveArguments } from './useDirectiveArguments.js';
import { useIntrospectionAccess } from './useIntrospectionAccess.js';
import { useMaxAliases } from './useMaxAliases.js';
import { useMaxDocumentBytes } from './useMaxDocumentBytes.js';
import { useMaxDepth } from './useMaxDepth.js';
import { useMaxFields } from './useMaxFields.js';
import { useMaxOperationName } from './useMaxOperationName.js';
import { useMaxResponseBytes } from './useMaxResponseBytes.js';
import { useMaxTokens } from './useMaxTokens.js';
import { useMaxVariablesDepth } from './useMaxVariablesDepth.js';

/** Limits of the gateway's own besides GatewayLimits (see useMaxFields.ts and useCostLimit.ts). */
export interface ListAndFieldLimits {
  /** Ids in one `nodes(ids:)`, representations in one `_entities(representations:)`. */
  maxIds: number;
  /** Fields written in one document. */
  maxFields: number;
  /** UTF-8 bytes of one document, checked before parsing. */
  maxDocumentBytes: number;
  /** Bytes of one result (of all parts of a streamed one), checked before it is serialized. */
  maxResponseBytes: number;
  /** Bytes of results written at once across requests (default: a quarter of V8's heap limit). */
  responseBytesInFlight?: number;
  /** Introspection without a token (else it needs one; see useIntrospectionAccess.ts). */
  anonymousIntrospection: boolean;
}

export const DEFAULT_LIST_AND_FIELD_LIMITS: ListAndFieldLimits = { maxIds: 100, maxFields: 200, maxDocumentBytes: 65_536, maxResponseBytes: 4 * 1024 * 1024, anonymousIntrospection: false };

export function useQueryLimits(limits: GatewayLimits & ListAndFieldLimits): Plugin[] {
  return [
    useMaxVariablesDepth(),
    useMaxDocumentBytes(limits.maxDocumentBytes),
    useMaxTokens(limits.maxTokens),
    useMaxFields(limits.maxFields),
    useMaxOperationName(),
    useMaxDepth(limits.maxDepth),
    useMaxAliases(limits.maxAliases),
    useDirectiveArguments(),
    useIntrospectionAccess({ anonymous: limits.anonymousIntrospection }),
    useCostLimit(limits),
    useMaxResponseBytes(limits.maxResponseBytes, limits.responseBytesInFlight),
  ];
}
