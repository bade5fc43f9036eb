/** Errors raised by the schema itself (not by a REST call): codes from src/rest/errors.ts. */
import { GraphQLError } from 'graphql';
import type { ErrorCode } from '../../rest/errors.js';

function schemaError(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extensions } });
}

/** Bad input caught before any REST call; `field` names the argument or input field. */
export const userInputError = (message: string, field?: string) => schemaError('BAD_USER_INPUT', message, field ? { field } : {});

export const notFoundError = (message: string) => schemaError('NOT_FOUND', message);
