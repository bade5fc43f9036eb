/**
 * The graphql-sse protocol at `endpoint`, both modes, on graphql-sse's own handler (with the
 * `onSubscribe` of @graphql-yoga/plugin-graphql-sse), hardened for a gateway in front of tokens:
 *
 * - A single-connection reservation (`PUT`) belongs to its caller: the token the gateway makes is
 *   bound to a hash of the caller's `Authorization` (never the header itself), and a `GET`,
 *   `POST` or `DELETE` naming it from another caller is refused (403 FORBIDDEN), so nobody
 *   reads or feeds another caller's stream.
 * - A reservation nobody connects to within `reservationTtlMs` is dropped, with what was queued.
 * - Reservations are capped per caller (per client address for callers without an accepted token:
 *   lib/callerHash.ts) and in total (429 RATE_LIMITED), and so are the operations open on them
 *   (each POST was answered 202 at once, so one token sent a thousand a second, faster than their
 *   upstream streams ended, until the heap ran out) and the events queued for streams that were not
 *   read yet, counted and in bytes (an event repeats its `operationId`; 950 KB ids made 50 events
 *   50 MB): past either event cap, the stream ends (graphql-sse keeps them in an unbounded array
 *   otherwise). An `operationId` is at most MAX_OPERATION_ID characters (400 past it).
 * - A reservation's stream is connected by a `GET` only (405 otherwise: a `POST` connected it
 *   unclaimed, out of the caps and of the ownership check), and a token names a reservation of
 *   this gateway or nothing (404: graphql-sse keeps its streams in a plain object, where
 *   `__proto__` found a prototype and answered 500).
 * - Every answer is a GraphQL result or error with a code of the fixed set: parse, validation and
 *   limit errors are results of the operation (never an HTTP 500 with a stack), the handler's own
 *   refusals (400, 404, 405, 406, 409, 415) carry `extensions.code`, anything unexpected is masked.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { getOperationAST, GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { TOKEN_HEADER_KEY, TOKEN_QUERY_KEY } from 'graphql-sse';
import { createHandler, type HandlerOptions } from 'graphql-sse/lib/use/fetch';
import { isAsyncIterable, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from '../../log.js';
import { systemClock, type Clock } from '../../rest/index.js';
import { callerBudget, callerHash, sameCaller } from '../lib/callerHash.js';
import { whenResponseDone, type NodeServerContext } from '../lib/httpBounds.js';
import { jsonSize } from '../lib/jsonSize.js';
import { errorsForCaller } from '../lib/suggestions.js';
import { maskError, UNEXPECTED_ERROR_MESSAGE } from '../lib/maskedErrors.js';
import { requestPath } from '../lib/requestPath.js';
import { BODIES_REFUSAL, countedBody } from '../lib/requestBytesInFlight.js';
import { measuredSize } from './useMaxResponseBytes.js';
import { heldBodyText, holdParsedQuery } from './useMaxVariablesDepth.js';
import { persistedStreamQuery } from './usePersistedOperations.js';
import { recodeAll } from './useRequestErrorCodes.js';

export interface StreamLimits {
  /** A reservation nobody connected to is dropped after this long. */
  reservationTtlMs: number;
  maxReservationsPerCaller: number;
  maxReservations: number;
  /** Operations open on a caller's reservations (sent and not completed). */
  maxOperationsPerCaller: number;
  maxOperations: number;
  /** Events produced for a caller's streams and not yet read by its connection, and their bytes. */
  maxQueuedEventsPerCaller: number;
  maxQueuedEvents: number;
  maxQueuedBytesPerCaller: number;
  maxQueuedBytes: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  reservationTtlMs: 5_000,
  maxReservationsPerCaller: 4,
  maxReservations: 1_000,
  maxOperationsPerCaller: 32,
  maxOperations: 1_000,
  maxQueuedEventsPerCaller: 50,
  maxQueuedEvents: 1_000,
  maxQueuedBytesPerCaller: 8 * 1024 * 1024,
  maxQueuedBytes: 32 * 1024 * 1024,
};

const NO_SUCH_STREAM =
  'No such event stream: it expired or ended, or was reserved on another replica (single-connection mode needs session affinity); reserve one with PUT.';

/** The longest `operationId` (a client's counter or UUID; each event repeats it). */
export const MAX_OPERATION_ID = 128;

interface Reservation {
  /**
   * A stream of the distinct connections mode, counted here only for its queued events (graphql-sse
   * queues a stream's events as they come, read or not): not a reservation, nor under their caps.
   */
  distinct?: true;
  /** Who owns it (callerHash). */
  caller: string;
  /** Whose caps it counts against (callerBudget: a client address until the REST API accepted its token). */
  budget: string;
  claimed: boolean;
  /** Operations sent on it and not completed. */
  operations: number;
  queued: number;
  /** Bytes of each queued event, oldest first (an estimate: the result's JSON size and the id), and their sum. */
  sizes: number[];
  queuedBytes: number;
  timer: unknown;
  /** Its operations' next events, waiting for its client to read (PACED_EVENTS). */
  paced?: Array<() => void>;
}

interface Tally {
  reservations: number;
  operations: number;
  queued: number;
  queuedBytes: number;
}

type Refusal = [string, { status: number; statusText: string; headers: Record<string, string> }];

/** The error code of each status the handler (or this plugin) answers with. */
const CODE_BY_STATUS: Record<number, string> = { 403: 'FORBIDDEN', 404: 'NOT_FOUND', 409: 'CONFLICT', 429: 'RATE_LIMITED' };
const codeOf = (status: number) => CODE_BY_STATUS[status] ?? (status >= 500 ? 'UPSTREAM_ERROR' : 'BAD_USER_INPUT');
const EVENT = 'e'.charCodeAt(0); // a chunk that starts an `event:` (the others are `:` pings)

/**
 * Events a connected stream may have queued and not read before its operations wait for its
 * client to read (graphql-sse waits for `onNext`, and a subscription's REST stream for it). A REST
 * stream sends events in bursts, many in one read: graphql-sse queued them all at once, before its
 * writer could take one, and 50 of them (maxQueuedEventsPerCaller) ended the stream of a client
 * that read every event as it came, with all its operations.
 */
const PACED_EVENTS = 8;

export function useGraphQLSSE(
  options: { endpoint?: string; limits?: Partial<StreamLimits>; log?: Logger; clock?: Clock; anonymousIntrospection?: boolean } = {},
): Plugin {
  const endpoint = options.endpoint ?? '/graphql/stream';
  const clock = options.clock ?? systemClock;
  const limits = { ...DEFAULT_STREAM_LIMITS, ...options.limits };
  const reservations = new Map<string, Reservation>();
  const tallies = new Map<string, Tally>();
  const total: Tally = { reservations: 0, operations: 0, queued: 0, queuedBytes: 0 };
  /** Requests that name a reservation (by their raw Request), and the synthetic ones that drop one. */
  const streamOf = new WeakMap<Request, string>();
  const internal = new WeakMap<Request, string>();
  const serverContexts = new WeakMap<Request, unknown>();
  /** How a connected stream is ended from outside its reads (by the queue caps), by reservation. */
  const ends = new Map<string, () => void>();
  /** Distinct connections' streams that passed a queue cap before they were handed to their reader. */
  const overflowed = new Set<string>();
  /** The reservation each counted operation (its POST) runs on. */
  const operationOf = new WeakMap<Request, string>();
  /** The streamed results (@defer, @stream) of operations sent on reservations, until graphql-sse reads them (`dropped`). */
  const results = new WeakMap<Request, AsyncIterable<unknown>>();
  let yoga!: YogaServerInstance<Record<string, unknown>, Record<string, unknown>>;
  let handler!: (request: Request) => Promise<Response>;

  const tally = (budget: string) => {
    let t = tallies.get(budget);
    if (!t) tallies.set(budget, (t = { reservations: 0, operations: 0, queued: 0, queuedBytes: 0 }));
    return t;
  };

  function reserve(caller: string, budget: string): string | Refusal {
    // Looked up, not made: a tally made for a refusal stayed, empty, for good (225 bytes a PUT
    // from a new address while the reservations were all taken: 30 MB in 134,000 PUTs).
    if ((tallies.get(budget)?.reservations ?? 0) >= limits.maxReservationsPerCaller || total.reservations >= limits.maxReservations)
      return refusal(429, `Too many event stream reservations (at most ${limits.maxReservationsPerCaller} per caller); close one first.`);
    const t = tally(budget);
    const token = randomUUID();
    // graphql-sse's handler may reject (its docs say so): a rejection here, on a timer, would
    // otherwise go unhandled and end the process.
    const timer = clock.setTimeout(
      () => void expire(token).catch((error) => options.log?.error('graphql-sse reservation expiry failed', { error: String(error) })),
      limits.reservationTtlMs,
    );
    (timer as { unref?: () => void }).unref?.();
    reservations.set(token, { caller, budget, claimed: false, operations: 0, queued: 0, sizes: [], queuedBytes: 0, timer });
    t.reservations++;
    total.reservations++;
    return token;
  }

  function release(token: string): void {
    const r = reservations.get(token);
    if (!r) return;
    clock.clearTimeout(r.timer);
    reservations.delete(token);
    const t = tally(r.budget);
    const counted = r.distinct ? 0 : 1;
    t.reservations -= counted;
    t.operations -= r.operations;
    t.queued -= r.queued;
    t.queuedBytes -= r.queuedBytes;
    total.reservations -= counted;
    total.operations -= r.operations;
    total.queued -= r.queued;
    total.queuedBytes -= r.queuedBytes;
    if (t.reservations === 0 && t.operations === 0 && t.queued === 0) tallies.delete(r.budget);
    pace(r);
  }

  /** Lets the operations of `r` that wait for its client go on (it read, or the stream is over). */
  function pace(r: Reservation): void {
    const paced = r.paced;
    r.paced = undefined;
    paced?.forEach((go) => go());
  }

  /** A stream of the distinct connections mode: its events are counted as a reservation's are. */
  function distinctStream(raw: Request): string {
    const token = randomUUID();
    reservations.set(token, {
      distinct: true,
      caller: callerOf(raw),
      budget: callerBudget(raw),
      claimed: true,
      operations: 0,
      queued: 0,
      sizes: [],
      queuedBytes: 0,
      timer: undefined,
    });
    streamOf.set(raw, token);
    return token;
  }

  /** Drops an unclaimed reservation: graphql-sse ends a stream (and its operations) when its reader goes away. */
  async function expire(token: string): Promise<void> {
    if (reservations.get(token)?.claimed !== false) return;
    release(token);
    const request = new yoga.fetchAPI.Request(`http://localhost${endpoint}`, {
      headers: { accept: 'text/event-stream', [TOKEN_HEADER_KEY]: token },
    });
    internal.set(request, token);
    const response = await handler(request);
    await response.body?.cancel();
  }

  /**
   * Counts an event (a result, or `null` for `complete`) queued for the stream a request feeds;
   * past a cap, ends that stream.
   */
  function queued(req: SseRequest, result: unknown): void {
    const token = streamOf.get(req.raw);
    const r = token === undefined ? undefined : reservations.get(token);
    if (!r) return;
    const bytes = eventBytes(req, result, limits.maxQueuedBytesPerCaller);
    const t = tally(r.budget);
    if (
      t.queued >= limits.maxQueuedEventsPerCaller ||
      total.queued >= limits.maxQueuedEvents ||
      t.queuedBytes + bytes > limits.maxQueuedBytesPerCaller ||
      total.queuedBytes + bytes > limits.maxQueuedBytes
    ) {
      release(token!);
      endedWarning();
      // A connected stream is ended by its reader (its response ends cleanly; graphql-sse's stream
      // is returned, which ends its operations). An error thrown here would reach that reader
      // through graphql-sse's adapter stream, whose failed read went unhandled.
      const end = ends.get(token!);
      if (end) return end();
      // A distinct connection's stream not handed to its reader yet: ended as it is (`claim`).
      // Thrown, the error would reject graphql-sse's loop over the results, which nobody awaits.
      if (r.distinct) return void overflowed.add(token!);
      throw new Error('Too many queued events');
    }
    r.queued++;
    t.queued++;
    total.queued++;
    r.sizes.push(bytes);
    r.queuedBytes += bytes;
    t.queuedBytes += bytes;
    total.queuedBytes += bytes;
  }

  /** One warning line per 10 s for the streams ended by a queue cap, with how many (71 lines in a second, one per stream, before). */
  let warnedAt = -Infinity;
  let endedSince = 0;
  function endedWarning(): void {
    endedSince++;
    if (clock.now() - warnedAt < 10_000) return;
    warnedAt = clock.now();
    options.log?.warn('graphql-sse streams ended: too many events queued and not read', { streams: endedSince });
    endedSince = 0;
  }

  function delivered(token: string): void {
    const r = reservations.get(token);
    if (!r || r.queued === 0) return;
    const bytes = r.sizes.shift() ?? 0;
    const t = tally(r.budget);
    r.queued--;
    t.queued--;
    total.queued--;
    r.queuedBytes -= bytes;
    t.queuedBytes -= bytes;
    total.queuedBytes -= bytes;
    if (r.queued < PACED_EVENTS) pace(r);
  }

  /**
   * An operation sent on reservation `token` (a POST): its id read from the body (parsed once,
   * handed on to graphql-sse as the object), bounded, and counted against the caps until it
   * completes (or its stream ends); a refusal otherwise.
   */
  async function operationOn(req: SseRequest, token: string, r: Reservation): Promise<Refusal | undefined> {
    const text = typeof req.body === 'function' ? await (req.body as () => Promise<string>)() : req.body;
    let id: unknown;
    try {
      const data: unknown = typeof text === 'string' ? JSON.parse(text) : text;
      req.body = data;
      id = (data as { extensions?: { operationId?: unknown } } | null)?.extensions?.operationId;
    } catch {
      req.body = text; // graphql-sse answers the invalid JSON
      return undefined;
    }
    if (typeof id === 'string' && id.length > MAX_OPERATION_ID) return refusal(400, `operationId: at most ${MAX_OPERATION_ID} characters.`);
    // graphql-sse keeps operations by id in a plain object: an object id ran as "[object Object]",
    // and `__proto__` was taken for an operation that exists (409).
    if (id !== undefined && (typeof id !== 'string' || id in Object.prototype))
      return refusal(400, 'operationId: a string, not the name of a built-in object member.');
    const t = tally(r.budget);
    if (t.operations >= limits.maxOperationsPerCaller || total.operations >= limits.maxOperations)
      return refusal(
        429,
        `Too many operations open on event streams (at most ${limits.maxOperationsPerCaller} per caller); wait for one to complete.`,
      );
    r.operations++;
    t.operations++;
    total.operations++;
    operationOf.set(req.raw, token);
    return undefined;
  }

  /**
   * An operation sent on a reservation that graphql-sse answered otherwise than 202 never runs: its
   * streamed result, if it made one (an operation deleted while it executed: 204), is returned, so
   * its execution is over (useOperationEnd.ts). Dropped unread, it held its REST answers for good.
   */
  function dropped(raw: Request): void {
    completed(raw);
    const returned = results.get(raw)?.[Symbol.asyncIterator]().return?.();
    results.delete(raw);
    // A failure to end it is nobody's: no one reads that result.
    void returned?.catch(() => undefined);
  }

  /** An operation counted by operationOn (its POST) completed, or was refused. */
  function completed(raw: Request): void {
    const token = operationOf.get(raw);
    const r = token === undefined ? undefined : reservations.get(token);
    if (!r || r.operations === 0) return;
    operationOf.delete(raw);
    r.operations--;
    tally(r.budget).operations--;
    total.operations--;
  }

  const handlerOptions: HandlerOptions = {
    async authenticate(req) {
      const raw = req.raw;
      const own = internal.get(raw);
      if (own) return own;
      const caller = callerOf(raw);
      if (raw.method === 'PUT') {
        // Against its client address until the REST API accepted its token: fresh made-up tokens,
        // one per reservation, filled every caller's share of the total (the admin's PUT got 429).
        const token = reserve(caller, callerBudget(raw));
        if (typeof token === 'string') streamOf.set(raw, token);
        return token;
      }
      const given = raw.headers.get(TOKEN_HEADER_KEY) ?? new URL(raw.url, 'http://localhost').searchParams.get(TOKEN_QUERY_KEY);
      if (!given) return distinctStream(raw); // distinct connections (graphql-sse makes up a token for them too)
      const r = reservations.get(given);
      // A reservation lives in the replica that made it: behind a load balancer without session
      // affinity, a client's GET or POST reaches another one, and only this message says why.
      if (!r) return refusal(404, NO_SUCH_STREAM);
      if (r.caller !== caller) return refusal(403, 'This event stream belongs to another caller.');
      // graphql-sse's own test of the header: a reservation's stream is connected by a GET only.
      if (raw.method !== 'GET' && raw.headers.get('accept') === 'text/event-stream')
        return refusal(405, 'Connect to a reserved event stream with GET.');
      streamOf.set(raw, given);
      if (raw.method === 'POST') {
        const refused = await operationOn(req as SseRequest, given, r);
        if (refused) return refused;
      }
      return given;
    },
    onSubscribe(req, params) {
      const raw = req.raw;
      // An operation sent on a reservation writes its results to the reservation's stream, not to
      // its POST's response (answered 202 once it runs): without that response, its context holds
      // its REST answers and values until its execution is over (useOperationEnd.ts), which
      // graphql-sse ends with the stream. Given the POST's, a deferred part ran once the 202 was
      // written, outside `maxResultValues` and the budgets of values and answers held at once.
      const server = operationOf.has(raw) ? { ...(serverContexts.get(raw) as object), res: undefined } : serverContexts.get(raw);
      const enveloped = yoga.getEnveloped({ ...(server as object), request: raw, params });
      const persisted = persistedStreamQuery(yoga, raw, params);
      if (persisted instanceof GraphQLError) return { data: null, errors: [persisted] };
      let document;
      try {
        document = enveloped.parse(persisted ?? params.query);
      } catch (error) {
        // Yoga's check of the operation to run (and of a mutation over GET) throws at parse.
        return earlyResult({ data: null, errors: [clientError(error)] });
      }
      const errors = enveloped.validate(enveloped.schema, document);
      if (errors.length > 0) {
        // As over HTTP (useIntrospectionAccess.ts): no schema names for a caller not accepted yet.
        return { data: null, errors: errorsForCaller(errors, raw, options.anonymousIntrospection ?? false) ?? errors };
      }
      return Promise.resolve(enveloped.contextFactory())
        .then((contextValue) => {
          const args: ExecutionArgs = {
            schema: enveloped.schema,
            document,
            contextValue,
            variableValues: params.variables,
            operationName: params.operationName,
          };
          const operation = getOperationAST(document, params.operationName);
          return (operation?.operation === 'subscription' ? enveloped.subscribe : enveloped.execute)(args);
        })
        .then((result) => {
          if (operationOf.has(raw) && isAsyncIterable(result)) results.set(raw, result);
          return earlyResult(result);
        }) as ReturnType<NonNullable<HandlerOptions['onSubscribe']>>;
    },
    onNext: (_ctx, req, result) => {
      queued(req as SseRequest, result);
      const next = withoutHttpHints(result);
      // A stream nobody reads yet is bounded by the caps alone.
      const token = streamOf.get((req as SseRequest).raw);
      const r = token === undefined ? undefined : reservations.get(token);
      if (!r?.claimed || r.queued < PACED_EVENTS) return next;
      return new Promise<typeof next>((resolve) => (r.paced ??= []).push(() => resolve(next)));
    },
    onComplete: (_ctx, req) => {
      completed((req as SseRequest).raw);
      queued(req as SseRequest, null);
    },
  };

  /**
   * The request as graphql-sse will read it: a POST body the bodies budget counts, read here first
   * and held as what its parse builds (as Yoga's are: useMaxVariablesDepth.ts), in a request of the
   * same caller, and a GET whose query string's parse the budget holds; undefined when the budget
   * cannot hold it now.
   */
  async function bodyHeld(request: Request, serverContext: unknown): Promise<Request | undefined> {
    const incoming = (serverContext as NodeServerContext | undefined)?.req;
    if (request.method === 'GET') return holdParsedQuery(request.url, incoming) ? request : undefined;
    if (request.method !== 'POST' || !countedBody(incoming)) return request;
    const text = await heldBodyText(request, incoming);
    if (text === undefined) return undefined;
    const held = new yoga.fetchAPI.Request(request.url, { method: 'POST', headers: request.headers, body: text, signal: request.signal });
    sameCaller(request, held);
    return held;
  }

  /** The bodies budget's refusal (503, `Retry-After: 1`), as the server writes it. */
  const busy = () => new yoga.fetchAPI.Response(BODIES_REFUSAL.body, { status: 503, headers: BODIES_REFUSAL.headers });

  async function handle(request: Request): Promise<Response> {
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      dropped(request);
      options.log?.error('graphql-sse request failed', { error: String(error) });
      return errorResponse(500, UNEXPECTED_ERROR_MESSAGE);
    }
    // An operation graphql-sse refused after it was counted (no operationId, no query, an id in
    // use: 400, 409) or dropped before it ran (204) never completes: uncounted here, each such POST
    // held its place until the stream ended (32 of them, and every further operation got 429).
    if (response.status !== 202) dropped(request);
    const token = streamOf.get(request);
    if (token === undefined) return withCodes(response);
    if (overflowed.delete(token)) {
      // Ended by a queue cap before its reader had it (its place is released already).
      await response.body?.cancel();
      return new yoga.fetchAPI.Response('', { status: response.status, headers: response.headers });
    }
    if (request.method === 'PUT' && response.status !== 201) release(token);
    const isStream = response.headers.get('content-type')?.startsWith('text/event-stream');
    const distinct = reservations.get(token)?.distinct === true;
    if ((request.method !== 'GET' && !distinct) || !isStream || !response.body) {
      if (distinct) release(token);
      return withCodes(response);
    }
    return claim(token, response, (serverContexts.get(request) as NodeServerContext | undefined)?.res);
  }

  /**
   * The caller connected: the reservation no longer expires, and its events are counted until
   * they are written. The writer takes an event (this stream's `pull`) only once what it wrote
   * before is in its socket's buffer; the events taken before this one leave the count when that
   * buffer has drained into the socket (`res`, when the response is node:http's). Counted only
   * until taken, one result per stream that its client never read stayed on the heap past every
   * cap (280 such streams of a 2.7 MB result: 900 MB of RSS).
   */
  function claim(token: string, response: Response, res: ServerResponse | undefined): Response {
    const r = reservations.get(token);
    if (!r) return response;
    r.claimed = true;
    clock.clearTimeout(r.timer);
    const reader = response.body!.getReader();
    let ended = false;
    /** Events taken and not yet known written. */
    let taken = 0;
    const written = (events: number) => {
      for (let i = 0; i < events; i++) delivered(token);
    };
    const body = new yoga.fetchAPI.ReadableStream<Uint8Array>({
      start(controller) {
        ends.set(token, () => {
          ends.delete(token);
          ended = true;
          controller.close();
          void reader.cancel().catch(() => undefined);
        });
      },
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (ended) return; // closed meanwhile (a cap)
          if (done) {
            releaseWhenWritten();
            return controller.close();
          }
          if (value[0] === EVENT) {
            const before = taken;
            taken = 1;
            if (before && res && res.writableLength > 0) res.once('drain', () => written(before));
            else written(before);
          }
          controller.enqueue(value);
        } catch (error) {
          releaseWhenWritten();
          controller.error(error);
        }
      },
      cancel(reason) {
        releaseWhenWritten();
        return reader.cancel(reason);
      },
    });
    /**
     * Its place and counts go once its response is written or closed: a stream ends (and its
     * body is cancelled, as the adapter does after the end) with its last events still in the
     * socket's buffer when its client does not read.
     */
    function releaseWhenWritten() {
      ends.delete(token);
      if (res) whenResponseDone(undefined, res, () => release(token));
      else release(token);
    }
    // A response closed before it was written whole: its stream is ended here too. When the client
    // left while its request was handled (a POST whose client half-closed after its body), the
    // server adapter's writer finds the response closed and neither reads nor cancels the body:
    // its queued events stayed counted for good, and 25 such requests of `{ viewer { id } }`
    // (2 events each) ended every later stream of their caller at once, empty.
    if (res)
      whenResponseDone(undefined, res, () => {
        if (res.writableFinished || ended) return;
        ended = true;
        releaseWhenWritten();
        void reader.cancel().catch(() => undefined);
      });
    return new yoga.fetchAPI.Response(body, { status: response.status, headers: response.headers });
  }

  /** A refusal of graphql-sse's handler with the `extensions.code` of its status. */
  async function withCodes(response: Response): Promise<Response> {
    if (response.status < 400) return response;
    const text = await response.text();
    let errors: Array<{ message: string; extensions?: Record<string, unknown> }>;
    try {
      errors = (JSON.parse(text) as { errors: typeof errors }).errors;
    } catch {
      errors = [{ message: response.statusText || `HTTP ${response.status}` }];
    }
    const body = { errors: errors.map((e) => ({ message: e.message, extensions: { code: codeOf(response.status), ...e.extensions } })) };
    const headers = new yoga.fetchAPI.Headers(response.headers);
    headers.set('content-type', 'application/json; charset=utf-8');
    headers.delete('content-length');
    return new yoga.fetchAPI.Response(JSON.stringify(body), { status: response.status, headers });
  }

  function errorResponse(status: number, message: string): Response {
    const [body, init] = refusal(status, message);
    return new yoga.fetchAPI.Response(body, init);
  }

  return {
    onYogaInit({ yoga: instance }) {
      yoga = instance as typeof yoga;
      handler = createHandler(handlerOptions, yoga.fetchAPI);
    },
    onRequest({ request, endResponse, serverContext }) {
      if (!requestPath(request.url).endsWith(endpoint)) return;
      return bodyHeld(request, serverContext).then(
        (held) => {
          if (!held) return endResponse(busy());
          serverContexts.set(held, serverContext);
          return handle(held).then(endResponse);
        },
        // A body its caller sent wrong (not UTF-8: bodyText, useMaxVariablesDepth.ts) is answered
        // with its status, as graphql-sse answers a bad request (thrown on, it was a 500).
        (error: unknown) => {
          const status = error instanceof GraphQLError ? (error.extensions.http as { status?: number } | undefined)?.status : undefined;
          if (status === undefined) throw error;
          endResponse(errorResponse(status, (error as GraphQLError).message));
        },
      );
    },
  };
}

/**
 * A result that ends an operation before it ran (variables that do not coerce, no operation of the
 * name, a mutation over GET), as graphql-sse sends it: with `data` (graphql-sse takes an object
 * without it for execution arguments and answered 400 "Unable to detect operation AST") and codes
 * of the set (Yoga's `OPERATION_RESOLUTION_FAILURE` and `BAD_REQUEST` reached clients, as over
 * HTTP they do not: useRequestErrorCodes.ts recodes results there).
 */
function earlyResult<T>(result: T): T | ExecutionResult {
  if (isAsyncIterable(result) || !result || typeof result !== 'object') return result;
  recodeAll((result as ExecutionResult).errors);
  return 'data' in result ? result : { data: null, ...result };
}

/** graphql-sse's request, as its handler passes it along: the Fetch request, and the body (parsed by operationOn). */
type SseRequest = { raw: Request; body: unknown };

/**
 * What an event (a result, or `null` for `complete`) adds to a stream's queue, about: its JSON (as
 * the response-bytes bound measured it, or measured up to `cap`), its operation's id and the framing.
 */
function eventBytes(req: SseRequest, result: unknown, cap: number): number {
  const id = (req.body as { extensions?: { operationId?: unknown } } | null)?.extensions?.operationId;
  const json = result === null ? 0 : (measuredSize(result) ?? jsonSize(result, cap));
  return json + (typeof id === 'string' ? id.length : 0) + 40;
}

/**
 * A result without the `http` hints its errors carry for Yoga's HTTP answer (a status, headers),
 * which Yoga leaves out of what it writes and graphql-sse would print as they are.
 */
function withoutHttpHints<T>(result: T): T | undefined {
  const errors = (result as { errors?: readonly GraphQLError[] } | null)?.errors;
  if (!errors?.some((e) => e.extensions?.http !== undefined)) return undefined;
  return {
    ...result,
    errors: errors.map((e) => {
      if (e.extensions?.http === undefined) return e;
      const { http: _http, ...extensions } = e.extensions;
      return new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, path: e.path, extensions });
    }),
  };
}

/** The caller a stream belongs to: its key (a hash of its token, however `Bearer` is spelled; absent: the anonymous caller). */
const callerOf = callerHash;

function refusal(status: number, message: string): Refusal {
  return [
    JSON.stringify({ errors: [{ message, extensions: { code: codeOf(status) } }] }),
    { status, statusText: '', headers: { 'content-type': 'application/json; charset=utf-8' } },
  ];
}

/** A parse error (syntax or a limit) as the client may see it; anything else masked. */
function clientError(error: unknown): GraphQLError {
  return error instanceof GraphQLError && !error.originalError ? error : (maskError(error, UNEXPECTED_ERROR_MESSAGE) as GraphQLError);
}
