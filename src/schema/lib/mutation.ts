/**
 * Mutation helpers: inputs carry REST path parameters and body fields under their REST names;
 * the body is checked against the same rules as the embedded upstream (src/api) before any REST
 * call, and the request's loader forgets what the write changed.
 */
import { checkFields, ValidationError, type Fields } from '../../api/validate.js';
import { userInputError } from './errors.js';

/** The REST body of a mutation input: every field but the path parameters and clientMutationId;
 * absent fields are left out, explicit nulls kept. */
export function restBody(input: Record<string, unknown>, pathParams: readonly string[] = []): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined || k === 'clientMutationId' || pathParams.includes(k)) continue;
    body[k] = v;
  }
  return body;
}

/** Checks a body against src/api rules; a broken rule is BAD_USER_INPUT naming `<prefix><field>`
 * (`input.title` of a mutation; a field's argument with no prefix). */
export function checkInput(rules: Fields, body: Record<string, unknown>, prefix = 'input.', open = true): void {
  try {
    checkFields(rules, body, '', open);
  } catch (error) {
    if (error instanceof ValidationError) throw userInputError(`${prefix}${error.field}: ${error.rule}`, `${prefix}${error.field}`);
    throw error;
  }
}
