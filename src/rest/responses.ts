/**
 * What one attempt came to (`Outcome`): a 2xx body read as JSON (frozen for GETs, whose answers
 * may be shared), or a failure mapped to a RestError (errors.ts) with whether a GET may retry it
 * and what kind of failure it was for the circuit breaker. Every body is read (exchange.ts drops
 * the ones `wantsBody` declines).
 */
import type { Dispatcher } from 'undici';
import { AnswerBytesBusy, type AnswerAccount } from './bytesInFlight.js';
import type { Deadline } from './deadline.js';
import type { Exchanged } from './exchange.js';
import {
  answerBytesError,
  errorCode,
  errorForStatus,
  mayBeMadeError,
  restError,
  unansweredError,
  unavailableError,
  upstreamMessage,
  UNSETTLED_STATUSES,
  type RestError,
} from './errors.js';
import { jsonShape, parsedBytes, SHAPE_FROM_CHARS } from './jsonShape.js';
import type { Prepared } from './request.js';
import { parseRetryAfter, RETRY_STATUSES, RETRYABLE_ERRORS } from './retry.js';

/**
 * How an attempt bears on the upstream's health: `healthy` (an answer below 500), `route` (a 5xx
 * or a timeout: this route failed, maybe for this caller's input only), `origin` (no connection
 * at all: the upstream is down, whoever asked), `neutral` (nothing learnt: the callers left).
 */
export type Health = 'healthy' | 'route' | 'origin' | 'neutral';

export type Outcome =
  | { ok: true; value: unknown; /** Length of the body as received (characters). */ size: number; health?: Health }
  | {
      ok: false;
      error: RestError;
      retryable: boolean;
      retryAfterMs?: number;
      health?: Health;
      /** No call: the circuit was open. */ circuitOpen?: true;
    };

/** Whether the body of an answer with `status` is read (a retried answer's text is of no use). */
export function wantsBody(req: Prepared, status: number): boolean {
  return !(req.info.method === 'GET' && RETRY_STATUSES.has(status));
}

/** An exchanged answer (exchange.ts) as the attempt's outcome; `hold` takes what parsing its body builds (`admitParse`). */
export function readResponse(res: Exchanged, req: Prepared, hold?: ParseHold): Outcome {
  const status = res.statusCode;
  const health: Health = status >= 500 ? 'route' : 'healthy';
  if (status >= 200 && status < 300) {
    if (status === 204) return { ok: true, value: undefined, size: 0, health };
    const { text } = res;
    if (hold) admitParse(res, req, hold);
    const value = parseBody(text, res.headers['content-type'], status, req);
    // A read's answer may be shared (joined calls, kept answers): nobody may change it.
    return { ok: true, value: req.info.method === 'GET' ? deepFreeze(value) : value, size: text.length, health };
  }
  const retryable = !wantsBody(req, status);
  return { ok: false, error: statusError(res, req, res.text), retryable, retryAfterMs: retryAfter(res), health };
}

/** What an error answer is read from: its status and headers. */
type Answered = Pick<Dispatcher.ResponseData, 'statusCode'> & { headers: Record<string, string | string[] | undefined> };

export function statusError(res: Answered, req: Prepared, text: string): RestError {
  const error = errorForStatus(res.statusCode, req.info, upstreamMessage(text), req.secret, retryAfter(res));
  return req.write && UNSETTLED_STATUSES.has(res.statusCode) ? mayBeMadeError(error) : error;
}

/**
 * An HTTP date is read against the answer's own `Date` (the upstream's clock), else the gateway's:
 * with the two clocks 10 minutes apart, a wait of 3 s read as none (retried at once, the client
 * told `retryAfter: 0`) or as 603 s (not retried, the client told to wait 10 minutes).
 */
function retryAfter(res: Answered): number | undefined {
  const sent = Date.parse(header(res.headers.date) ?? '');
  return parseRetryAfter(header(res.headers['retry-after']), Number.isNaN(sent) ? undefined : sent);
}

/** The account an answer's bytes were taken from (bytesInFlight.ts). */
export type ParseHold = Pick<AnswerAccount, 'take' | 'refusal' | 'largest'>;

/**
 * Before the parse of a body of SHAPE_FROM_CHARS or more (jsonShape.ts): one nested deeper than
 * MAX_JSON_DEPTH, or whose parse would build more than one answer may hold, is UPSTREAM_ERROR
 * unparsed; otherwise `hold` takes what the parse builds beyond the bytes the answer took
 * (`res.held` grows to it), or the parse waits for no one: AnswerBytesBusy, as for its bytes.
 */
function admitParse(res: Exchanged, req: Prepared, hold: ParseHold): void {
  const { text } = res;
  if (text.length < SHAPE_FROM_CHARS) return;
  const shape = jsonShape(text);
  const info = { ...req.info, status: res.statusCode };
  if (shape.tooDeep) throw restError('UPSTREAM_ERROR', "Upstream error: the REST API's answer is too deeply nested", info);
  const size = parsedBytes(text, shape);
  if (size <= res.held) return;
  if (size > hold.largest) throw restError('UPSTREAM_ERROR', "Upstream error: the REST API's answer holds too many values", info);
  if (!hold.take(size - res.held, res.held)) throw hold.refusal(size - res.held, res.held);
  res.held = size;
}

/** A 2xx body: JSON (or nothing); anything else (an HTML page from a proxy, say) is UPSTREAM_ERROR. */
function parseBody(text: string, contentType: string | string[] | undefined, status: number, req: Prepared): unknown {
  if (!text) return undefined;
  if (!/\bjson\b/i.test(header(contentType) ?? '')) {
    throw restError('UPSTREAM_ERROR', 'Upstream sent an unexpected body (not JSON)', { ...req.info, status });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw restError('UPSTREAM_ERROR', 'Upstream sent invalid JSON', { ...req.info, status });
  }
}

/** `value` and everything in it made read-only (JSON: plain objects and arrays), without recursion. */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  const stack: object[] = [value];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    Object.freeze(next);
    for (const child of Object.values(next)) if (typeof child === 'object' && child !== null) stack.push(child);
  }
  return value;
}

// Headers and body timeouts are not retried: the upstream is slow, and retrying would multiply the wait.
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed by the upstream',
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  ETIMEDOUT: 'connect timeout',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for response headers',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the response body',
  UND_ERR_CLOSED: 'client closed',
  UND_ERR_DESTROYED: 'client closed',
};

/** No connection could be had at all: says the upstream is down, not that one route failed. */
const ORIGIN_DOWN = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * The gateway had no socket to open (its descriptors, the machine's, its local ports): nothing was
 * sent, and nothing is said of the upstream. Under `ulimit -n 64` and a flood of idle connections,
 * a write said it "may have been made", and each failure counted against its route's circuit,
 * which then failed every caller for a cool-down once the descriptors were back.
 */
const NO_SOCKET = new Set(['EMFILE', 'ENFILE', 'EADDRNOTAVAIL']);

/** An attempt that threw: an error of ours, an abort (deadline or callers gone), or a connection failure. */
export function failure(err: unknown, req: Prepared, deadline: Deadline): Outcome {
  // An error of ours (e.g. a body that is not JSON): the upstream answered, wrongly but alive.
  if (errorCode(err)) return { ok: false, error: err as RestError, retryable: false, health: 'healthy' };
  // The gateway's own bound on answers held at once (bytesInFlight.ts): nothing said of the upstream.
  if (err instanceof AnswerBytesBusy)
    return { ok: false, error: answerBytesError(req.info, err.operationLimit), retryable: false, health: 'neutral' };
  if (deadline.signal.aborted) {
    return {
      ok: false,
      error: unansweredError(req.info, deadline.reason(), req.write),
      retryable: false,
      health: deadline.expired ? 'route' : 'neutral',
    };
  }
  const code = systemCode(err);
  const error = connectionError(code, req);
  return {
    ok: false,
    error,
    retryable: req.info.method === 'GET' && RETRYABLE_ERRORS.has(code ?? ''),
    // A body too large is an answer (UPSTREAM_ERROR), not a sign of ill health.
    health: errorCode(error) === 'UPSTREAM_UNAVAILABLE' ? connectionHealth(code) : 'healthy',
  };
}

export function connectionError(code: string | undefined, req: Prepared): RestError {
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
    return restError('UPSTREAM_ERROR', 'Upstream response too large', { ...req.info, status: null });
  }
  if (malformed(code)) return restError('UPSTREAM_ERROR', 'Upstream sent a malformed HTTP answer', { ...req.info, status: null });
  const reason = (code && REASONS[code]) ?? `request failed${code ? ` (${code})` : ''}`;
  // No connection could be had: nothing was sent.
  const unsent = ORIGIN_DOWN.has(code ?? '') || NO_SOCKET.has(code ?? '');
  return unsent ? unavailableError(req.info, reason) : unansweredError(req.info, reason, req.write);
}

/** How a connection failure (`systemCode`) bears on the upstream's health: an answer that broke HTTP is an answer. */
export function connectionHealth(code: string | undefined): Health {
  if (malformed(code)) return 'healthy';
  if (NO_SOCKET.has(code ?? '')) return 'neutral';
  return ORIGIN_DOWN.has(code ?? '') ? 'origin' : 'route';
}

/**
 * The upstream answered, but not in HTTP/1.1 (llhttp's HPE_* codes: a bare CR, lines ended by LF
 * alone, not HTTP at all), with conflicting lengths, or with headers past undici's bound: it
 * answered wrongly (UPSTREAM_ERROR, as for invalid JSON), rather than failed to connect.
 */
function malformed(code: string | undefined): boolean {
  return (
    code !== undefined && (code.startsWith('HPE_') || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || code === 'UND_ERR_HEADERS_OVERFLOW')
  );
}

/** The error code of a Node or undici error (also inside an AggregateError or a cause). */
export function systemCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined;
  if (typeof e?.code === 'string') return e.code;
  if (Array.isArray(e?.errors) && e.errors.length) return systemCode(e.errors[0]);
  return e?.cause ? systemCode(e.cause) : undefined;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
