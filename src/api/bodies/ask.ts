/**
 * Inputs of the organization AI ask, declared once: the embedded upstream checks the POST body
 * and the stream's `query` parameter with them, the gateway checks its inputs with them.
 */
import { limits } from '../rules.js';
import { rule, type Fields } from '../validate.js';

/** The question: a non-empty string (POST body field and `query` parameter of the stream). */
export const askQuery = rule({ kind: 'string', min: 1 });

export const askBodies = {
  'ask.create': { query: { ...askQuery, required: true }, previousQueries: limits.previousQueries },
} satisfies Record<string, Fields>;
