/**
 * The operation limits of GatewayLimits as Yoga plugins, each rejecting before execution with
 * BAD_USER_INPUT `<limit>: …` (see limitError.ts): tokens while parsing, fields just before
 * validating, depth and aliases while validating, cost (connection `first` multiplies; ids of
 * `nodes`/`_entities` counted and capped, see useCostLimit.ts) just before executing.
 */
import type { Plugin } from 'graphql-yoga';
import type { GatewayLimits } from '../context.js';
import { useCostLimit } from './useCostLimit.js';
import { useMaxAliases } from './useMaxAliases.js';
import { useMaxDepth } from './useMaxDepth.js';
import { useMaxFields } from './useMaxFields.js';
import { useMaxTokens } from './useMaxTokens.js';

export function useQueryLimits(limits: GatewayLimits): Plugin[] {
  return [
    useMaxTokens(limits.maxTokens),
    useMaxFields(limits.maxFields),
    useMaxDepth(limits.maxDepth),
    useMaxAliases(limits.maxAliases),
    useCostLimit(limits),
  ];
}
