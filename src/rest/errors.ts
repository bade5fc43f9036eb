/**
 * Upstream failures as transport errors (`RestError`): `extensions.code` from one fixed set and
 * `extensions.upstream` {status, method, path}. Messages never carry a token or a stack. src/rest
 * knows nothing of GraphQL: src/schema/lib/errors.ts turns a RestError into the GraphQL error a
 * client sees, in one place.
 */
import { jsonShape, SHAPE_FROM_CHARS } from './jsonShape.js';

/** Every `extensions.code` the gateway may give a client. */
export const ERROR_CODES = [
  'BAD_USER_INPUT',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'RATE_LIMITED',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_ERROR',
  // An unknown automatic-persisted-query hash only (message `PersistedQueryNotFound`, as APQ clients expect).
  'PERSISTED_QUERY_NOT_FOUND',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface UpstreamInfo {
  /** HTTP status of the upstream answer; null when no answer came (connection failure, timeout). */
  status: number | null;
  method: string;
  /** Path below the base URL, without the query string. */
  path: string;
}

export interface UpstreamErrorExtensions {
  code: ErrorCode;
  upstream: UpstreamInfo;
  /** Seconds the upstream asked to wait (RATE_LIMITED only, when it said). */
  retryAfter?: number;
}

const MAX_MESSAGE = 500;

const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  BAD_USER_INPUT: 'Invalid input',
  UNAUTHENTICATED: 'Authentication required',
  FORBIDDEN: 'Not allowed',
  NOT_FOUND: 'Not found',
  CONFLICT: 'Conflicts with the current state',
  RATE_LIMITED: 'Rate limit exceeded, retry later',
  UPSTREAM_UNAVAILABLE: 'Upstream unavailable',
  UPSTREAM_ERROR: 'Upstream error',
  PERSISTED_QUERY_NOT_FOUND: 'PersistedQueryNotFound',
};

/** The code for an HTTP status (non-2xx). */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
    case 413:
    case 414: // URI too long
    case 415:
    case 422:
    case 431: // request header fields too large
      return 'BAD_USER_INPUT';
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 429:
      return 'RATE_LIMITED';
    // "Try again later": the upstream (or a proxy before it) is down, overloaded or timed out.
    case 502:
    case 503:
    case 504:
      return 'UPSTREAM_UNAVAILABLE';
    default:
      return 'UPSTREAM_ERROR';
  }
}

/** A failed REST call, or input refused before one: what a client may see of it is `message` and `extensions`. */
export class RestError extends Error {
  override readonly name = 'RestError';
  /** A write sent that got no answer (`unansweredError`): the upstream may have made it, or make it yet. */
  mayBeMade = false;
  constructor(
    message: string,
    readonly extensions: { code: ErrorCode; upstream?: UpstreamInfo; retryAfter?: number; limit?: string; maximum?: number },
  ) {
    super(message);
  }
}

/** A transport error with the gateway's extensions. */
export function restError(code: ErrorCode, message: string, upstream: UpstreamInfo, retryAfter?: number): RestError {
  const extensions: UpstreamErrorExtensions = { code, upstream };
  if (retryAfter !== undefined) extensions.retryAfter = retryAfter;
  return new RestError(message, extensions);
}

/**
 * Maps a non-2xx answer. 4xx keep the upstream's own message (400s name the field and the rule);
 * 5xx get a generic one, since a server error's text is not meant for clients.
 */
export function errorForStatus(
  status: number,
  upstream: Omit<UpstreamInfo, 'status'>,
  upstreamMessage: string | undefined,
  secret?: string,
  retryAfterMs?: number,
): RestError {
  const code = codeForStatus(status);
  const fallback = status >= 500 ? `${DEFAULT_MESSAGES[code]} (HTTP ${status})` : DEFAULT_MESSAGES[code];
  const message = status < 500 && upstreamMessage ? clean(upstreamMessage, secret) : fallback;
  const retryAfter = code === 'RATE_LIMITED' && retryAfterMs !== undefined ? retryAfterSeconds(retryAfterMs) : undefined;
  return restError(code, message, { ...upstream, status }, retryAfter);
}

/**
 * Answers a proxy in front of the REST API gives after it passed the request on: 502 (the REST
 * API's connection broke before its answer) and 504 (no answer in the proxy's time). A write
 * answered so may have been made, or be made yet, as one that got no answer at all
 * (`unansweredError`); UPSTREAM_UNAVAILABLE's "try again later" alone made a client repeat a
 * create the REST API had made. A 503 is a refusal before any work.
 */
export const UNSETTLED_STATUSES: ReadonlySet<number> = new Set([502, 504]);

/** `error` of a write, saying that the write may have been made (or be made yet), and marked `mayBeMade`. */
export function mayBeMadeError(error: RestError): RestError {
  const made = new RestError(`${error.message}; the write may have been made`, error.extensions);
  made.mayBeMade = true;
  return made;
}

/**
 * A write the REST API answered 2xx whose answer the gateway could not take (not JSON, larger
 * than it may hold now or at all): the write was made, and the error says so, with no
 * `retryAfter`; its code alone ("retry shortly", "ask for fewer items") made a client repeat a
 * create. An error that already says the write may have been made (its body timed out) is kept.
 */
export function madeWriteError(error: RestError, status: number): RestError {
  if (error.mayBeMade) return error;
  const { retryAfter: _, ...extensions } = error.extensions;
  const upstream = extensions.upstream && { ...extensions.upstream, status };
  return new RestError(`${error.message}; the write was made (HTTP ${status}) but its answer was not read`, { ...extensions, upstream });
}

/** The most `retryAfter` a client is told, in seconds: the upstream's `Retry-After` is its text, of any size. */
const MAX_RETRY_AFTER_SECONDS = 3_600;

/** The upstream's wait as whole seconds between 0 and MAX_RETRY_AFTER_SECONDS (it passed 1e+21 on as is). */
function retryAfterSeconds(ms: number): number {
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, Math.ceil(ms / 1000)));
}

/** A failure without an HTTP answer: refused, reset, timed out, aborted. */
export function unavailableError(upstream: Omit<UpstreamInfo, 'status'>, reason: string): RestError {
  return restError('UPSTREAM_UNAVAILABLE', `Upstream unavailable: ${reason}`, { ...upstream, status: null });
}

/**
 * A call sent that got no answer (timed out, reset, its client gone): a read's is
 * `unavailableError`; a write's also says that it may have been made (or be made yet), so a client
 * does not take UPSTREAM_UNAVAILABLE's "try again later" as "it failed" and repeat a create, and
 * is marked `mayBeMade` (the response cache stores nothing it names for a while). A call never
 * sent (no connection, an open circuit) is an `unavailableError`.
 */
export function unansweredError(upstream: Omit<UpstreamInfo, 'status'>, reason: string, write: boolean): RestError {
  const error = unavailableError(upstream, reason);
  return write ? mayBeMadeError(error) : error;
}

/** Whether `err` (a RestError, or the GraphQL error made of one) is a write that may have been made. */
export function writeMayBeMade(err: unknown): boolean {
  const original = (err as { originalError?: unknown } | undefined)?.originalError;
  return (err instanceof RestError && err.mayBeMade) || (original !== undefined && original !== err && writeMayBeMade(original));
}

/** The circuit breaker is open: no REST call was made. */
export function circuitOpenError(upstream: Omit<UpstreamInfo, 'status'>): RestError {
  return unavailableError(upstream, 'circuit open after repeated upstream failures, retry later');
}

/**
 * The gateway holds too many upstream calls (or, with `what`, event streams: stream.ts) of this
 * caller, or in total, to take another now.
 */
export function overloadError(
  upstream: Omit<UpstreamInfo, 'status'>,
  scope: 'caller' | 'total',
  what: 'calls' | 'event streams' = 'calls',
): RestError {
  return scope === 'caller'
    ? restError('RATE_LIMITED', `Too many concurrent upstream ${what} for this caller, retry later`, { ...upstream, status: null }, 1)
    : unavailableError(
        upstream,
        `the gateway is at its limit of ${what === 'calls' ? 'queued upstream calls' : 'upstream event streams'}, retry later`,
      );
}

/**
 * The gateway holds too many bytes of REST answers at once to read this one now (bytesInFlight.ts):
 * UPSTREAM_UNAVAILABLE, retry in a second; or, with `operationLimit`, this operation's own answers
 * would pass what one operation may hold, so it would be refused again: BAD_USER_INPUT like the
 * gateway's other limits, with the limit's name and maximum.
 */
export function answerBytesError(upstream: Omit<UpstreamInfo, 'status'>, operationLimit?: number): RestError {
  if (operationLimit !== undefined) {
    const mib = (operationLimit / 1024 / 1024).toFixed(1);
    return new RestError(
      `answerBytesInFlight: the operation reads more from the REST API than one operation may hold at once (${mib} MiB of answers); ask for fewer or smaller items, or split it`,
      { code: 'BAD_USER_INPUT', upstream: { ...upstream, status: null }, limit: 'answerBytesInFlight', maximum: operationLimit },
    );
  }
  return restError(
    'UPSTREAM_UNAVAILABLE',
    'Upstream unavailable: the gateway holds too many large answers at once (answerBytesInFlight); retry shortly',
    { ...upstream, status: null },
    1,
  );
}

/** The caller fetched more bytes than its share lately; its next call could start only after `waitMs`. */
export function byteBudgetError(upstream: Omit<UpstreamInfo, 'status'>, waitMs: number): RestError {
  return restError(
    'RATE_LIMITED',
    'This caller fetched more bytes from the REST API lately than its share (callerBytesPerSecond), retry later',
    { ...upstream, status: null },
    Math.max(1, Math.ceil(waitMs / 1000)),
  );
}

/**
 * Objects and arrays an error body may hold to be read: `{"error": {"code", "message"}}` holds
 * two; a large body of many (or nested deeper than MAX_JSON_DEPTH) would cost its parse's memory
 * for one message (jsonShape.ts), and is not read.
 */
const MAX_ERROR_CONTAINERS = 64;

/** The `error.message` of the upstream's `{"error": {"code", "message"}}` body, if any. */
export function upstreamMessage(text: string): string | undefined {
  if (text.length >= SHAPE_FROM_CHARS) {
    const shape = jsonShape(text, MAX_ERROR_CONTAINERS);
    if (shape.tooDeep || shape.containers > MAX_ERROR_CONTAINERS) return undefined;
  }
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    const message = parsed?.error?.message;
    return typeof message === 'string' && message ? message : undefined;
  } catch {
    return undefined;
  }
}

/** The code of an error of the fixed set (a RestError, or the GraphQL error a client got), else undefined. */
export function errorCode(err: unknown): ErrorCode | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { extensions?: { code?: unknown } }).extensions?.code;
  return ERROR_CODES.includes(code as ErrorCode) ? (code as ErrorCode) : undefined;
}

/**
 * An upstream message as a client may see it: the caller's token redacted in any case and with
 * whitespace between its characters (the exact token alone was: an upstream echoing it lower-cased
 * or spaced out passed it on), whitespace runs made one space, then cut to MAX_MESSAGE (after the
 * redaction, so a cut cannot leave part of the token).
 */
function clean(message: string, secret: string | undefined): string {
  // What is kept holds the whole of a token that starts in it (spaced out, it takes twice its length).
  let out = message.replace(/\s+/g, ' ').slice(0, MAX_MESSAGE + 2 * (secret?.length ?? 0));
  if (secret) out = redact(out, secret);
  return out.length > MAX_MESSAGE ? `${out.slice(0, MAX_MESSAGE)}…` : out;
}

/**
 * `text` (whitespace runs made one space) with the token, in any case and with a space allowed
 * between its characters, made `[redacted]`: found with `indexOf` in the text without its spaces,
 * not by a regular expression made of the token. The token is the caller's (any made-up one, as
 * long as the 16 KiB of headers allow): from about 1,000 characters that expression took tens of
 * ms of the event loop for each 4xx answer, and past about 5,000 its match overflowed the stack.
 */
export function redact(text: string, secret: string): string {
  const token = fold(secret.replace(/ /g, ''));
  if (!token) return text;
  // The text's characters but its spaces, folded, and where each one is in the text.
  let bare = '';
  const at: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === ' ') continue;
    bare += fold(text[i]);
    at.push(i);
  }
  let out = '';
  let from = 0;
  for (let found = bare.indexOf(token); found !== -1; found = bare.indexOf(token, found + token.length)) {
    out += `${text.slice(from, at[found])}[redacted]`;
    from = at[found + token.length - 1] + 1;
  }
  return out + text.slice(from);
}

/** Lower case, one UTF-16 unit for one (a unit whose lower case is longer stays as is). */
function fold(text: string): string {
  let out = '';
  for (const unit of text.split('')) {
    const lower = unit.toLowerCase();
    out += lower.length === 1 ? lower : unit;
  }
  return out;
}

/**
 * A call not made: the REST API answered 401 for its operation's credential (`refusal`), and would
 * again. The same error, for this call's method and path (status null: it got no answer).
 */
export function credentialRefusedError(refusal: RestError, upstream: Omit<UpstreamInfo, 'status'>): RestError {
  return new RestError(refusal.message, { ...refusal.extensions, upstream: { ...upstream, status: null } });
}

/**
 * The operation asked for more REST calls than it may make (`maxRestCalls`): BAD_USER_INPUT like
 * the gateway's other limits (the same query would fail again: not RATE_LIMITED), with the limit's
 * name and maximum; no call was made.
 */
export function callLimitError(maximum: number): RestError {
  return new RestError(`maxRestCalls: the operation needs more than ${maximum} REST calls; ask for fewer objects or split it`, {
    code: 'BAD_USER_INPUT',
    limit: 'maxRestCalls',
    maximum,
  });
}

/** Input the gateway rejects before any REST call (e.g. an empty path parameter). */
export function inputError(message: string): RestError {
  return new RestError(message, { code: 'BAD_USER_INPUT' });
}
