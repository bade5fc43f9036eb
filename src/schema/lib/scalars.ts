import { GraphQLError, Kind, type ValueNode } from 'graphql';
import { builder } from '../builder.js';

/** ISO 8601 date-time strings, as REST sends them. */
builder.scalarType('DateTime', {
  description: 'An ISO 8601 date-time string, e.g. 2026-01-01T12:00:00.000Z.',
  serialize: (value) => {
    const v: unknown = value;
    const s = v instanceof Date ? v.toISOString() : String(v);
    // Worded as graphql-js words its own (`… value: …`): the unexpected error's ERROR line drops
    // what follows (maskedErrors.ts), and the upstream's value, content maybe, is not logged.
    if (Number.isNaN(Date.parse(s))) throw new GraphQLError(`DateTime cannot represent value: ${s}`);
    return s;
  },
  parseValue: (value) => parseDateTime(value),
  parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : undefined),
});

function parseDateTime(value: unknown): string {
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
    throw new GraphQLError('DateTime must be an ISO 8601 date-time string', { extensions: { code: 'BAD_USER_INPUT' } });
  return new Date(value).toISOString();
}

/** Open-ended JSON shapes the seed leaves unshown. */
builder.scalarType('JSON', {
  description: 'Any JSON value: an open-ended shape of the REST API.',
  serialize: (value) => value,
  parseValue: (value) => finite(value),
  parseLiteral: (ast) => literal(ast),
});

/**
 * A number past ±1.8e308 (`1e400`, in a document or a variable) reads as Infinity, which the REST
 * body's JSON writes as `null`: a setting given a number reached the REST API as null, and was
 * stored so. Refused instead, as graphql-js refuses it for a Float. Walked recursively: variables
 * nest at most 64 deep (useMaxVariablesDepth.ts), a document's values as deep as its tokens allow.
 */
function finite<T>(value: T): T {
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new GraphQLError('A JSON value holds a number out of range (beyond ±1.8e308).', { extensions: { code: 'BAD_USER_INPUT' } });
  } else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) finite(item);
  return value;
}

function literal(ast: ValueNode): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return finite(Number(ast.value));
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map(literal);
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literal(f.value)]));
    default:
      throw new GraphQLError('JSON literals cannot hold variables', { extensions: { code: 'BAD_USER_INPUT' } });
  }
}
