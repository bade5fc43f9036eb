/**
 * The REST client: the only code that speaks HTTP to the upstream REST API. It composes
 * transport.ts (one undici Pool per origin, timeouts and a deadline per call, retries of GETs
 * within a retry budget, circuit breakers per route and origin, concurrency limits per caller and
 * in total, bytes of answers per caller over time, bytes of answers held at once), singleFlight.ts (reads shared between one caller's requests), stream.ts (event
 * streams) and callerKey.ts (who the caller is). Each caller gets its own view (`forCaller`) that
 * forwards exactly its normalized `Authorization` and counts the calls its operation makes.
 * See ./README.md for the read caches.
 */
import { types } from 'node:util';
import { Pool } from 'undici';
import type { RestCall } from './callLog.js';
import { credentialOf, KnownCallers, type CallerIdentity, type Credential } from './callerKey.js';
import { DEFAULTS, withDefaults, type GroupConfig } from '../config.js';
import { BytesInFlight, defaultAnswerBytesInFlight } from './bytesInFlight.js';
import { ByteBudgets } from './byteBudget.js';
import { Circuits, DEFAULT_CIRCUIT, type CircuitConfig, type CircuitStateName } from './circuit.js';
import { systemClock, type Clock } from './clock.js';
import { callLimitError, credentialRefusedError } from './errors.js';
import { Limiter, type ConcurrencyConfig } from './limiter.js';
import { prepare, type HttpMethod, type Prepared, type Query, type Target } from './request.js';
import { DEFAULT_BACKOFF, type RetryConfig } from './retry.js';
import { DEFAULT_RETRY_BUDGET, RetryBudget, type RetryBudgetConfig } from './retryBudget.js';
import { Leaving, SharedReads, type Arrival, type LeaveSignal } from './singleFlight.js';
import type { SseStream } from './sse.js';
import { openStream } from './stream.js';
import { noteUnauthenticated, STREAMS_TOTAL, Transport, type Operation, type Who } from './transport.js';

/**
 * The REST client's settings (the `rest` group of src/config.ts, where their meaning and defaults
 * are): connect, headers (undici checks it and the body's on a ~0.5 s tick) and body timeouts;
 * retries of a GET and the retry budget's share; a route's circuit threshold and cool-down; calls
 * in flight in total (also the pool's connections) and per caller; calls of a caller waiting.
 */
export type RestSettings = GroupConfig<'rest'>;

export interface RestClientConfig extends Partial<RestSettings> {
  /** Upstream base URL ending in `/v1`, e.g. `https://api.gitbook.com/v1`. */
  baseUrl: string;
  /** Deadline for a whole call, retries and waits included, ms (default 30000). */
  requestTimeoutMs?: number;
  /** An event stream with no data for this long errors, ms; 0 disables (default 60000). */
  streamIdleTimeoutMs?: number;
  /** Idle keep-alive sockets close after this, ms (default 4000; an upstream's own `keep-alive: timeout` hint caps it). */
  keepAliveTimeoutMs?: number;
  /** Largest accepted response body, bytes (default 32 MiB; at most `answerBytesInFlight`). */
  maxResponseBytes?: number;
  /** Bytes of answers held at once, across callers, from their headers until parsed (bytesInFlight.ts; default an eighth of V8's heap limit). */
  answerBytesInFlight?: number;
  /** The backoff between a GET's attempts (retry.ts). */
  retry?: Partial<Omit<RetryConfig, 'maxAttempts'>>;
  /** The retry budget's floor per second and window (defaults 10/s, over 10 s). */
  retryBudget?: Partial<Omit<RetryBudgetConfig, 'percent'>>;
  /** Distinct callers among a route's failures before its circuit opens (default 2). */
  circuit?: Partial<Pick<CircuitConfig, 'minCallers'>>;
  /** Calls waiting for a slot in total before more are refused (default 10 × `queueLimit`). */
  queueTotal?: number;
  /** Called when the worst circuit state changes (metrics). */
  onCircuitChange?: (state: CircuitStateName) => void;
  /** Called for each call an open circuit refused, with its route template (`*`: the origin's circuit). */
  onCircuitRefusal?: (route: string) => void;
  /** Identical GETs of one caller in flight at once share one upstream call (default true). */
  singleFlight?: boolean;
  /** Where circuit state changes are logged (warn when one opens, info when it closes). */
  logger?: { info(msg: string, fields?: Record<string, unknown>): void; warn(msg: string, fields?: Record<string, unknown>): void };
  userAgent?: string;
  /** Called after every attempt (tests count REST calls with it; see RestCallLog). */
  onRequest?: (call: RestCall) => void;
  /** When set (debug level only: leave it unset otherwise, so nothing is formatted), one line per attempt: method, path, status, ms, attempt. Never headers. */
  log?: (line: string) => void;
  /** Time for deadlines, backoff, cool-downs, windows (default the process's; tests pass a fake one). */
  clock?: Clock;
}

export interface CallerOptions {
  /** Aborts every call of this caller (e.g. the GraphQL request's signal). */
  signal?: LeaveSignal;
  /** The request's registration (`RestClient.arrive`): its GETs may take answers kept for it. */
  arrival?: Arrival;
  /** The budget its calls count against (`RestClient.identify`); default: the caller's own key. */
  budget?: string;
  /** Most REST calls this view may make (one operation's); past it, BAD_USER_INPUT `maxRestCalls` and no call. */
  maxCalls?: number;
  /**
   * The view is one operation's, which calls `end()` when it is over: its answers stay counted in
   * the budget of answer bytes held at once until then (bytesInFlight.ts). Without it, each answer's
   * bytes are given back once it is parsed.
   */
  holdAnswers?: boolean;
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
  /** The operation is over (`holdAnswers`): the bytes of the answers it read no longer count as held. Idempotent. */
  end(): void;
  /**
   * Whether this view took the answer of a GET that another request of the caller started before
   * the view was made (single-flight, kept answers): an answer that may predate whatever the
   * request saw before its operation ran (its response cache lookup, a write of another replica).
   */
  tookEarlierRead(): boolean;
}

export interface RestClient {
  readonly baseUrl: string;
  /** A view that sends this caller's normalized `Authorization` (none when undefined). */
  forCaller(authorization: string | undefined, options?: CallerOptions): RestCaller;
  /**
   * Registers a request of this caller as it arrives (before its body is read), open until
   * `close()`: identical GETs of the caller's other requests that come back meanwhile are kept for
   * it. Undefined when single-flight is off.
   */
  arrive(authorization: string | undefined): Arrival | undefined;
  /** Characters of the answers kept for callers' other open requests (singleFlight.ts; tests). */
  keptAnswerChars(): number;
  /**
   * The bytes of large answers per caller (byteBudget.ts), by budget key: the REST client counts
   * its large answers; the gateway counts large results it serves without a REST call.
   */
  readonly bytes: ByteBudgets;
  /** Bytes of answers held at once, across callers (bytesInFlight.ts). */
  readonly answers: BytesInFlight;
  /** Who a request's caller is and whom its work counts against, from what the upstream said of its token lately (callerKey.ts). */
  identify(authorization: string | null | undefined, address: string | undefined): CallerIdentity;
  /** A result stored for this token was served from the response cache (callerKey.ts, `vouched`). */
  vouch(authorization: string | null | undefined): void;
  /**
   * Gives up every request's calls in flight, and those requests' later calls, as if their
   * clients had left: each fails `UPSTREAM_UNAVAILABLE` "the gateway is stopping" (a write's "may
   * have been made"), so its operation is answered. For a stop whose drain grace is over.
   */
  leaveAll(): void;
  /** Closes the pool: waits for calls in flight, then ends its connections. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export function createRestClient(config: RestClientConfig): RestClient {
  const base = new URL(config.baseUrl.replace(/\/+$/, ''));
  const clock = config.clock ?? systemClock;
  const known = new KnownCallers(undefined, clock);
  const transport = new Transport({ ...transportParts(config, base, clock), onAnswer: (who, status) => known.answered(who.key, status) });
  const reads = new SharedReads(config.singleFlight ?? true, clock, () => transport.deadline());
  return {
    baseUrl: base.toString(),
    forCaller: (authorization, options = {}) => new CallerView(transport, reads, authorization, options),
    arrive: (authorization) => reads.arrive(credentialOf(authorization).key),
    keptAnswerChars: () => reads.keptChars(),
    leaveAll: () => reads.all.leave(),
    bytes: transport.parts.bytes,
    answers: transport.parts.answers,
    identify: (authorization, address) => known.identify(authorization, address),
    vouch: (authorization) => known.vouched(credentialOf(authorization).key),
    close: () => closePools(transport),
    [Symbol.asyncDispose]: () => closePools(transport),
  };
}

/** Seconds of a caller's byte rate it may fetch at once (`callerBytesPerSecond`). */
const BYTE_BURST_SECONDS = 4;
/** The size from which an answer counts against its caller's bytes (byteBudget.ts). */
const LARGE_ANSWER_BYTES = 64 * 1024;

async function closePools(transport: Transport): Promise<void> {
  await Promise.all([transport.parts.pool.close(), transport.parts.streamPool.close()]);
}

function transportParts(config: RestClientConfig, base: URL, clock: Clock) {
  const settings: RestSettings = withDefaults(DEFAULTS.rest, config);
  const answers = new BytesInFlight(config.answerBytesInFlight ?? defaultAnswerBytesInFlight());
  const connection = {
    connectTimeout: settings.connectTimeoutMs,
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs ?? 4_000,
  };
  const pool = new Pool(base.origin, {
    ...connection,
    connections: settings.concurrency,
    // One answer alone is always admitted: it may not be larger than the budget.
    maxResponseSize: Math.min(config.maxResponseBytes ?? 32 * 1024 * 1024, answers.budget),
  });
  // The event streams' connections apart (transport.ts: STREAMS_TOTAL), with no size limit: in
  // the calls' pool, a stream was cut (UPSTREAM_UNAVAILABLE "event stream interrupted") once it had
  // sent the answers' limit in all, 16 MiB under `npm start`, though each event is passed on as it
  // comes (an ask's events repeat its growing answer: 2,000 of 20 KB each pass it).
  const streamPool = new Pool(base.origin, { ...connection, connections: STREAMS_TOTAL });
  const { onRequest, log } = config;
  const concurrency: ConcurrencyConfig = {
    total: settings.concurrency,
    perCaller: settings.callerConcurrency,
    queuePerCaller: settings.queueLimit,
    queueTotal: config.queueTotal || 10 * settings.queueLimit,
  };
  const target: Target = { basePath: base.pathname === '/' ? '' : base.pathname, userAgent: config.userAgent ?? 'docs-graph' };
  return {
    pool,
    streamPool,
    target,
    clock,
    headersTimeout: settings.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs ?? 30_000,
    streamIdleTimeout: config.streamIdleTimeoutMs ?? 60_000,
    retry: { ...withDefaults(DEFAULT_BACKOFF, config.retry), maxAttempts: settings.retries + 1 },
    budget: new RetryBudget({ ...withDefaults(DEFAULT_RETRY_BUDGET, config.retryBudget), percent: settings.retryBudgetPercent }, () =>
      clock.now(),
    ),
    circuits: new Circuits(
      { ...withDefaults(DEFAULT_CIRCUIT, config.circuit), threshold: settings.circuitThreshold, cooldownMs: settings.circuitCooldownMs },
      { origin: base.origin, logger: config.logger, onChange: config.onCircuitChange, onRefusal: config.onCircuitRefusal },
      clock,
    ),
    limiter: new Limiter(concurrency),
    answers,
    // A caller's bucket holds BYTE_BURST_SECONDS of its rate.
    bytes: new ByteBudgets(
      {
        rate: settings.callerBytesPerSecond,
        burst: settings.callerBytesPerSecond * BYTE_BURST_SECONDS,
        large: LARGE_ANSWER_BYTES,
        maxWaiting: settings.queueLimit,
      },
      clock,
    ),
    report: log
      ? (call: RestCall) => {
          onRequest?.(call);
          log(`rest ${call.method} ${call.route} ${call.status ?? call.code} ${Math.round(call.ms)}ms attempt=${call.attempt}`);
        }
      : onRequest,
  };
}

/**
 * One caller's view: its credential, its budget, its request's signal and arrival, its operation's
 * call count. Once the REST API answered 401 for its credential, its remaining calls fail with the
 * same error without a call: a made-up token's operation made up to `maxCalls` of them (1,000), so
 * one address could have the REST API answer some 600,000 calls a minute.
 */
class CallerView implements RestCaller {
  private readonly credential: Credential;
  private readonly who: Who;
  private readonly leaving: Leaving;
  /** When its request arrived, if it may take answers kept for it. */
  private readonly since: number | undefined;
  private readonly signal: LeaveSignal | undefined;
  private readonly maxCalls: number;
  private calls = 0;
  /** When the view was made, and whether it took an answer of a call started before (`tookEarlierRead`). */
  private readonly madeAt: number;
  private earlierRead = false;
  /** Its answers' bytes of the budget of answers held at once (until `end()` with `holdAnswers`), and its credential's 401. */
  private readonly op: Operation;

  constructor(
    private readonly transport: Transport,
    private readonly reads: SharedReads,
    authorization: string | undefined,
    options: CallerOptions,
  ) {
    this.credential = credentialOf(authorization);
    this.who = { key: this.credential.key, budget: options.budget ?? this.credential.key };
    this.signal = options.signal;
    this.maxCalls = options.maxCalls ?? Infinity;
    this.leaving = new Leaving(options.signal, reads.all);
    this.since = reads.enabled && options.arrival?.key === this.who.key ? options.arrival.since : undefined;
    this.op = { answers: transport.parts.answers.account(this.who.budget, options.holdAnswers ?? false), unauthenticated: new Map() };
    this.madeAt = reads.now();
  }

  end(): void {
    this.op.answers.end();
  }

  tookEarlierRead(): boolean {
    return this.earlierRead;
  }

  // `any`: the caller names the answer's type (`get<T>`), which JSON from the wire cannot check.
  async get(path: string, query?: Query): Promise<any> {
    const req = this.prepare('GET', path, query, undefined);
    // A read joined to another request's call learns of a 401 only from its error.
    return this.reads
      .read(this.who.key, req, this.since, (deadline) => this.transport.call(req, this.who, deadline, this.op), this.leaving, this.taken)
      .catch((error: unknown) => this.refused(req, error));
  }

  /** Notes a 401 for the access of `req` (and rethrows): a read joined to another request's call learns of it here. */
  private refused(req: Prepared, error: unknown): never {
    noteUnauthenticated(this.op, req, error);
    throw error;
  }

  /** An answer shared with another of the caller's requests counts against its byte budget too (singleFlight.ts `read`). */
  private readonly taken = (size: number, startedAt: number) => {
    if (startedAt <= this.madeAt) this.earlierRead = true; // the same instant counts: which came first is not known
    this.transport.parts.bytes.charge(this.who.budget, size);
  };

  post(path: string, body?: unknown, query?: Query): Promise<any> {
    return this.write('POST', path, body, query);
  }

  put(path: string, body?: unknown, query?: Query): Promise<any> {
    return this.write('PUT', path, body, query);
  }

  patch(path: string, body?: unknown, query?: Query): Promise<any> {
    return this.write('PATCH', path, body, query);
  }

  delete(path: string, body?: unknown, query?: Query): Promise<any> {
    return this.write('DELETE', path, body, query);
  }

  async stream(path: string, query?: Query, signal?: AbortSignal): Promise<SseStream> {
    const req = this.prepare('GET', path, query, undefined, 'text/event-stream');
    return openStream(this.transport, req, this.who, anySignal(abortSignalOf(this.signal), signal)).catch((error: unknown) =>
      this.refused(req, error),
    );
  }

  // `any`: as for `get`, the caller names the answer's type.
  private async write(method: HttpMethod, path: string, body: unknown, query: Query | undefined): Promise<any> {
    const req = this.prepare(method, path, query, body);
    return this.reads.write(this.who.key, req, (deadline) => this.transport.call(req, this.who, deadline, this.op), this.leaving);
  }

  /** The request, counted as one more call of this view's operation; past `maxCalls`, or once its credential got a 401, refused. */
  private prepare(method: HttpMethod, path: string, query: Query | undefined, body: unknown, accept?: string): Prepared {
    const req = prepare(this.transport.parts.target, this.credential, method, path, query, body, accept);
    const refused = this.op.unauthenticated.get(req.access);
    if (refused) throw credentialRefusedError(refused, req.info);
    if (++this.calls > this.maxCalls) throw callLimitError(this.maxCalls);
    return req;
  }
}

/**
 * A caller's signal as an AbortSignal (a stream's request takes one): itself, or one it aborts. A
 * proxy that says it is one (whatwg-node's stand-in for a request's signal) is not: Node 24.22's
 * `AbortSignal.any` refuses it, and every REST stream of such a request failed before it was asked for.
 */
function abortSignalOf(signal: LeaveSignal | undefined): AbortSignal | undefined {
  if (signal === undefined || (signal instanceof AbortSignal && !types.isProxy(signal))) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort();
  else signal.addEventListener('abort', () => controller.abort(), { once: true });
  return controller.signal;
}

function anySignal(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  return a && b ? AbortSignal.any([a, b]) : (a ?? b);
}
