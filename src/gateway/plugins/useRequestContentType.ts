/**
 * The request body's `Content-Type`, read as HTTP defines it, on every endpoint (/graphql/stream
 * included), before graphql-sse or Yoga choose a parser for the body:
 *
 * - Its type and subtype in any case, with whitespace before the parameters (RFC 9110, 8.3.1 and
 *   5.6.6): Yoga's parsers and graphql-sse match `application/json` in lower case and right
 *   before the `;` only, so `Application/JSON` and `application/json ; charset=utf-8` were 415.
 *   The header is rewritten so before they read it.
 * - A body in a charset other than UTF-8 is refused (415 BAD_USER_INPUT) before it is parsed.
 *   Yoga and graphql-sse decode every body as UTF-8 (JSON's encoding: RFC 8259, 8.1), whatever
 *   the charset named: `application/json; charset=iso-8859-1` had each of its accented letters
 *   read as U+FFFD (a document failed with "Unexpected character: U+FFFD", a variable's text was
 *   written so by a mutation), `charset=utf-16` answered "invalid JSON". GraphQL over HTTP's
 *   reference server (graphql-http) takes only UTF-8 JSON too, and answers 415 otherwise.
 */
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { errorResponse } from '../lib/errorResponse.js';
import { qualityValues } from '../lib/qualityValues.js';

/**
 * Whether a request body of this `Content-Type` is in another charset than UTF-8 (none named:
 * UTF-8), its parameters read as the negotiation headers' are (qualityValues.ts).
 */
function foreignCharset(contentType: string): boolean {
  if (!contentType.includes(';')) return false;
  const charset = qualityValues(contentType)[0].params.find((p) => p.startsWith('charset='));
  if (charset === undefined) return false;
  const name = charset.slice('charset='.length).replace(/^"(.*)"$/, '$1');
  return name !== 'utf-8' && name !== 'utf8';
}

export function useRequestContentType(): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      if (request.method !== 'POST') return;
      const contentType = request.headers.get('content-type');
      if (!contentType) return;
      if (foreignCharset(contentType)) {
        const message = 'Send the request body in UTF-8 (`content-type: application/json; charset=utf-8`, or no charset).';
        return endResponse(errorResponse(fetchAPI.Response, 415, createGraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } })));
      }
      const type = contentType.split(';', 1)[0];
      const normal = type.trim().toLowerCase();
      if (normal !== type) request.headers.set('content-type', normal + contentType.slice(type.length));
    },
  };
}
