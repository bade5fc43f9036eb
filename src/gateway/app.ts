/** buildGateway(options) → {yoga, start, stop}: the GraphQL server in front of the REST API. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useGraphQLSSE } from '@graphql-yoga/plugin-graphql-sse';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { silentLogger, type Logger } from '../log.js';
import { createRestClient, type RestCall, type RestClient } from '../rest/index.js';
import { schema } from '../schema/index.js';
import { drainable } from '../shutdown.js';
import { createContext, type GatewayContext, type GatewayLimits } from '../schema/context.js';
import { useStreamShutdown } from './plugins/streamShutdown.js';
import { maskedErrors } from './plugins/maskedErrors.js';
import { useQueryLimits } from './plugins/useQueryLimits.js';
import { useRequestLog } from './plugins/useRequestLog.js';
import { useRequestErrorCodes } from './plugins/requestErrorCodes.js';

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
  };
  /** GraphiQL pre-filled with this token and example query (the embedded upstream's demo). */
  graphiql?: { token?: string; query?: string };
  log?: Logger;
  /** Called for each REST attempt (tests count calls with it). */
  onRestCall?: (call: RestCall) => void;
}

export interface Gateway {
  yoga: YogaServerInstance<Record<string, unknown>, GatewayContext>;
  rest: RestClient;
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

export function buildGateway(options: GatewayOptions): Gateway {
  const log = options.log ?? silentLogger;
  const limits: GatewayLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const rest = createRestClient({
    baseUrl: options.upstreamUrl,
    connectTimeout: options.rest?.connectTimeoutMs,
    headersTimeout: options.rest?.headersTimeoutMs,
    bodyTimeout: options.rest?.bodyTimeoutMs,
    streamIdleTimeout: options.rest?.streamIdleTimeoutMs,
    retry: options.rest?.retries === undefined ? undefined : { maxAttempts: options.rest.retries + 1 },
    onRequest: options.onRestCall,
    log: (line) => log.debug(line),
  });

  const streams = useStreamShutdown();
  const yoga = createYoga<Record<string, unknown>, GatewayContext>({
    schema,
    // Subscriptions: Yoga's own SSE at /graphql, the graphql-sse protocol (both modes) at /graphql/stream.
    plugins: [
      useGraphQLSSE({ endpoint: '/graphql/stream' }),
      streams.plugin,
      // Depth, aliases, tokens and cost, rejected with BAD_USER_INPUT before execution (no REST call).
      ...useQueryLimits(limits),
      // Parse, validation and variable errors carry a code of the fixed set too (BAD_USER_INPUT).
      useRequestErrorCodes(),
      useRequestLog(log),
    ],
    // Unexpected errors reach the client as `Unexpected error.` with no message, stack or cause.
    maskedErrors,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: {
      debug: (...args) => log.debug(args.map(String).join(' ')),
      info: (...args) => log.info(args.map(String).join(' ')),
      warn: (...args) => log.warn(args.map(String).join(' ')),
      error: (...args) => log.error(args.map(String).join(' ')),
    },
    // GraphiQL's assets are served by the gateway itself (no CDN), so it works offline too.
    renderGraphiQL,
    graphiql: {
      title: 'docs-graph',
      defaultQuery: options.graphiql?.query,
      headers: options.graphiql?.token ? JSON.stringify({ Authorization: `Bearer ${options.graphiql.token}` }, null, 2) : undefined,
    },
    context: ({ request }) =>
      createContext(
        rest.forCaller(request.headers.get('authorization') ?? undefined, { signal: request.signal }),
        limits,
        log,
        request.signal,
        streams.signal,
      ),
  });

  const server: Server = createServer(yoga);
  const drainer = drainable(server);
  let url = '';

  return {
    yoga,
    rest,
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
    },
  };
}
