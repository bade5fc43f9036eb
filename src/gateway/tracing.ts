/**
 * OpenTelemetry tracing through the standard Node SDK and OTLP/HTTP exporter, configured by the
 * standard `OTEL_*` environment variables: on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, unless `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none`. `OTEL_SERVICE_NAME` (default `docs-graph`), `OTEL_RESOURCE_ATTRIBUTES`,
 * `OTEL_TRACES_SAMPLER(_ARG)`, `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_BSP_*` work as everywhere.
 * Process-global (one tracer provider, W3C trace-context propagation); when off, nothing of
 * OpenTelemetry is imported.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Plugin } from 'graphql-yoga';
import type { NamesFrom } from './plugins/useTracing.js';

export interface Tracing {
  /**
   * The Yoga plugin that makes a span per GraphQL operation, its spans named by the operation's
   * name for the callers `namesFrom` accepts (the gateway passes "its token is one the REST API
   * accepted"; default: every caller).
   */
  plugin(namesFrom?: NamesFrom): Plugin;
  /** Flushes the spans not yet exported (best effort: an unreachable collector is no error) and stops tracing. */
  shutdown(): Promise<void>;
}

export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER?.toLowerCase() === 'none') return false;
  // Blank is unset, as the exporter reads it.
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Why the endpoint tracing would export to is unusable, naming its variable (never its value: it
 * may hold a password), or undefined. The exporter takes one it cannot parse as unset and sent the
 * spans to its default, localhost:4318, while the gateway logged tracing as on; one of another
 * scheme (`file:`) failed every export.
 */
export function tracingEndpointError(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!tracingEnabled(env)) return undefined;
  const name = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  let protocol: string | undefined;
  try {
    protocol = new URL(env[name]!.trim()).protocol;
  } catch {
    protocol = undefined;
  }
  return protocol === 'http:' || protocol === 'https:' ? undefined : `${name}: must be an http(s) URL (e.g. http://localhost:4318)`;
}

/** Starts tracing when the environment asks for it; undefined (and nothing loaded) otherwise. */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  if (!tracingEnabled(env)) return undefined;
  const [sdk, { W3CTraceContextPropagator }, { OTLPTraceExporter }, { UndiciInstrumentation }, resources, { useTracing, restSpanHooks }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/core'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/instrumentation-undici'),
      import('@opentelemetry/resources'),
      import('./plugins/useTracing.js'),
    ]);
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'docs-graph' })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const exporter = new OTLPTraceExporter({ httpAgentOptions: (protocol) => collectorAgent(protocol, env) });
  const provider = new sdk.NodeTracerProvider({ resource, spanProcessors: [new sdk.BatchSpanProcessor(exporter)] });
  // The global provider, AsyncLocalStorage context and W3C `traceparent` propagation, and no
  // other: the default also takes a caller's `baggage` (any keys and values, 8 KB) and sent it on
  // every REST call of the operation, to a REST API that may read it as its own.
  provider.register({ propagator: new W3CTraceContextPropagator() });
  const undici = new UndiciInstrumentation(restSpanHooks());
  undici.setTracerProvider(provider);
  return {
    plugin: (namesFrom) => useTracing(provider.getTracer('docs-graph'), namesFrom),
    async shutdown() {
      undici.disable();
      await provider.shutdown().catch(() => undefined);
    },
  };
}

/**
 * Bytes the collector may send in answer to one export, headers included. An OTLP answer is an
 * empty object or a short `partialSuccess`, but the exporter keeps every byte of it and parses it
 * as JSON: a collector (or whatever listens at its address) answering a body without end took the
 * gateway's RSS past 1 GiB in 25 s, and a 200 MB answer ended it (heap out of memory).
 */
export const COLLECTOR_ANSWER_BYTES = 64 * 1024;

/**
 * The exporter's connection pool (keep-alive, as its own), whose sockets are closed once they read
 * more than COLLECTOR_ANSWER_BYTES of one answer: that export fails, the next opens a new one. TLS
 * reads the certificate files of the standard variables, as the exporter's own pool would.
 */
function collectorAgent(protocol: string, env: NodeJS.ProcessEnv): http.Agent {
  const agent =
    protocol === 'http:'
      ? new http.Agent({ keepAlive: true })
      : new https.Agent({
          keepAlive: true,
          ca: certificateFile(env, 'CERTIFICATE'),
          cert: certificateFile(env, 'CLIENT_CERTIFICATE'),
          key: certificateFile(env, 'CLIENT_KEY'),
        });
  const read = new WeakMap<Socket, number>();
  const connect = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = connect(options, callback) as Socket;
    read.set(socket, 0);
    socket.on('data', (chunk: Buffer) => {
      const bytes = (read.get(socket) ?? 0) + chunk.length;
      read.set(socket, bytes);
      if (bytes > COLLECTOR_ANSWER_BYTES) socket.destroy(new Error(`collector answer over ${COLLECTOR_ANSWER_BYTES} bytes`));
    });
    return socket;
  };
  // Back in the pool: its answer is over, the next one counts from 0.
  agent.on('free', (socket: Socket) => read.set(socket, 0));
  return agent;
}

/** `OTEL_EXPORTER_OTLP_TRACES_<name>`, else `OTEL_EXPORTER_OTLP_<name>`: a file's content, as the exporter reads it. */
function certificateFile(env: NodeJS.ProcessEnv, name: string): Buffer | undefined {
  const file = env[`OTEL_EXPORTER_OTLP_TRACES_${name}`]?.trim() || env[`OTEL_EXPORTER_OTLP_${name}`]?.trim();
  return file ? readFileSync(file) : undefined;
}
