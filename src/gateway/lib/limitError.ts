/**
 * The error of an operation over one of the gateway's limits: BAD_USER_INPUT, before execution
 * (so no REST call), with a message `<limit>: <what>` like the REST API's 400s and the limit's
 * name, maximum and (when known) the operation's value in `extensions`.
 */
import { GraphQLError, type ValidationContext } from 'graphql';
import type { GatewayLimits } from '../context.js';
import { limitExceededError } from '../../schema/lib/errors.js';

export type LimitName =
  | keyof Pick<GatewayLimits, 'maxDepth' | 'maxAliases' | 'maxTokens' | 'maxCost'>
  | 'maxIds'
  | 'maxListItems'
  | 'maxFields'
  | 'maxBodyBytes'
  | 'maxDocumentBytes'
  | 'maxOperationName'
  | 'maxResponseBytes'
  | 'maxVariablesDepth';

export function limitError(limit: LimitName, maximum: number, message: string, actual?: number): GraphQLError {
  return limitExceededError(limit, maximum, message, actual);
}

/**
 * The refusal of a result over `maxResponseBytes` (useMaxResponseBytes.ts), also made where a
 * result is measured before it reaches the event loop (an introspection worker's answer).
 */
export function responseBytesError(maximum: number): GraphQLError {
  return limitError(
    'maxResponseBytes',
    maximum,
    `Response size limit of ${maximum} bytes exceeded (each occurrence of an object counts; select fewer or smaller fields, or page).`,
  );
}

/**
 * A GraphQL Armor `onReject` that replaces the library's error (no code, a misleading
 * "Syntax Error:" prefix) with `limitError`: reported to the validation context when there is one,
 * thrown otherwise (the token limit rejects while parsing). Use with `propagateOnRejection: false`.
 */
export function rejectAs(limit: LimitName, maximum: number): (context: ValidationContext | null, error: GraphQLError) => void {
  return (context, error) => {
    const message = error.message.replace(/^Syntax Error:\s*/, '');
    const found = /found (\d+)/.exec(message);
    const replaced = limitError(limit, maximum, message, found ? Number(found[1]) : undefined);
    if (!context) throw replaced;
    context.reportError(replaced);
  };
}
