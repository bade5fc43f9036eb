/**
 * The only code that speaks HTTP to the upstream REST API: one undici Pool per origin (keep-alive),
 * connect/headers/body timeouts plus a deadline per call, retries of GETs only (429/502/503/504
 * and connection failures, capped exponential backoff with full jitter, `Retry-After` honoured up
 * to a cap) within a retry budget (./retryBudget.ts), a circuit breaker per origin (./circuit.ts),
 * bounded concurrency per caller and in total (./limiter.ts), every response body read or dumped,
 * and failures mapped to GraphQL errors (./errors.ts).
 * Each caller gets its own view that forwards exactly its `Authorization` header; identical GETs
 * of one caller in flight at the same time share one upstream call (single-flight), never across
 * callers, and a write of that caller makes its later reads start afresh. A request registered
 * when it arrives (`arrive`) also gets the answer of an identical GET of the same caller that
 * came back after that moment (and after the caller's last write), kept while such a request is
 * open: requests that overlap share their reads even when one of them reaches its resolvers only
 * after the other's call is back (a burst the gateway works through one request at a time).
 */
import { EventEmitter } from 'node:events';
import { Pool, type Dispatcher } from 'undici';
import { callerKey } from './callerKey.js';
import { CircuitOpen, createCircuit, DEFAULT_CIRCUIT, type Circuit, type CircuitConfig } from './circuit.js';
import {
  circuitOpenError,
  errorCode,
  errorForStatus,
  inputError,
  overloadError,
  restError,
  unavailableError,
  upstreamMessage,
  type ErrorCode,
  type RestError,
  type UpstreamInfo,
} from './errors.js';
import { DEFAULT_CONCURRENCY, Limiter, Overloaded, WaitAborted, type CallerSlots, type ConcurrencyConfig } from './limiter.js';
import { DEFAULT_RETRY_BUDGET, RetryBudget, type RetryBudgetConfig } from './retryBudget.js';
import { eventStream, type SseStream } from './sse.js';

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];
/** Query parameters: null/undefined are left out, arrays repeat the key (`k=a&k=b`). */
export type Query = Record<string, QueryValue>;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RetryConfig {
  /** Attempts per GET, first included (default 4: the retry budget, not this, bounds the extra load). Writes always get exactly one. */
  maxAttempts: number;
  /** Backoff before retry n is random in [0, baseDelayMs * 2^(n-1)] ("full jitter"; default 100). */
  baseDelayMs: number;
  /** Cap of the computed backoff (default 2000). */
  maxDelayMs: number;
  /** A `Retry-After` longer than this fails at once instead of waiting (default 5000). */
  maxRetryAfterMs: number;
}

export interface RestClientConfig {
  /** Upstream base URL ending in `/v1`, e.g. `https://api.gitbook.com/v1`. */
  baseUrl: string;
  /** TCP/TLS connect timeout, ms (default 5000). */
  connectTimeout?: number;
  /** Time to the response headers, ms (default 15000). undici checks it (and bodyTimeout) on a ~0.5 s tick. */
  headersTimeout?: number;
  /** Longest gap between body chunks, ms (default 30000). */
  bodyTimeout?: number;
  /** Deadline for a whole call, retries and waits included, ms (default 30000). */
  requestTimeout?: number;
  /** An event stream with no data for this long errors, ms; 0 disables (default 60000). */
  streamIdleTimeout?: number;
  /** Most open connections to the upstream (default 128). */
  connections?: number;
  /** Idle keep-alive sockets close after this, ms (default 4000; an upstream's own `keep-alive: timeout` hint caps it). */
  keepAliveTimeout?: number;
  /** Largest accepted response body, bytes (default 32 MiB). */
  maxResponseBytes?: number;
  retry?: Partial<RetryConfig>;
  /** Retries at most `percent` % of recent calls plus `minPerSecond` (defaults 20 %, 10/s, over 10 s). */
  retryBudget?: Partial<RetryBudgetConfig>;
  /** Circuit breaker of this upstream: `threshold` failures in a row open it for `cooldownMs` (defaults 10, 5000). */
  circuit?: Partial<CircuitConfig>;
  /** Called when the circuit changes state (metrics). */
  onCircuitChange?: (state: 'closed' | 'open' | 'half-open') => void;
  /** Bounds on concurrent upstream attempts, per caller and in total (see ./limiter.ts). */
  concurrency?: Partial<ConcurrencyConfig>;
  /** Identical GETs of one caller in flight at once share one upstream call (default true). */
  singleFlight?: boolean;
  /** Where circuit state changes are logged (warn when it opens, info when it closes). */
  logger?: { info(msg: string, fields?: Record<string, unknown>): void; warn(msg: string, fields?: Record<string, unknown>): void };
  userAgent?: string;
  /** Called after every attempt (tests count REST calls with it; see RestCallLog). */
  onRequest?: (call: RestCall) => void;
  /** When set (debug level only: leave it unset otherwise, so nothing is formatted), one line per attempt: method, path, status, ms, attempt. Never headers. */
  log?: (line: string) => void;
}

/** One attempt at one REST call. */
export interface RestCall {
  method: HttpMethod;
  /** Path below the base URL, without the query string. */
  path: string;
  /** HTTP status, or null when no answer came. */
  status: number | null;
  ms: number;
  /** 1 for the first try, 2 for the first retry, … */
  attempt: number;
  /** Set when this attempt failed. */
  code?: ErrorCode;
}

export interface CallerOptions {
  /** Aborts every call of this caller (e.g. the GraphQL request's signal). */
  signal?: AbortSignal;
  /** The request's registration (`RestClient.arrive`): its GETs may take answers kept for it. */
  arrival?: Arrival;
}

/** A request of one caller, open from its arrival until `close()`. */
export interface Arrival {
  /** The caller's key (callerKey of its Authorization). */
  readonly key: string;
  /** When it arrived (`performance.now()`). */
  readonly since: number;
  /** The request is over (its response closed); idempotent. */
  close(): void;
}

/** REST calls on behalf of one caller. Paths are relative to the base URL (build them with `path`). */
export interface RestCaller {
  get<T = unknown>(path: string, query?: Query): Promise<T>;
  post<T = unknown>(path: string, body?: unknown, query?: Query): Promise<T>;
  put<T = unknown>(path: string, body?: unknown, query?: Query): Promise<T>;
  patch<T = unknown>(path: string, body?: unknown, query?: Query): Promise<T>;
  delete<T = unknown>(path: string, body?: unknown, query?: Query): Promise<T>;
  /** Opens a Server-Sent Events stream (GET). Rejects with the mapped error on a non-2xx answer. */
  stream(path: string, query?: Query, signal?: AbortSignal): Promise<SseStream>;
}

export interface RestClient {
  readonly baseUrl: string;
  /** A view that sends exactly this `Authorization` header value (none when undefined). */
  forCaller(authorization: string | undefined, options?: CallerOptions): RestCaller;
  /**
   * Registers a request of this caller as it arrives (before its body is read), open until
   * `close()`: identical GETs of the caller's other requests that come back meanwhile are kept for
   * it. Undefined when single-flight is off.
   */
  arrive(authorization: string | undefined): Arrival | undefined;
  /** Closes the pool: waits for calls in flight, then ends its connections. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const DEFAULT_RETRY: RetryConfig = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 2000, maxRetryAfterMs: 5000 };
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

interface Settings {
  pool: Pool;
  basePath: string;
  headersTimeout: number;
  bodyTimeout: number;
  requestTimeout: number;
  streamIdleTimeout: number;
  retry: RetryConfig;
  budget: RetryBudget;
  circuit: Circuit;
  limiter: Limiter;
  singleFlight: boolean;
  /** Per-token state (concurrency slots, reads in flight), keyed by a hash of the Authorization. */
  callers: Map<string, CallerState>;
  userAgent: string;
  /** Reports an attempt; undefined when nobody listens (no RestCall is built then). */
  report?: (call: RestCall) => void;
}

/** What the client keeps per caller while that caller has calls running or waiting, or requests open. */
interface CallerState extends CallerSlots {
  key: string;
  /** GETs in flight by URL (path and query): a read of the same URL joins them. */
  flights: Map<string, Flight>;
  /** Open requests (views made with `since`), each with its arrival, in the order they registered. */
  open: Map<object, number>;
  /** Answers of GETs that came back while more than one request was open, by URL, oldest first. */
  recent: Map<string, Answer>;
  /** Bumped by every write (start and end): an answer of a call started before it is not kept. */
  generation: number;
}

/** A GET's answer (frozen, so every taker may share it) and when it came. */
interface Answer {
  value: unknown;
  at: number;
}

/** Most answers kept per caller, how old they may get, and the largest body kept. */
const RECENT_MAX = 500;
const RECENT_MAX_AGE_MS = 2_000;
const RECENT_MAX_CHARS = 1_000_000;

/** One upstream call (all its attempts), shared by the GETs that joined it. */
interface Flight {
  promise: Promise<unknown>;
  /** The caller's write generation when the call started. */
  generation: number;
  /** Joiners still waiting; when the last one leaves (its client went away), the call is aborted. */
  waiters: number;
  /** Aborts the call and lets no one join it any more. */
  abandon(): void;
}

/** A request as prepared once and sent once per attempt. */
interface Prepared {
  info: { method: HttpMethod; path: string };
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The caller's credential, to scrub from upstream messages. */
  secret?: string;
}

type Outcome =
  | { ok: true; value: unknown; /** Length of the body as received (characters). */ size: number }
  | { ok: false; error: RestError; retryable: boolean; retryAfterMs?: number; /** No call: the circuit was open. */ circuitOpen?: true };
/** An attempt's outcome, and whether it says the upstream is unhealthy (for the circuit). */
type Attempted = Outcome & { unhealthy: boolean };

/** Thrown out of the circuit for an attempt that tells nothing about the upstream's health (the callers left). */
class Neutral extends Error {
  constructor(readonly outcome: Outcome) {
    super('neutral');
  }
}

export function createRestClient(config: RestClientConfig): RestClient {
  const base = new URL(config.baseUrl.replace(/\/+$/, ''));
  const settings = resolveSettings(config, base);
  return {
    baseUrl: base.toString(),
    forCaller: (authorization, options = {}) => callerView(settings, authorization, options.signal, options.arrival),
    arrive: (authorization) => (settings.singleFlight ? arrive(settings, callerKey(authorization)) : undefined),
    close: () => settings.pool.close(),
    [Symbol.asyncDispose]: () => settings.pool.close(),
  };
}

function resolveSettings(config: RestClientConfig, base: URL): Settings {
  const headersTimeout = config.headersTimeout ?? 15_000;
  const bodyTimeout = config.bodyTimeout ?? 30_000;
  const connections = config.connections ?? 128;
  const pool = new Pool(base.origin, {
    connections,
    connectTimeout: config.connectTimeout ?? 5_000,
    headersTimeout,
    bodyTimeout,
    keepAliveTimeout: config.keepAliveTimeout ?? 4_000,
    maxResponseSize: config.maxResponseBytes ?? 32 * 1024 * 1024,
  });
  const { onRequest, log } = config;
  const given = withDefaults({ ...DEFAULT_CONCURRENCY, total: connections, queueTotal: 0 }, config.concurrency);
  const concurrency: ConcurrencyConfig = { ...given, queueTotal: given.queueTotal || 10 * given.queuePerCaller };
  return {
    pool,
    basePath: base.pathname === '/' ? '' : base.pathname,
    headersTimeout,
    bodyTimeout,
    requestTimeout: config.requestTimeout ?? 30_000,
    streamIdleTimeout: config.streamIdleTimeout ?? 60_000,
    retry: withDefaults(DEFAULT_RETRY, config.retry),
    budget: new RetryBudget(withDefaults(DEFAULT_RETRY_BUDGET, config.retryBudget)),
    circuit: createCircuit(
      withDefaults(DEFAULT_CIRCUIT, config.circuit),
      { origin: base.origin, logger: config.logger, onChange: config.onCircuitChange },
    ),
    limiter: new Limiter(concurrency),
    singleFlight: config.singleFlight ?? true,
    callers: new Map(),
    userAgent: config.userAgent ?? 'docs-graph',
    report: log
      ? (call) => {
          onRequest?.(call);
          log(`rest ${call.method} ${call.path} ${call.status ?? call.code} ${Math.round(call.ms)}ms attempt=${call.attempt}`);
        }
      : onRequest,
  };
}

/** `defaults` overridden by the values of `given` that are not undefined. */
function withDefaults<T extends object>(defaults: T, given: Partial<T> | undefined): T {
  const out = { ...defaults };
  for (const [key, value] of Object.entries(given ?? {})) if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  return out;
}


function callerState(s: Settings, key: string): CallerState {
  let state = s.callers.get(key);
  if (!state) {
    state = { key, active: 0, queue: [], flights: new Map(), open: new Map(), recent: new Map(), generation: 0 };
    s.callers.set(key, state);
  }
  return state;
}

/** Drops a caller's state once nothing of it runs or waits. */
function forgetIfIdle(s: Settings, state: CallerState): void {
  if (state.active === 0 && state.queue.length === 0 && state.flights.size === 0 && state.open.size === 0 && s.callers.get(state.key) === state) {
    s.callers.delete(state.key);
  }
}

/** Drops the kept answers no open request can take any more (or too old), oldest first. */
function prune(state: CallerState, now: number): void {
  const oldest = state.open.values().next().value;
  if (oldest === undefined) return state.recent.clear();
  const floor = Math.max(oldest, now - RECENT_MAX_AGE_MS);
  for (const [url, answer] of state.recent) {
    if (answer.at >= floor && state.recent.size <= RECENT_MAX) break;
    state.recent.delete(url);
  }
}

function arrive(s: Settings, key: string): Arrival {
  // The caller's state stays while one of its requests is open.
  const state = callerState(s, key);
  const arrival: Arrival = {
    key,
    since: performance.now(),
    close() {
      if (!state.open.delete(arrival)) return;
      prune(state, performance.now());
      forgetIfIdle(s, state);
    },
  };
  state.open.set(arrival, arrival.since);
  return arrival;
}

function callerView(s: Settings, authorization: string | undefined, signal: AbortSignal | undefined, arrival?: Arrival): RestCaller {
  const key = callerKey(authorization);
  // One listener on the caller's signal for all its calls (a request may run hundreds of them).
  const leaving = new Set<() => void>();
  signal?.addEventListener('abort', () => leaving.forEach((leave) => leave()), { once: true });
  const since = s.singleFlight && arrival?.key === key ? arrival.since : undefined;

  /** A kept answer this request may take: it came back after the request arrived. */
  const kept = (state: CallerState, url: string): Answer | undefined => {
    if (since === undefined) return undefined;
    const answer = state.recent.get(url);
    return answer && answer.at >= since ? answer : undefined;
  };

  const join = (flight: Flight, info: Prepared['info']): Promise<any> => {
    flight.waiters++;
    if (!signal) return flight.promise;
    const leave = () => {
      if (--flight.waiters === 0) flight.abandon();
    };
    if (signal.aborted) {
      leave();
      return Promise.reject(unavailableError(info, 'request aborted'));
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        leaving.delete(onAbort);
        leave();
        reject(unavailableError(info, 'request aborted'));
      };
      leaving.add(onAbort);
      flight.promise.then(
        (value) => {
          leaving.delete(onAbort);
          resolve(value);
        },
        (error: unknown) => {
          leaving.delete(onAbort);
          reject(error);
        },
      );
    });
  };

  const read = (path: string, query?: Query): Promise<any> => {
    const req = prepare(s, authorization, 'GET', path, query, undefined);
    const state = callerState(s, key);
    const shared = s.singleFlight ? state.flights.get(req.url) : undefined;
    if (shared) return join(shared, req.info);
    const answer = kept(state, req.url);
    if (answer) {
      if (signal?.aborted) return Promise.reject(unavailableError(req.info, 'request aborted'));
      return Promise.resolve(answer.value);
    }
    const flight = start(s, state, req);
    if (s.singleFlight) state.flights.set(req.url, flight);
    return join(flight, req.info);
  };

  const write = (method: HttpMethod) => async (path: string, body?: unknown, query?: Query) => {
    const req = prepare(s, authorization, method, path, query, body);
    // A read that starts after this write (or during it) must not join a read started before it,
    // nor take an answer that came back before the write ended.
    const state = callerState(s, key);
    forgetReads(state);
    try {
      return (await join(start(s, state, req), req.info)) as any;
    } finally {
      const now = s.callers.get(key);
      if (now) forgetReads(now);
    }
  };

  return {
    get: read,
    post: write('POST'),
    put: write('PUT'),
    patch: write('PATCH'),
    delete: write('DELETE'),
    stream: async (path, query, streamSignal) =>
      openStream(s, prepare(s, authorization, 'GET', path, query, undefined), anySignal(signal, streamSignal)),
  };
}

/** A write of the caller starts or ends: no read before it is shared with a read after it. */
function forgetReads(state: CallerState): void {
  state.flights.clear();
  state.recent.clear();
  state.generation++;
}

/** Starts one upstream call for `state`'s caller; it ends (and leaves `state`) on its own. */
function start(s: Settings, state: CallerState, req: Prepared): Flight {
  const deadline = new Deadline(s.requestTimeout);
  const detach = () => {
    if (state.flights.get(req.url) === flight) state.flights.delete(req.url);
  };
  const flight: Flight = {
    waiters: 0,
    generation: state.generation,
    promise: call(s, state, req, deadline)
      .then(({ value, size }) => {
        detach();
        // Kept for the other open requests of this caller (none but this one: nobody else could take it).
        if (state.open.size > 1 && req.info.method === 'GET' && state.generation === flight.generation && size <= RECENT_MAX_CHARS) {
          const at = performance.now();
          state.recent.delete(req.url);
          state.recent.set(req.url, { value, at });
          prune(state, at);
        }
        return value;
      })
      .finally(() => {
        deadline.dispose();
        detach();
        forgetIfIdle(s, state);
      }),
    abandon() {
      detach();
      deadline.abort();
    },
  };
  return flight;
}

function prepare(
  s: Settings,
  authorization: string | undefined,
  method: HttpMethod,
  path: string,
  query: Query | undefined,
  body: unknown,
): Prepared {
  if (!path.startsWith('/') || path.includes('?') || path.includes('#')) {
    throw new TypeError('A REST path starts with "/" and has no query string (pass query params separately)');
  }
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': s.userAgent };
  if (authorization) headers.authorization = authorization;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return {
    info: { method, path },
    url: s.basePath + path + encodeQuery(query),
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    secret: authorization?.replace(/^\S+\s+/, '').trim() || undefined,
  };
}

/**
 * One REST call: attempts until success, a final failure, or the deadline. A GET retries while
 * the retry budget allows it; a write gets exactly one attempt (GitBook's API has no idempotency key).
 */
async function call(s: Settings, state: CallerState, req: Prepared, deadline: Deadline): Promise<{ value: unknown; size: number }> {
  const attempts = req.info.method === 'GET' ? Math.max(1, s.retry.maxAttempts) : 1;
  s.budget.deposit();
  let previous: RestError | undefined;
  for (let attempt = 1; ; attempt++) {
    const outcome = await guardedAttempt(s, state, req, attempt, deadline);
    if (outcome.ok) return outcome;
    // A retry the open circuit refused: the failure before it says more.
    if (outcome.circuitOpen && previous) throw previous;
    previous = outcome.error;
    if (!outcome.retryable || attempt >= attempts) throw outcome.error;
    const { retryAfterMs } = outcome;
    if (retryAfterMs !== undefined && retryAfterMs > s.retry.maxRetryAfterMs) throw outcome.error;
    const wait = retryAfterMs ?? backoff(s.retry, attempt);
    if (wait >= deadline.remaining() || !s.budget.tryWithdraw()) throw outcome.error;
    await deadline.sleep(wait, req.info);
  }
}

/** One attempt through the circuit breaker and the concurrency limits; never throws. */
async function guardedAttempt(s: Settings, state: CallerState, req: Prepared, attempt: number, deadline: Deadline): Promise<Outcome> {
  try {
    return await s.circuit.run(async () => {
      const waiting = s.limiter.acquire(state, deadline.signal);
      if (waiting) await waiting;
      let outcome: Attempted;
      try {
        outcome = await attemptOnce(s, req, attempt, deadline);
      } finally {
        s.limiter.release(state);
      }
      // Callers that left tell nothing about the upstream: neither a failure nor a success.
      if (!outcome.ok && !outcome.unhealthy && deadline.abandoned) throw new Neutral(outcome);
      return outcome;
    });
  } catch (error) {
    if (error instanceof Neutral) return error.outcome;
    if (error instanceof CircuitOpen) return { ok: false, error: circuitOpenError(req.info), retryable: false, circuitOpen: true };
    if (error instanceof Overloaded) return { ok: false, error: overloadError(req.info, error.scope), retryable: false };
    if (error instanceof WaitAborted) return { ok: false, error: unavailableError(req.info, deadline.reason()), retryable: false };
    throw error;
  }
}

async function attemptOnce(s: Settings, req: Prepared, attempt: number, deadline: Deadline): Promise<Attempted> {
  const started = performance.now();
  let status: number | null = null;
  let outcome: Attempted;
  try {
    const res = await s.pool.request({
      path: req.url,
      method: req.info.method,
      headers: req.headers,
      body: req.body,
      signal: deadline.signal,
    });
    status = res.statusCode;
    outcome = (await readResponse(res, req)) as Attempted;
    outcome.unhealthy = status >= 500;
  } catch (err) {
    outcome = failure(err, req, deadline);
  }
  s.report?.({ ...req.info, status, ms: performance.now() - started, attempt, code: outcome.ok ? undefined : errorCode(outcome.error) });
  return outcome;
}

async function readResponse(res: Dispatcher.ResponseData, req: Prepared): Promise<Outcome> {
  const status = res.statusCode;
  if (status >= 200 && status < 300) {
    if (status === 204) {
      await res.body.dump();
      return { ok: true, value: undefined, size: 0 };
    }
    const text = await res.body.text();
    const value = parseBody(text, res.headers['content-type'], status, req);
    // A read's answer may be shared (joined calls, kept answers): nobody may change it.
    return { ok: true, value: req.info.method === 'GET' ? deepFreeze(value) : value, size: text.length };
  }
  const retryable = req.info.method === 'GET' && RETRY_STATUSES.has(status);
  // A retried answer's text is of no use; other errors carry the upstream's message.
  const text = retryable ? (await res.body.dump(), '') : await res.body.text();
  return { ok: false, error: statusError(res, req, text), retryable, retryAfterMs: retryAfter(res) };
}

function statusError(res: Dispatcher.ResponseData, req: Prepared, text: string): RestError {
  return errorForStatus(res.statusCode, req.info, upstreamMessage(text), req.secret, retryAfter(res));
}

function retryAfter(res: Dispatcher.ResponseData): number | undefined {
  return parseRetryAfter(header(res.headers['retry-after']));
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

/** Connection-level failures GETs may retry: the request never reached a handler, or the socket broke. */
const RETRYABLE_ERRORS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

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

function failure(err: unknown, req: Prepared, deadline: Deadline): Attempted {
  // An error of ours (e.g. a body that is not JSON): the upstream answered, wrongly but alive.
  if (errorCode(err)) return { ok: false, error: err as RestError, retryable: false, unhealthy: false };
  if (deadline.signal.aborted) {
    return { ok: false, error: unavailableError(req.info, deadline.reason()), retryable: false, unhealthy: deadline.expired };
  }
  const code = systemCode(err);
  const error = connectionError(code, req);
  return {
    ok: false,
    error,
    retryable: req.info.method === 'GET' && RETRYABLE_ERRORS.has(code ?? ''),
    unhealthy: errorCode(error) === 'UPSTREAM_UNAVAILABLE',
  };
}

function connectionError(code: string | undefined, req: Prepared): RestError {
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
    return restError('UPSTREAM_ERROR', 'Upstream response too large', { ...req.info, status: null });
  }
  return unavailableError(req.info, (code && REASONS[code]) ?? `request failed${code ? ` (${code})` : ''}`);
}

/** The error code of a Node or undici error (also inside an AggregateError or a cause). */
function systemCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined;
  if (typeof e?.code === 'string') return e.code;
  if (Array.isArray(e?.errors) && e.errors.length) return systemCode(e.errors[0]);
  return e?.cause ? systemCode(e.cause) : undefined;
}

/** Opens an event stream: through the circuit (it fails fast while open), outside the concurrency limits (streams are long). */
async function openStream(s: Settings, req: Prepared, signal: AbortSignal | undefined): Promise<SseStream> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (signal?.aborted) throw unavailableError(req.info, 'request aborted');
  signal?.addEventListener('abort', abort, { once: true });
  const release = () => signal?.removeEventListener('abort', abort);
  const started = performance.now();
  const report = (status: number | null, code?: ErrorCode) =>
    s.report?.({ ...req.info, status, ms: performance.now() - started, attempt: 1, code });
  let res: Dispatcher.ResponseData;
  try {
    const opened = await s.circuit.run(async () => {
      try {
        const answer = await s.pool.request({
          path: req.url,
          method: 'GET',
          headers: { ...req.headers, accept: 'text/event-stream', 'cache-control': 'no-cache' },
          signal: controller.signal,
          headersTimeout: s.headersTimeout,
          bodyTimeout: 0,
        });
        return { answer, unhealthy: answer.statusCode >= 500 };
      } catch (err) {
        if (controller.signal.aborted) throw unavailableError(req.info, 'request aborted');
        const error = connectionError(systemCode(err), req);
        report(null, errorCode(error));
        return { error, unhealthy: true };
      }
    });
    if (opened.error) throw opened.error;
    res = opened.answer!;
  } catch (err) {
    release();
    if (err instanceof CircuitOpen) throw circuitOpenError(req.info);
    throw err;
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    release();
    const error = statusError(res, req, await res.body.text().catch(() => ''));
    report(res.statusCode, errorCode(error));
    throw error;
  }
  report(res.statusCode);
  return eventStream(res.body, { controller, signal, idleTimeoutMs: s.streamIdleTimeout, upstream: req.info, onClose: release });
}

/**
 * Per-call deadline; aborting it (deadline passed, or every caller left) aborts the request in
 * flight. It is its own abort signal: undici (and the limiter's queue) accept an EventEmitter with
 * `aborted`, which costs far less per call than an AbortController and its EventTarget.
 */
class Deadline extends EventEmitter {
  private readonly timer: NodeJS.Timeout;
  private readonly ends: number;
  aborted = false;
  expired = false;
  /** Aborted because every caller left, not because the time ran out. */
  abandoned = false;

  constructor(private readonly ms: number) {
    super();
    this.ends = performance.now() + ms;
    this.timer = setTimeout(() => {
      this.expired = true;
      this.fire();
    }, ms);
  }

  /** What undici and the limiter listen on. */
  get signal(): Deadline {
    return this;
  }

  abort(): void {
    if (this.aborted) return;
    this.abandoned = true;
    this.fire();
  }

  remaining(): number {
    return this.ends - performance.now();
  }

  reason(): string {
    return this.expired ? `no answer within the ${this.ms} ms deadline` : 'request aborted';
  }

  sleep(ms: number, info: Omit<UpstreamInfo, 'status'>): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(unavailableError(info, this.reason()));
      };
      const timer = setTimeout(() => {
        this.removeListener('abort', onAbort);
        resolve();
      }, ms);
      if (this.aborted) onAbort();
      else this.once('abort', onAbort);
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
  }

  private fire(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}

/** Capped exponential backoff with "full jitter" (AWS architecture blog): random in [0, cap). */
export function backoff(retry: RetryConfig, attempt: number, random: () => number = Math.random): number {
  return random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
}

/** `Retry-After` in ms: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function encodeQuery(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    const values: readonly (string | number | boolean)[] = Array.isArray(value) ? value : [value as string | number | boolean];
    for (const v of values) params.append(key, String(v));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * Builds a REST path, percent-encoding each interpolated value as one segment:
 * path`/spaces/${spaceId}/change-requests/${changeRequestId}`. Empty, "." and ".." are refused,
 * since they would name another resource.
 */
export function path(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  let out = strings[0];
  values.forEach((value, i) => {
    out += segment(value) + strings[i + 1];
  });
  return out;
}

function segment(value: string | number): string {
  const text = String(value);
  if (text === '' || text === '.' || text === '..') throw inputError(`Invalid identifier ${JSON.stringify(text)}`);
  return encodeURIComponent(text);
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function anySignal(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  return a && b ? AbortSignal.any([a, b]) : (a ?? b);
}

/** Records every attempt (pass `log.record` as `onRequest`); tests count REST calls with it. */
export class RestCallLog {
  readonly calls: RestCall[] = [];
  readonly record = (call: RestCall): void => {
    this.calls.push(call);
  };

  /** Attempts matching method and path (either may be omitted). */
  count(method?: HttpMethod, path?: string): number {
    return this.calls.filter((c) => (!method || c.method === method) && (path === undefined || c.path === path)).length;
  }

  clear(): void {
    this.calls.length = 0;
  }
}
