/**
 * Yoga's error masking, hardened (the `maskedErrors` option of createYoga). A failed REST call
 * reaches the client as src/schema/lib/errors.ts maps it; errors the gateway made on purpose
 * (GraphQL errors without a foreign `originalError`: input and limit errors, validation) unchanged. Anything else (an exception thrown by a
 * resolver, e.g. on an upstream answer of an unexpected shape) becomes `Unexpected error.` with
 * `extensions.code: UPSTREAM_ERROR` (the fixed set has no other code for it, and in a gateway over
 * REST it is nearly always an upstream answer the gateway could not use) and keeps only its path:
 * never its message, stack or cause, even with NODE_ENV=development (Yoga's `isDev` would expose
 * them). The original error is logged at `error` level with its operation's name and document
 * hash (useUnexpectedErrorLog), never with the document's text (see errorText).
 */
import { createHash } from 'node:crypto';
import { getOperationAST, GraphQLError, print, type DocumentNode, type ExecutionArgs } from 'graphql';
import { isAsyncIterable, maskError as yogaMaskError, type Plugin, type YogaServerOptions } from 'graphql-yoga';
import { boundedLines, type Logger } from '../../log.js';
import { credentialOf, errorCode, redact, RestError } from '../../rest/index.js';
import { fromRestError } from '../../schema/lib/errors.js';
import { boundedName } from './operationName.js';

export const UNEXPECTED_ERROR_MESSAGE = 'Unexpected error.';

export function maskError(error: unknown, message: string): Error {
  const located = error instanceof GraphQLError ? error : undefined;
  const rest = located && fromRestError(located);
  if (rest) return rest;
  const masked = yogaMaskError(error, message, false);
  if (masked === error) return masked;
  return new GraphQLError(message, {
    nodes: located?.nodes,
    source: located?.source,
    positions: located?.positions,
    path: located?.path,
    // Yoga's own `http` hint (a status for the response) is kept; nothing else is.
    extensions: { code: 'UPSTREAM_ERROR', ...(located?.extensions?.http ? { http: located.extensions.http } : {}) },
  });
}

export const maskedErrors: NonNullable<YogaServerOptions<object, object>['maskedErrors']> = {
  isDev: false,
  errorMessage: UNEXPECTED_ERROR_MESSAGE,
  maskError,
};

/** Unexpected errors already logged with their operation: Yoga's own line for them is dropped. */
const logged = new WeakSet<object>();
const LOGGED_MESSAGE_LENGTH = 300;
/**
 * `text` cut to LOGGED_MESSAGE_LENGTH, with `secret` (the caller's token) redacted first (a cut
 * could leave part of it): an upstream value of the wrong shape is quoted in the message
 * (`String cannot represent value: { … }`), and an upstream that echoed the caller's token in it
 * put the token in the ERROR line.
 */
const cut = (text: string, secret?: string) => {
  const bare = withoutValue(text);
  const out = secret ? redact(bare.slice(0, LOGGED_MESSAGE_LENGTH + 2 * secret.length), secret) : bare;
  return out.length > LOGGED_MESSAGE_LENGTH ? `${out.slice(0, LOGGED_MESSAGE_LENGTH)}…` : out;
};

/** Where graphql-js starts quoting the value it could not serialize (see withoutValue). */
const QUOTED_VALUE = / value: /;

/**
 * `message` without the value graphql-js quotes when it cannot serialize one (`String cannot
 * represent value: { … }`, `Int cannot represent non-integer value: …`, `Enum "Role" cannot
 * represent value: …`): an upstream value, which may hold raw ids, content or an echoed share key,
 * none of which a log line may carry. The line keeps what failed and where (its path), not the value.
 */
function withoutValue(message: string): string {
  const at = message.slice(0, LOGGED_MESSAGE_LENGTH).search(QUOTED_VALUE);
  return at === -1 ? message : `${message.slice(0, at)} value: (not logged)`;
}

/** An error the masking replaces (a foreign exception), as opposed to the gateway's own and REST errors. */
function isUnexpected(error: GraphQLError): boolean {
  const original = error.originalError;
  return original !== undefined && !(original instanceof GraphQLError) && !(original instanceof RestError);
}

/**
 * What a log line may say of an error: its class and message (cut, `secret` redacted), and its
 * path. Never `GraphQLError.toString()`, which quotes the document around the error's location,
 * argument values (a `shareKey`, an id) included.
 */
export function errorText(error: unknown, secret?: string): string {
  if (error instanceof GraphQLError) {
    const original = error.originalError;
    const what =
      original && !(original instanceof GraphQLError) ? `${original.name}: ${cut(original.message, secret)}` : cut(error.message, secret);
    return error.path ? `${what} at ${error.path.join('.')}` : what;
  }
  return error instanceof Error ? `${error.name}: ${cut(error.message, secret)}` : String(error);
}

/** A caller's failed outcome in a log line: its class and code and its path, never its message. */
function outcomeText(error: unknown): string {
  const code = errorCode(error);
  if (code === undefined) return errorText(error);
  const original = error instanceof GraphQLError ? error.originalError : undefined;
  const what = `${original && !(original instanceof GraphQLError) ? original.name : (error as Error).name} ${code}`;
  return error instanceof GraphQLError && error.path ? `${what} at ${error.path.join('.')}` : what;
}

const hashes = new WeakMap<DocumentNode, string>();
/** SHA-256 (hex) of the document's text, as APQ and persisted documents name it. */
export function documentHash(document: DocumentNode): string {
  let hash = hashes.get(document);
  if (hash === undefined)
    hashes.set(
      document,
      (hash = createHash('sha256')
        .update(document.loc?.source.body ?? print(document))
        .digest('hex')),
    );
  return hash;
}

/**
 * One ERROR line per unexpected error of an operation, naming the operation (type and name, cut)
 * and its document's hash, with the error's class, message and path: never the document or its
 * variables. Runs before Yoga masks the error (user plugins come first), whose own line it replaces.
 */
export function useUnexpectedErrorLog(log: Logger): Plugin {
  const report = (args: ExecutionArgs, result: unknown) => {
    const errors = (result as { errors?: readonly GraphQLError[] } | undefined)?.errors;
    for (const error of errors ?? []) {
      if (!(error instanceof GraphQLError) || !isUnexpected(error) || logged.has(error)) continue;
      logged.add(error);
      const operation = getOperationAST(args.document, args.operationName);
      // The caller's credential as sent upstream: its token, or the whole header when it is none.
      const credential = credentialOf((args.contextValue as { request?: Request } | undefined)?.request?.headers.get('authorization'));
      log.error(`unexpected error in ${operation?.operation ?? 'operation'} ${boundedName(operation?.name?.value) ?? 'anonymous'}`, {
        document: documentHash(args.document),
        error: errorText(error, credential.token ?? credential.header),
      });
    }
  };
  const watch = (args: ExecutionArgs, result: unknown) =>
    isAsyncIterable(result) ? { onNext: ({ result: part }: { result: unknown }) => report(args, part) } : report(args, result);
  return {
    onExecute: ({ args }) => ({ onExecuteDone: ({ result }) => watch(args, result) }),
    onSubscribe: ({ args }) => ({ onSubscribeResult: ({ result }) => watch(args, result) }),
  };
}

/** Unexpected-error lines written per window at most; the rest are counted, and the count goes with the next line. */
export const ERROR_LINES_PER_WINDOW = 20;
export const ERROR_LINE_WINDOW_MS = 10_000;

/**
 * `log` with its ERROR lines bounded (the other levels as they are): an upstream answering a shape
 * the gateway cannot use made one ERROR line per request (300 in 1.9 s), which any caller could
 * repeat. Past ERROR_LINES_PER_WINDOW lines in a window, lines are dropped and counted; the first
 * line of a later window carries `suppressed: <count>`.
 */
export function boundedErrorLog(log: Logger, now: () => number = Date.now): Logger {
  return { ...log, error: boundedLines((msg, fields) => log.error(msg, fields), ERROR_LINES_PER_WINDOW, ERROR_LINE_WINDOW_MS, now) };
}

/** Yoga's `logging` over the gateway's logger: errors as `errorText` says, those logged with their operation once. */
export function yogaLogging(log: Logger, debug: boolean): NonNullable<YogaServerOptions<object, object>['logging']> {
  const text = (args: unknown[]) => args.map((arg) => errorText(arg)).join(' ');
  return {
    debug: debug ? (...args: unknown[]) => log.debug(text(args)) : () => undefined,
    info: (...args: unknown[]) => log.info(text(args)),
    warn: (...args: unknown[]) => log.warn(text(args)),
    error: (...args: unknown[]) => {
      if (args.length && args.every((a) => typeof a === 'object' && a !== null && logged.has(a))) return;
      // A failed REST call (a code of the fixed set: counted in the metrics by code) is the caller's
      // outcome, not the gateway's fault: no ERROR line each (a caller could write thousands), and
      // its code rather than its message, which may quote the caller's input (the REST API's
      // `parent: no collection <the variable's value> in this organization`).
      if (args.some((a) => errorCode(a) !== undefined)) log.debug(args.map(outcomeText).join(' '));
      else log.error(text(args));
    },
  };
}
