/** buildGateway(options) → {yoga, start, stop}: the GraphQL server in front of the REST API. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { DEFAULTS, withDefaults, type Config } from '../config.js';
import { silentLogger, type Logger } from '../log.js';
import {
  BytesInFlight,
  createRestClient,
  provenBudget,
  systemClock,
  type Arrival,
  type Clock,
  type RestCall,
  type RestClient,
  type RestClientConfig,
} from '../rest/index.js';
import { schema } from '../schema/index.js';
import { ANSWER_MS, drainable } from '../shutdown.js';
import { acceptWarnings, listenOn } from '../serverBounds.js';
import { createContext, type GatewayContext, type GatewayLimits } from '../schema/context.js';
import { defaultResultValuesInFlight, ResultValues } from '../schema/lib/resultValues.js';
import { useAcceptWeights } from './plugins/useAcceptWeights.js';
import { useRequestContentType } from './plugins/useRequestContentType.js';
import { useMessageFraming } from './plugins/useMessageFraming.js';
import { useClientIntrospection } from './plugins/useClientIntrospection.js';
import { introspectionWorker, type IntrospectionWorker } from './lib/introspectionWorker.js';
import { useStreamShutdown } from './plugins/useStreamShutdown.js';
import { mergeRequestHooks } from './lib/mergeRequestHooks.js';
import { boundedErrorLog, maskedErrors, UNEXPECTED_ERROR_MESSAGE, useUnexpectedErrorLog, yogaLogging } from './lib/maskedErrors.js';
import { errorBody } from './lib/errorResponse.js';
import { validRequestUrl } from './lib/requestPath.js';
import { parseCache, useForgetInvalidDocuments } from './lib/parseCache.js';
import { useHeldDocuments } from './plugins/useHeldDocuments.js';
import { useQueryLimits, useRequestBounds, type InFlightLimit } from './plugins/useQueryLimits.js';
import { useRequestLog } from './plugins/useRequestLog.js';
import { useRequestErrorCodes } from './plugins/useRequestErrorCodes.js';
import { useOneRuleValidation } from './plugins/useOneRuleValidation.js';
import { useGraphQLSSE, type StreamLimits } from './plugins/useGraphQLSSE.js';
import { corsOptions, useVaryOrigin } from './lib/corsOptions.js';
import { defaultRequestBytesInFlight, requestBytesInFlight } from './lib/requestBytesInFlight.js';
import { graphiqlOptions, renderGraphiQL } from './lib/graphiqlOptions.js';
import { useGraphiQLAssets } from './lib/graphiqlAssets.js';
import { useCSRFPrevention } from './plugins/useCSRFPrevention.js';
import { anonymousBodyBytes, useAnonymousBodyLimit, useRequestBodyLimit } from './plugins/useRequestBodyLimit.js';
import { upstreamCheck, useReadiness, type ReadyCheck } from './plugins/useReadiness.js';
import { createMetrics, type GatewayMetrics, type MetricsOptions } from './metrics.js';
import type { Tracing } from './tracing.js';
import { useCallerBytes } from './plugins/useCallerBytes.js';
import { useCallerRateLimit } from './plugins/useCallerRateLimit.js';
import { callerIdentifier, useCallerIdentity } from './plugins/useCallerIdentity.js';
import { callerBudget } from './lib/callerHash.js';
import { headerValue, leaveSignalOf, plainPost } from './lib/plainPost.js';
import { isChunkedPost, readChunkedBody } from './lib/chunkedBody.js';
import { useOperationEnd } from './plugins/useOperationEnd.js';
import { usePersistedOperations, type PersistedOperationsOptions } from './plugins/usePersistedOperations.js';
import { useResponseCache } from './plugins/useResponseCache.js';
import { connectRedis, type RedisHandle, type RedisOptions } from './redis.js';
import { boundServer, closeWhenAnswered, onePerConnection, whenResponseDone, type HttpBounds } from './lib/httpBounds.js';
import { SharedBodies } from './lib/sharedBodies.js';
import { DEFAULT_COMPRESS_MIN_BYTES, useCompression } from './plugins/useCompression.js';
import { TEXT_CHECK_MIN_BYTES } from './plugins/useMaxVariablesDepth.js';

/**
 * The settings `buildGateway` takes as the config has them (their meaning and defaults are in
 * src/config.ts): `index.ts` passes the parsed config through. Absent, a setting takes the table's
 * default, except: `port` 0 (any free port); `logLevel` `debug` (`log` decides: above `debug` no
 * per-request logging work is done at all); `anonymousRateLimit`, `callerRateLimit`,
 * `responseCacheTtlMs` off; `corsOrigins` (or empty): CORS off; `redisUrl`: process memory.
 */
export type GatewaySettings = Pick<
  Config,
  | 'port'
  | 'host'
  | 'logLevel'
  | 'maxBodyBytes'
  | 'corsOrigins'
  | 'redisUrl'
  | 'redisRequired'
  | 'responseCacheTtlMs'
  | 'maxRestCalls'
  | 'trustProxyHops'
  | 'anonymousRateLimit'
  | 'callerRateLimit'
  | 'callerRateLimitFailMode'
>;

export interface GatewayOptions extends Partial<GatewaySettings> {
  /** Upstream REST base URL ending in `/v1`. */
  upstreamUrl: string;
  /** The operation limits and page sizes (the `limits` settings; absent ones take the table's defaults). */
  limits?: Partial<GatewayLimits> & InFlightLimit;
  /**
   * The options `createRestClient` takes: the `rest` settings (absent ones take the table's
   * defaults) and the client's own (request deadline, stream idle timeout, single-flight, circuit
   * callbacks, besides metrics'), as they are named there.
   */
  rest?: Omit<RestClientConfig, 'baseUrl' | 'onRequest' | 'log' | 'logger' | 'clock'> & {
    /** One debug line per REST attempt (default true; false skips formatting them, as at `info`). */
    logCalls?: boolean;
  };
  /** Timeouts of receiving a request, keep-alive, and the connection cap of the HTTP server. */
  http?: Partial<HttpBounds>;
  /** Responses of at least this many bytes are compressed (br or gzip) for clients that accept it (default 1024). */
  compressMinBytes?: number;
  /** GraphiQL pre-filled with this token (for loopback visits only) and example query (the embedded upstream's demo). */
  graphiql?: { token?: string; query?: string };
  log?: Logger;
  /** Caps of graphql-sse's single-connection mode (reservations, queued events). */
  streams?: Partial<StreamLimits>;
  /** Most rate-limit windows counted in process at once (default MAX_LOCAL_WINDOWS of useCallerRateLimit.ts). */
  rateLimitWindows?: number;
  /** Called for each REST attempt (tests count calls with it). */
  onRestCall?: (call: RestCall) => void;
  /** Time of the REST client (deadlines, backoff, circuits), of graphql-sse reservations and of `/ready` (its timeouts and reuse); default the process's, tests pass a fake one. */
  clock?: Clock;
  /** `GET /ready` checks besides the upstream's (e.g. Redis). */
  readyChecks?: ReadyCheck[];
  /** Prometheus metrics at `GET /metrics` (default on; `false` turns them off). */
  metrics?: false | MetricsOptions;
  /** OpenTelemetry tracing, from `startTracing()` (process-wide; absent when off). */
  tracing?: Tracing;
  /** Redis client timeouts and breaker (cool-down, clock). */
  redis?: Omit<RedisOptions, 'url' | 'log'>;
  /** Called with each query result's response-cache hit (true) or miss (false), e.g. for metrics. */
  onResponseCache?: (hit: boolean) => void;
  /** Persisted operations (id → document), whether only they may run (APQ is accepted otherwise) and APQ's bounds. */
  persistedOperations?: Omit<PersistedOperationsOptions, 'redis' | 'log'>;
}

export interface Gateway {
  yoga: YogaServerInstance<Record<string, unknown>, GatewayContext>;
  rest: RestClient;
  /** The gateway's metrics (absent when off): feed `onCircuitChange` / `onResponseCache` from the REST client and the response cache. */
  metrics?: GatewayMetrics;
  /** The Redis client when `redisUrl` is set (`isRedisReady()` for /ready); closed by `stop`. */
  redis?: RedisHandle;
  /** Executes introspection-only operations in a worker thread (started on first need, ended by `stop`). */
  introspection: IntrospectionWorker;
  /** Values the operations' connections build at once (schema/lib/resultValues.ts). */
  resultValues: BytesInFlight;
  /** `http://host:port/graphql`, after start. */
  readonly url: string;
  start(): Promise<string>;
  /**
   * Stops accepting, ends open subscriptions and their streams, lets requests in flight finish;
   * after `graceMs` (default 5 s) the REST calls still out are given up (their operations answered
   * `UPSTREAM_UNAVAILABLE`, a write's "may have been made"), and the connections still open a
   * second later are destroyed.
   */
  stop(graceMs?: number): Promise<void>;
}

/** The gateway; absent options of the settings' table take its defaults (`DEFAULTS`), so callers may pass some only. */
export function buildGateway(options: GatewayOptions): Gateway {
  const log = options.log ?? silentLogger;
  // The ERROR lines of unexpected errors, bounded (maskedErrors.ts).
  const errorLog = boundedErrorLog(log, () => (options.clock ?? systemClock).now());
  const limits = { ...withDefaults(DEFAULTS.limits, options.limits), responseBytesInFlight: options.limits?.responseBytesInFlight };
  // Whether the request's token is one the REST API accepted: only such callers add operation names
  // to the labels and span names (metrics.ts, plugins/useTracing.ts) and have response-cache sessions.
  const acceptedToken = (request: Request) => rest.identify(request.headers.get('authorization') ?? undefined, undefined).proven;
  // Bodies the same for every caller (kept introspection answers, /metrics' renders), compressed once (lib/sharedBodies.ts).
  const sharedBodies = new SharedBodies();
  const metrics =
    options.metrics === false ? undefined : createMetrics({ namesFrom: acceptedToken, shared: sharedBodies, ...options.metrics });
  const debug = (options.logLevel ?? 'debug') === 'debug';
  const rest = createRestClient({
    ...options.rest,
    baseUrl: options.upstreamUrl,
    onRequest: fanOut(options.onRestCall, metrics?.onRestCall),
    log: options.rest?.logCalls === false ? undefined : (line) => log.debug(line),
    onCircuitChange: fanOut(options.rest?.onCircuitChange, metrics?.onCircuitChange),
    onCircuitRefusal: fanOut(options.rest?.onCircuitRefusal, metrics?.onCircuitRefusal),
    logger: log,
    clock: options.clock,
  });
  const maxRestCalls = options.maxRestCalls ?? DEFAULTS.maxRestCalls;
  // Values the operations' connections build at once, across requests (schema/lib/resultValues.ts).
  const resultValues = new BytesInFlight(options.limits?.resultValuesInFlight ?? defaultResultValuesInFlight());

  // Redis's largest reply: a lookup's (two results of at most maxResponseBytes, its generations).
  const maxReplyBytes = 2 * limits.maxResponseBytes + 1024 * 1024;
  const redis = options.redisUrl ? connectRedis({ maxReplyBytes, ...options.redis, url: options.redisUrl, log }) : undefined;
  const rateLimit =
    options.callerRateLimit || options.anonymousRateLimit
      ? useCallerRateLimit({
          limit: options.callerRateLimit ?? 0,
          anonymousLimit: options.anonymousRateLimit,
          failMode: options.callerRateLimitFailMode,
          redis,
          log,
          clock: options.clock,
          maxLocalWindows: options.rateLimitWindows,
        })
      : undefined;
  // Who a request's caller is: one rule for the plugin below and for the server's refusal on arrival.
  const identify = callerIdentifier(rest, options.trustProxyHops, options.http?.ipv6Prefix);
  const identifyArrival = (req: IncomingMessage) =>
    identify(req.headers.authorization, req.socket.remoteAddress, headerValue(req.headers['x-forwarded-for']));
  // A caller over its rate limit is refused by the server itself, before Yoga builds a Request for
  // it; with CORS on, by the plugin (Yoga adds the CORS headers a browser needs to read the 429).
  const refuseOnArrival = rateLimit && !options.corsOrigins?.length ? rateLimit.refuseOnArrival : undefined;
  const streams = useStreamShutdown();
  const introspection = introspectionWorker({ log, maxBytes: limits.maxResponseBytes });
  // Parsed documents by text, bounded in bytes (see parseCache.ts), not only in entries.
  const parsed = parseCache();
  const yoga = createYoga<Record<string, unknown>, GatewayContext>({
    schema,
    // Subscriptions: Yoga's own SSE at /graphql, the graphql-sse protocol (both modes) at /graphql/stream.
    // The plugins' onRequest hooks run as one, in this order (see mergeRequestHooks.ts).
    plugins: mergeRequestHooks([
      // Before graphql-sse (which answers in onRequest); Yoga's own bound is off (see the plugin).
      useRequestBodyLimit(options.maxBodyBytes ?? DEFAULTS.maxBodyBytes),
      // Who the caller is (its key, its client address, whom its work counts against), before anyone asks.
      useCallerIdentity(identify),
      // Without an accepted token, a body of at most twice the document bound, refused before it is read.
      useAnonymousBodyLimit(limits.maxDocumentBytes, options.maxBodyBytes ?? DEFAULTS.maxBodyBytes),
      // The body's type in any case (RFC 9110), a charset other than UTF-8 refused (415), before a parser reads it.
      useRequestContentType(),
      ...(options.tracing ? [options.tracing.plugin(acceptedToken)] : []),
      // GET /ready (GET /health is Yoga's built-in liveness check).
      useReadiness(
        [upstreamCheck(options.upstreamUrl), ...(redis ? [redisCheck(redis, options.redisRequired)] : []), ...(options.readyChecks ?? [])],
        { clock: options.clock },
      ),
      useGraphQLSSE({
        endpoint: '/graphql/stream',
        limits: options.streams,
        log,
        clock: options.clock,
        anonymousIntrospection: limits.anonymousIntrospection ?? false,
      }),
      // GraphiQL's scripts, styles and icon: built once on the first visit, served precompressed.
      useGraphiQLAssets(),
      // @defer and @stream: incremental delivery over multipart/mixed and SSE.
      useDeferStream(),
      // The result's media type by `Accept`'s weights (Yoga's processors read its order only).
      useAcceptWeights(),
      // Introspection shows the client schema (schema.graphql), not the federation plumbing; an
      // introspection-only operation is executed in a worker thread (set first, run after every check).
      useClientIntrospection(introspection),
      streams.plugin,
      // The REST answers an operation read count as held until its execution is over (src/rest/bytesInFlight.ts).
      useOperationEnd(options.clock ?? systemClock),
      // Scaling out, in this order: count the operation, resolve a persisted id, then answer from the cache.
      ...(rateLimit ? [rateLimit] : []),
      // Variables depth, document and response bytes, before persisted operations and the cache (see useRequestBounds).
      ...useRequestBounds(limits),
      // Large results served without a REST call count against the caller's bytes (as the bound
      // above measured them); a caller in debt waits.
      useCallerBytes(rest.bytes, options.clock ?? systemClock, options.rest?.requestTimeoutMs),
      ...usePersistedOperations({ ...options.persistedOperations, redis, log }),
      // Before the plugins that stop execution (the kept introspection answers, the cost and list
      // limits, the introspection access check): their operations are counted and timed too. A
      // response-cache hit is answered before execution and counted by the cache's own counter.
      ...(metrics?.plugins ?? []),
      ...(options.responseCacheTtlMs || redis
        ? useResponseCache({
            ttlMs: options.responseCacheTtlMs ?? 0,
            // Without a cache of its own, a replica sharing Redis still makes the others' results stale.
            invalidateOnly: !options.responseCacheTtlMs,
            redis,
            log,
            onResponseCache: fanOut(options.onResponseCache, metrics?.onResponseCache),
            parsedDocument: (query) => parsed.documentCache.get(query),
            tookEarlierRead: (context) => (context as Partial<GatewayContext>).caller?.tookEarlierRead() ?? false,
            accepted: acceptedToken,
            vouch: (request) => rest.vouch(request.headers.get('authorization')),
            // Whose a session is: `GET /user` with its own token, only once the REST API has accepted that token.
            userOf: (request) => {
              if (!acceptedToken(request)) return undefined;
              return rest
                .forCaller(request.headers.get('authorization') ?? undefined, { budget: callerBudget(request), maxCalls: 1 })
                .get<{ id?: unknown }>('/user')
                .then((user) => (typeof user?.id === 'string' ? user.id : undefined));
            },
          })
        : []),
      // Validation of a new document: graphql-js's rules (and the limits' below) visited as one rule.
      useOneRuleValidation(),
      // A document that failed validation is not kept (its errors would be, uncounted).
      useForgetInvalidDocuments(parsed.documentCache),
      // Depth, aliases, tokens and cost, rejected with BAD_USER_INPUT before execution (no REST call).
      ...useQueryLimits(limits, sharedBodies),
      // A document parsed for a request holds what its parse built of the bodies budget (after the
      // tokens' parser, which this one wraps).
      useHeldDocuments(),
      // Parse, validation and variable errors carry a code of the fixed set too (BAD_USER_INPUT).
      useRequestErrorCodes(),
      // Unexpected errors: one ERROR line with the operation's name and document hash, before Yoga masks them.
      useUnexpectedErrorLog(errorLog),
      // A request must be JSON or carry a non-simple header (403 FORBIDDEN); no mutation over GET (Yoga: 405).
      useCSRFPrevention(),
      ...(debug ? [useRequestLog(log)] : []),
      ...useVaryOrigin(options.corsOrigins),
      // `Transfer-Encoding` is node:http's to choose (none to an HTTP/1.0 client).
      useMessageFraming(),
      // Last: compresses the response every other plugin has finished.
      useCompression(options.compressMinBytes ?? DEFAULT_COMPRESS_MIN_BYTES, sharedBodies),
    ]),
    // Unexpected errors reach the client as `Unexpected error.` with no message, stack or cause.
    maskedErrors,
    parserAndValidationCache: parsed,
    maxRequestBodySize: false,
    // No file uploads in this graph: one request parser (hook) less per request; a multipart POST is 415.
    multipart: false,
    graphqlEndpoint: '/graphql',
    // `{"documentId": …}` requests run a persisted operation.
    extraParamNames: ['documentId'],
    landingPage: false,
    // Errors logged by class, message and path, never with the document around them (maskedErrors.ts).
    logging: yogaLogging(errorLog, debug),
    cors: corsOptions(options.corsOrigins),
    // GraphiQL's assets are served by the gateway itself (no CDN), so it works offline too; loaded on the first visit.
    renderGraphiQL,
    graphiql: graphiqlOptions(options.graphiql),
    context: ({ request, req, res }: { request: Request; req?: ArrivedRequest; res?: ServerResponse }) => {
      const caller = rest.forCaller(request.headers.get('authorization') ?? undefined, {
        signal: leaveSignalOf(request),
        arrival: req?.[ARRIVAL],
        budget: callerBudget(request),
        maxCalls: maxRestCalls,
        holdAnswers: true,
      });
      // Its answers are held until its execution is over (useOperationEnd) or, at the latest, its
      // response closes (a streamed result that is never read: Yoga drops it without ending it).
      // Also when it closed before the context was built, or its pipelined connection went (httpBounds.ts).
      const values = new ResultValues(limits.maxResultValues, { budget: resultValues, caller: callerBudget(request) });
      if (res)
        whenResponseDone(req, res, () => {
          caller.end();
          values.end();
        });
      return createContext(caller, limits, log, () => request.signal, streams.signal, values);
    },
  });

  // Each HTTP request is registered with the REST client as it arrives (before its body is read)
  // and until its response closes, so requests of one caller that overlap share their identical
  // reads, even those the gateway gets to after another's call is back (src/rest/singleFlight.ts).
  // Read once: the server adapter is a Proxy that binds the listener anew on every read.
  const yogaListener = yoga.requestListener;
  // A small POST of a JSON operation skips Yoga's Fetch API layer (lib/plainPost.ts says which
  // of its steps that skips and why they change nothing for such a request). Not with tracing,
  // whose instrumentation wraps the layer's steps.
  const plain = options.tracing
    ? undefined
    : plainPost({
        yoga: yoga as never,
        // Under each body bound (useRequestBodyLimit's, useAnonymousBodyLimit's) and under the
        // size from which the variables' depth is checked before parsing (useMaxVariablesDepth).
        maxBytes: Math.min(TEXT_CHECK_MIN_BYTES, options.maxBodyBytes ?? DEFAULTS.maxBodyBytes, 2 * limits.maxDocumentBytes),
        fallback: yogaListener,
        documents: parsed.documentCache,
        clock: options.clock ?? systemClock,
      });
  // Bytes of request bodies held at once, across requests (lib/requestBytesInFlight.ts).
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
  const bodies = requestBytesInFlight(options.limits?.requestBytesInFlight ?? defaultRequestBytesInFlight(maxBodyBytes), maxBodyBytes);
  const server: Server = createServer(
    onePerConnection((req: ArrivedRequest, res) => {
      // What runs here before Yoga's listener (which catches its own errors) must not throw: a throw
      // in node:http's request listener ends the process. Nothing known throws; if something does,
      // the request gets a 500 and the gateway goes on.
      try {
        if (!validRequestUrl(req.headers.host, req.url, () => adapterAuthority(req))) {
          res.writeHead(400, jsonHeaders(BAD_URL_BODY)).end(BAD_URL_BODY);
          return;
        }
        // A transfer coding besides `chunked` (`gzip, chunked`): node:http unchunks the body and
        // hands on the rest as is, which no parser here decodes (RFC 9112: 501).
        const coding = req.headers['transfer-encoding'];
        if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked') {
          res.writeHead(501, { ...jsonHeaders(CODING_BODY), connection: 'close' }).end(CODING_BODY);
          closeWhenAnswered(req, res);
          return;
        }
        // A content coding (`gzip`): no parser here decodes one, so a gzip body was answered 400
        // "invalid JSON" and a plain one labelled gzip was run as it came (RFC 9110: 415, and
        // `Accept-Encoding` names the codings taken).
        const contentCoding = req.headers['content-encoding']?.trim().toLowerCase();
        if (contentCoding && contentCoding !== 'identity') {
          res
            .writeHead(415, { ...jsonHeaders(CONTENT_CODING_BODY), 'accept-encoding': 'identity', connection: 'close' })
            .end(CONTENT_CODING_BODY);
          closeWhenAnswered(req, res);
          return;
        }
        if (refuseOnArrival?.(req, res, identifyArrival)) return;
        if (!bodies.admit(req, res, () => provenBudget(identifyArrival(req)))) return;
        const arrival = rest.arrive(req.headers.authorization);
        if (arrival) {
          req[ARRIVAL] = arrival;
          whenResponseDone(req, res, arrival.close);
        }
        if (plain?.(req, res)) return;
        // A chunked body is read here rather than through the Fetch API layer (lib/chunkedBody.ts),
        // up to its caller's body bound (useRequestBodyLimit's or useAnonymousBodyLimit's: those refuse it).
        if (isChunkedPost(req)) {
          const { budget, address } = identifyArrival(req);
          const bound = budget === address ? anonymousBodyBytes(limits.maxDocumentBytes, maxBodyBytes) : maxBodyBytes;
          return readChunkedBody(req, res, bound, () => yogaListener(req, res));
        }
        return yogaListener(req, res);
      } catch (error) {
        log.error('request failed before the GraphQL server (a bug): answered 500', { error: (error as Error)?.name ?? String(error) });
        if (res.headersSent) res.destroy();
        else res.writeHead(500, jsonHeaders(UNEXPECTED_BODY)).end(UNEXPECTED_BODY);
      }
    }),
  );
  boundServer(server, options.http, (options.trustProxyHops ?? 0) > 0);
  const drainer = drainable(server);
  let url = '';

  return {
    yoga,
    rest,
    metrics,
    redis,
    introspection,
    resultValues,
    get url() {
      return url;
    },
    async start() {
      if (url) return url;
      await listenOn(server, options.port ?? 0, options.host ?? DEFAULTS.host, acceptWarnings(log, 'gateway'));
      const { address, port } = server.address() as AddressInfo;
      url = `http://${address.includes(':') ? `[${address}]` : address}:${port}/graphql`;
      return url;
    },
    async stop(graceMs = 5000) {
      // Past the grace, operations still waiting for REST calls are answered without them.
      const closed = drainer.close(graceMs, () => rest.leaveAll());
      // Open subscriptions complete and their event streams end, so their connections close too;
      // incremental deliveries end first, their REST calls answered or given up (at graceMs).
      await streams.close(graceMs + ANSWER_MS);
      await closed;
      await introspection.close();
      await yoga.dispose?.();
      await rest.close();
      await redis?.close();
    },
  };
}

/**
 * The answer to a request the server failed to hand to Yoga (see the server above), with the code
 * unexpected errors take everywhere (maskedErrors.ts: the set of codes is fixed).
 */
const UNEXPECTED_BODY = errorBody({ message: UNEXPECTED_ERROR_MESSAGE, extensions: { code: 'UPSTREAM_ERROR' } });

/** Headers of an error answered by the server itself, which then closes the connection. */
const jsonHeaders = (body: string) => ({
  'content-type': 'application/json; charset=utf-8',
  'content-length': Buffer.byteLength(body),
  connection: 'close',
});

/** The authority the server adapter takes for a request without `Host` (whatwg-node's getHostnameWithPort). */
function adapterAuthority(req: IncomingMessage): string {
  const ip = req.socket?.localAddress;
  return ip && !ip.includes('::') && !ip.includes('ffff') ? `${ip}:${req.socket.localPort}` : 'localhost';
}

/** The answer to a request whose `Host` and target make no URL (lib/requestPath.ts). */
const BAD_URL_BODY = errorBody({
  message: 'Bad request: the Host header and the request target do not make a valid URL, or one whose path is the target’s.',
  extensions: { code: 'BAD_USER_INPUT' },
});

const CODING_BODY = errorBody({
  message: 'Not implemented: a request body may be sent chunked, with no other transfer coding.',
  extensions: { code: 'BAD_USER_INPUT' },
});

const CONTENT_CODING_BODY = errorBody({
  message: 'Unsupported Media Type: a request body is taken without a content coding (no Content-Encoding, or identity).',
  extensions: { code: 'BAD_USER_INPUT' },
});

/** The REST client's registration of an HTTP request (see the server above). */
const ARRIVAL = Symbol('arrival');
type ArrivedRequest = IncomingMessage & { [ARRIVAL]?: Arrival };

/** One callback calling each of the given ones (undefined when none). */
function fanOut<T>(...callbacks: Array<((value: T) => void) | undefined>): ((value: T) => void) | undefined {
  const set = callbacks.filter((c): c is (value: T) => void => c !== undefined);
  if (set.length <= 1) return set[0];
  return (value) => set.forEach((c) => c(value));
}

/** Redis unreachable or skipped by the breaker (not merely slow): reported by `/ready`, which fails only if Redis is required (the gateway answers without it). */
const redisCheck = (redis: RedisHandle, required = false): ReadyCheck => ({
  name: 'redis',
  optional: !required,
  check: async () => redis.isRedisReady({ evenIfSlow: true }),
});
