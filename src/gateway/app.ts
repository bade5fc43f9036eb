/** buildGateway(options) → {yoga, start, stop}: the GraphQL server in front of the REST API. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { LogLevel } from '../config.js';
import { silentLogger, type Logger } from '../log.js';
import { createRestClient, type Arrival, type RestCall, type RestClient, type RestClientConfig } from '../rest/index.js';
import { schema } from '../schema/index.js';
import { drainable } from '../shutdown.js';
import { createContext, type GatewayContext, type GatewayLimits } from '../schema/context.js';
import { useStreamShutdown } from './plugins/useStreamShutdown.js';
import { mergeRequestHooks } from './lib/mergeRequestHooks.js';
import { maskedErrors, useUnexpectedErrorLog, yogaLogging } from './lib/maskedErrors.js';
import { parseCache } from './lib/parseCache.js';
import { DEFAULT_LIST_AND_FIELD_LIMITS, useQueryLimits, type ListAndFieldLimits } from './plugins/useQueryLimits.js';
import { useRequestLog } from './plugins/useRequestLog.js';
import { useRequestErrorCodes } from './plugins/useRequestErrorCodes.js';
import { useGraphQLSSE, type StreamLimits } from './plugins/useGraphQLSSE.js';
import { corsOptions } from './lib/corsOptions.js';
import { graphiqlOptions, renderGraphiQL } from './lib/graphiqlOptions.js';
import { useCSRFPrevention } from './plugins/useCSRFPrevention.js';
import { useRequestBodyLimit } from './plugins/useRequestBodyLimit.js';
import { upstreamCheck, useReadiness, type ReadyCheck } from './plugins/useReadiness.js';
import { createMetrics, type GatewayMetrics, type MetricsOptions } from './metrics.js';
import type { Tracing } from './tracing.js';
import { useCallerRateLimit, type RateLimitFailMode } from './plugins/useCallerRateLimit.js';
import { usePersistedOperations } from './plugins/usePersistedOperations.js';
import { useResponseCache } from './plugins/useResponseCache.js';
import { connectRedis, type RedisHandle } from './redis.js';

export interface GatewayOptions {
  /** Upstream REST base URL ending in `/v1`. */
  upstreamUrl: string;
  port?: number;
  host?: string;
  limits?: Partial<GatewayLimits>;
  rest?: {
    connectTimeoutMs?: number;
    headersTimeoutMs?: number;
    bodyTimeoutMs?: number;
    retries?: number;
    /** A subscription's REST event stream with no data for this long ends with UPSTREAM_UNAVAILABLE (default 60000; 0 disables). */
    streamIdleTimeoutMs?: number;
    /** Deadline of one REST call, retries and waits included (default 30000). */
    requestTimeoutMs?: number;
    /** Retries at most this share (%) of recent REST calls, plus 10 per second (default 20). */
    retryBudgetPercent?: number;
    /** Failures in a row that open the circuit (default 10; 0: no breaker), and its cool-down before a probe (default 5000). */
    circuitThreshold?: number;
    circuitCooldownMs?: number;
    /** Called when the circuit changes state (metrics). */
    onCircuitChange?: (state: 'closed' | 'open' | 'half-open') => void;
    /** REST calls in flight in total (default 128, also the pool's connections) and per caller (default 64). */
    concurrency?: number;
    callerConcurrency?: number;
    /** Waiting REST calls per caller before RATE_LIMITED (default 1000; 10 × in total before UPSTREAM_UNAVAILABLE). */
    queueLimit?: number;
    /** Identical GETs of one caller in flight at once share one REST call (default true). */
    singleFlight?: boolean;
    /** One debug line per REST attempt (default true; false skips formatting them, as at `info`). */
    logCalls?: boolean;
  };
  /** Bounds of an operation besides `limits`: ids per `nodes`/`_entities`, fields per document. */
  queryLimits?: Partial<ListAndFieldLimits>;
  /** Largest request body accepted, in bytes (default 1 MB). */
  maxBodyBytes?: number;
  /** Origins allowed by CORS (absent or empty: CORS off). */
  corsOrigins?: string[];
  /** GraphiQL pre-filled with this token (for loopback visits only) and example query (the embedded upstream's demo). */
  graphiql?: { token?: string; query?: string };
  log?: Logger;
  /** The level `log` writes at: above `debug`, no per-request logging work is done at all (default `debug`: `log` decides). */
  logLevel?: LogLevel;
  /** Caps of graphql-sse's single-connection mode (reservations, queued events). */
  streams?: Partial<StreamLimits>;
  /** Called for each REST attempt (tests count calls with it). */
  onRestCall?: (call: RestCall) => void;
  /** `GET /ready` checks besides the upstream's (e.g. Redis). */
  readyChecks?: ReadyCheck[];
  /** Prometheus metrics at `GET /metrics` (default on; `false` turns them off). */
  metrics?: false | MetricsOptions;
  /** OpenTelemetry tracing, from `startTracing()` (process-wide; absent when off). */
  tracing?: Tracing;
  /** Redis shared by replicas (response cache, caller rate limit, APQ); process memory without it. */
  redisUrl?: string;
  /** Response cache TTL in ms (0 or absent: no response cache). */
  responseCacheTtlMs?: number;
  /** Called with each query result's response-cache hit (true) or miss (false), e.g. for metrics. */
  onResponseCache?: (hit: boolean) => void;
  /** Operations per minute per caller token (0 or absent: no limit). */
  callerRateLimit?: number;
  /** While Redis is down: `open` lets operations through uncounted, `closed` refuses them (default open). */
  callerRateLimitFailMode?: RateLimitFailMode;
  /** Persisted operations (id → document) and whether only they may run; APQ is always accepted otherwise. */
  persistedOperations?: { documents?: Record<string, string>; only?: boolean };
}

export interface Gateway {
  yoga: YogaServerInstance<Record<string, unknown>, GatewayContext>;
  rest: RestClient;
  /** The gateway's metrics (absent when off): feed `onCircuitChange` / `onResponseCache` from the REST client and the response cache. */
  metrics?: GatewayMetrics;
  /** The Redis client when `redisUrl` is set (`isRedisReady()` for /ready); closed by `stop`. */
  redis?: RedisHandle;
  /** `http://host:port/graphql`, after start. */
  readonly url: string;
  start(): Promise<string>;
  stop(): Promise<void>;
}

export const DEFAULT_LIMITS: GatewayLimits = {
  defaultPageSize: 20,
  maxPageSize: 100,
  maxDepth: 16,
  maxAliases: 30,
  maxTokens: 2000,
  maxCost: 50_000,
};

/** Retry budget, circuit breaker, concurrency bounds and single-flight of the REST client. */
function restReliability(rest: GatewayOptions['rest'] = {}): Partial<RestClientConfig> {
  return {
    requestTimeout: rest.requestTimeoutMs,
    retryBudget: rest.retryBudgetPercent === undefined ? undefined : { percent: rest.retryBudgetPercent },
    circuit: { threshold: rest.circuitThreshold, cooldownMs: rest.circuitCooldownMs },
    onCircuitChange: rest.onCircuitChange,
    connections: rest.concurrency,
    concurrency: { total: rest.concurrency, perCaller: rest.callerConcurrency, queuePerCaller: rest.queueLimit },
    singleFlight: rest.singleFlight,
  };
}
export const DEFAULT_MAX_BODY_BYTES = 1_000_000;

export function buildGateway(options: GatewayOptions): Gateway {
  const log = options.log ?? silentLogger;
  const limits: GatewayLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const metrics = options.metrics === false ? undefined : createMetrics(options.metrics);
  const debug = (options.logLevel ?? 'debug') === 'debug';
  const rest = createRestClient({
    baseUrl: options.upstreamUrl,
    connectTimeout: options.rest?.connectTimeoutMs,
    headersTimeout: options.rest?.headersTimeoutMs,
    bodyTimeout: options.rest?.bodyTimeoutMs,
    streamIdleTimeout: options.rest?.streamIdleTimeoutMs,
    retry: options.rest?.retries === undefined ? undefined : { maxAttempts: options.rest.retries + 1 },
    onRequest: fanOut(options.onRestCall, metrics?.onRestCall),
    log: options.rest?.logCalls === false ? undefined : (line) => log.debug(line),
    ...restReliability(options.rest),
    onCircuitChange: fanOut(options.rest?.onCircuitChange, metrics?.onCircuitChange),
    logger: log,
  });

  const redis = options.redisUrl ? connectRedis({ url: options.redisUrl, log }) : undefined;
  const streams = useStreamShutdown();
  const yoga = createYoga<Record<string, unknown>, GatewayContext>({
    schema,
    // Subscriptions: Yoga's own SSE at /graphql, the graphql-sse protocol (both modes) at /graphql/stream.
    // The plugins' onRequest hooks run as one, in this order (see mergeRequestHooks.ts).
    plugins: mergeRequestHooks([
      // Before graphql-sse (which answers in onRequest); Yoga's own bound is off (see the plugin).
      useRequestBodyLimit(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES),
      ...(options.tracing ? [options.tracing.plugin] : []),
      // GET /ready (GET /health is Yoga's built-in liveness check).
      useReadiness([upstreamCheck(options.upstreamUrl), ...(redis ? [redisCheck(redis)] : []), ...(options.readyChecks ?? [])]),
      useGraphQLSSE({ endpoint: '/graphql/stream', limits: options.streams, log }),
      // @defer and @stream: incremental delivery over multipart/mixed and SSE.
      useDeferStream(),
      streams.plugin,
      // Scaling out, in this order: count the operation, resolve a persisted id, then answer from the cache.
      ...(options.callerRateLimit
        ? [useCallerRateLimit({ limit: options.callerRateLimit, failMode: options.callerRateLimitFailMode, redis, log })]
        : []),
      ...usePersistedOperations({ ...options.persistedOperations, redis, log }),
      ...(options.responseCacheTtlMs
        ? useResponseCache({ ttlMs: options.responseCacheTtlMs, redis, log, onResponseCache: fanOut(options.onResponseCache, metrics?.onResponseCache) })
        : []),
      // Depth, aliases, tokens and cost, rejected with BAD_USER_INPUT before execution (no REST call).
      ...useQueryLimits({ ...DEFAULT_LIST_AND_FIELD_LIMITS, ...limits, ...options.queryLimits }),
      // Parse, validation and variable errors carry a code of the fixed set too (BAD_USER_INPUT).
      useRequestErrorCodes(),
      // Unexpected errors: one ERROR line with the operation's name and document hash, before Yoga masks them.
      useUnexpectedErrorLog(log),
      // A request must be JSON or carry a non-simple header (403 FORBIDDEN); no mutation over GET (Yoga: 405).
      useCSRFPrevention(),
      ...(debug ? [useRequestLog(log)] : []),
      ...(metrics?.plugins ?? []),
    ]),
    // Unexpected errors reach the client as `Unexpected error.` with no message, stack or cause.
    maskedErrors,
    // Parsed documents by text, bounded in bytes (see parseCache.ts), not only in entries.
    parserAndValidationCache: parseCache(),
    maxRequestBodySize: false,
    // No file uploads in this graph: one request parser (hook) less per request; a multipart POST is 415.
    multipart: false,
    graphqlEndpoint: '/graphql',
    // `{"documentId": …}` requests run a persisted operation.
    extraParamNames: ['documentId'],
    landingPage: false,
    // Errors logged by class, message and path, never with the document around them (maskedErrors.ts).
    logging: yogaLogging(log, debug),
    cors: corsOptions(options.corsOrigins),
    // GraphiQL's assets are served by the gateway itself (no CDN), so it works offline too; loaded on the first visit.
    renderGraphiQL,
    graphiql: graphiqlOptions(options.graphiql),
    context: ({ request, req }: { request: Request; req?: ArrivedRequest }) =>
      createContext(
        rest.forCaller(request.headers.get('authorization') ?? undefined, { signal: request.signal, arrival: req?.[ARRIVAL] }),
        limits,
        log,
        request.signal,
        streams.signal,
      ),
  });

  // Each HTTP request is registered with the REST client as it arrives (before its body is read)
  // and until its response closes, so requests of one caller that overlap share their identical
  // reads, even those the gateway gets to after another's call is back (src/rest/client.ts).
  const server: Server = createServer((req: ArrivedRequest, res) => {
    const arrival = rest.arrive(req.headers.authorization);
    if (arrival) {
      req[ARRIVAL] = arrival;
      res.once('close', arrival.close);
    }
    return yoga.requestListener(req, res);
  });
  const drainer = drainable(server);
  let url = '';

  return {
    yoga,
    rest,
    metrics,
    redis,
    get url() {
      return url;
    },
    async start() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
      });
      const { address, port } = server.address() as AddressInfo;
      url = `http://${address.includes(':') ? `[${address}]` : address}:${port}/graphql`;
      return url;
    },
    async stop() {
      const closed = drainer.close(5000);
      // Open subscriptions complete and their event streams end, so their connections close too.
      await streams.close();
      await closed;
      await yoga.dispose?.();
      await rest.close();
      await redis?.close();
    },
  };
}

/** The REST client's registration of an HTTP request (see the server above). */
const ARRIVAL = Symbol('arrival');
type ArrivedRequest = IncomingMessage & { [ARRIVAL]?: Arrival };

/** One callback calling each of the given ones (undefined when none). */
function fanOut<T>(...callbacks: Array<((value: T) => void) | undefined>): ((value: T) => void) | undefined {
  const set = callbacks.filter((c): c is (value: T) => void => c !== undefined);
  if (set.length <= 1) return set[0];
  return (value) => set.forEach((c) => c(value));
}

/** `/ready` fails while the shared Redis is unreachable (the gateway still answers, bypassing it). */
const redisCheck = (redis: RedisHandle): ReadyCheck => ({ name: 'redis', check: async () => redis.isRedisReady() });
