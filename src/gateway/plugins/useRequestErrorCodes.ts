/**
 * Every error a client sees carries an `extensions.code` of the fixed set (src/rest/errors.ts).
 * Errors of the request itself (syntax, validation, variables, the operation to run), which
 * GraphQL and Yoga give no code or codes of their own (`GRAPHQL_PARSE_FAILED`,
 * `GRAPHQL_VALIDATION_FAILED`, `OPERATION_RESOLUTION_FAILURE`), become BAD_USER_INPUT; an error
 * at a field's path without a code of the set (e.g. a REST value a scalar cannot serialize)
 * becomes UPSTREAM_ERROR. Yoga's `http` hints (the response status) are kept; the
 * `originalError` Yoga attaches to some request errors (e.g. a JSON SyntaxError) is dropped. A GET
 * whose `variables` or `extensions` is not JSON is the client's BAD_USER_INPUT (400), not an
 * unexpected error. Yoga's bodiless refusals of a request it cannot read (415: a content type
 * other than JSON, multipart included) or answer as asked (406: an incremental result to a client
 * that accepts only JSON) get a GraphQL error body with BAD_USER_INPUT, as every other refusal.
 */
import type { GraphQLError } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { ERROR_CODES, type ErrorCode } from '../../rest/errors.js';

const inSet = (code: unknown): code is ErrorCode => (ERROR_CODES as readonly unknown[]).includes(code);

/**
 * The code the client is answered for an error: its own of the set, else UPSTREAM_ERROR at a
 * field's path and BAD_USER_INPUT for the request's. The metrics, the spans and the debug log read
 * it before the result is processed (where a variable's error gets its code): they counted a
 * caller's bad variable as UPSTREAM_ERROR (the error rate operators are alerted on) or UNKNOWN.
 */
export function clientCode(error: Pick<GraphQLError, 'path' | 'extensions'>): ErrorCode {
  const code = error.extensions?.code;
  return inSet(code) ? code : error.path ? 'UPSTREAM_ERROR' : 'BAD_USER_INPUT';
}

/**
 * The longest message of a request's error (one without a field path) a client is answered. Such
 * a message may quote the caller's value whole, twice and escaped again (graphql-js: `Variable
 * "$a" got invalid value "…"; Int cannot represent non-integer value: "…"`): a 940 KB variable of
 * quotes given to an `Int` was answered with 3.8 MB, built and held on the heap as one string while
 * its client read it. The gateway's own messages are far shorter.
 */
export const MAX_REQUEST_ERROR_MESSAGE = 1_000;

/** Gives an error a code of the set, in place (as Yoga sets its own codes), and a request error's message its bound. */
function recode(error: Pick<GraphQLError, 'path' | 'extensions' | 'message'>): void {
  if (!error.path && error.message.length > MAX_REQUEST_ERROR_MESSAGE)
    Object.assign(error, { message: `${error.message.slice(0, MAX_REQUEST_ERROR_MESSAGE)}… (cut)` });
  const extensions = error.extensions as Record<string, unknown> | undefined;
  if (!extensions) {
    Object.assign(error, { extensions: { code: clientCode(error) } });
  } else {
    if (!inSet(extensions.code)) extensions.code = clientCode(error);
    if ('originalError' in extensions) {
      // Yoga answers such an error 400 only while it has a non-GraphQL originalError: keep the status.
      delete extensions.originalError;
      if (extensions.http) extensions.http = { ...(extensions.http as object), spec: false };
    }
  }
}

const invalidJson = () =>
  createGraphQLError('Request parameters `variables` and `extensions` must be JSON objects.', {
    extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
  });

/** Yoga's GET parser, with a JSON SyntaxError of its parameters turned into the client's error. */
function parseGETOrRefuse<T>(parse: () => T | Promise<T>): T | Promise<T> {
  const refuse = (error: unknown): never => {
    throw error instanceof SyntaxError ? invalidJson() : error;
  };
  try {
    const parsed = parse();
    return parsed instanceof Promise ? parsed.catch(refuse) : parsed;
  } catch (error) {
    return refuse(error);
  }
}

/** Gives each error a code of the set, in place (graphql-sse's results too: useGraphQLSSE.ts). */
export const recodeAll = (errors: ReadonlyArray<Pick<GraphQLError, 'path' | 'extensions' | 'message'>> | undefined) =>
  errors?.forEach(recode);

/** Yoga's 406, and an incremental result's refused before it runs (useDirectiveArguments.ts). */
export const NOT_ACCEPTABLE_MESSAGE =
  'The result cannot be written in a format the request accepts (`accept`): a result is written as `application/json` or `application/graphql-response+json`, an incremental one (`@defer`, `@stream`) as `multipart/mixed` or `text/event-stream`, a subscription as `text/event-stream`.';

/** The client's mistake behind each of Yoga's bodiless refusals. */
const BODILESS: Record<number, string> = {
  415: 'Send the request as JSON (`content-type: application/json`), or its parameters in the URL of a GET.',
  // Not only an incremental result's: `accept: text/html` on a plain query is refused too.
  406: NOT_ACCEPTABLE_MESSAGE,
};

export function useRequestErrorCodes(): Plugin {
  return {
    onResponse({ response, setResponse, fetchAPI }) {
      const message = BODILESS[response.status];
      if (!message || response.headers.has('content-type')) return;
      const headers = new fetchAPI.Headers(response.headers);
      headers.set('content-type', 'application/json; charset=utf-8');
      headers.delete('content-length');
      headers.delete('transfer-encoding');
      setResponse(
        new fetchAPI.Response(JSON.stringify({ errors: [{ message, extensions: { code: 'BAD_USER_INPUT' } }] }), {
          status: response.status,
          headers,
        }),
      );
    },
    onRequestParse({ request, requestParser, setRequestParser }) {
      if (request.method !== 'GET' || !requestParser) return;
      setRequestParser((req) => parseGETOrRefuse(() => requestParser(req)));
    },
    // At the source, for every transport (HTTP, SSE, graphql-sse).
    onParse:
      () =>
      ({ result }) => {
        if (result instanceof Error) recode(result as GraphQLError);
      },
    onValidate:
      () =>
      ({ result }) =>
        recodeAll(result as readonly GraphQLError[]),
    // What is left (variables, operation choice) on single and batched HTTP results.
    onResultProcess: ({ result }) => {
      if (Symbol.asyncIterator in Object(result)) return;
      for (const r of Array.isArray(result) ? result : [result]) recodeAll((r as { errors?: GraphQLError[] }).errors);
    },
  };
}
