/**
 * OpenTelemetry tracing through the standard Node SDK and OTLP/HTTP exporter, configured by the
 * standard `OTEL_*` environment variables: on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, unless `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none`. `OTEL_SERVICE_NAME` (default `docs-graph`), `OTEL_RESOURCE_ATTRIBUTES`,
 * `OTEL_TRACES_SAMPLER(_ARG)`, `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_BSP_*` work as everywhere.
 * Process-global (one tracer provider, W3C trace-context propagation); when off, nothing of
 * OpenTelemetry is imported.
 */
import type { Plugin } from 'graphql-yoga';

export interface Tracing {
  /** The Yoga plugin that makes a span per GraphQL operation (pass as the gateway's `tracing`). */
  plugin: Plugin;
  /** Flushes the spans not yet exported (best effort: an unreachable collector is no error) and stops tracing. */
  shutdown(): Promise<void>;
}

export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER?.toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** Starts tracing when the environment asks for it; undefined (and nothing loaded) otherwise. */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  if (!tracingEnabled(env)) return undefined;
  const [sdk, { OTLPTraceExporter }, { UndiciInstrumentation }, resources, { useTracing, restSpanHooks }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/instrumentation-undici'),
    import('@opentelemetry/resources'),
    import('./plugins/useTracing.js'),
  ]);
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'docs-graph' })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.NodeTracerProvider({ resource, spanProcessors: [new sdk.BatchSpanProcessor(new OTLPTraceExporter())] });
  // The global provider, AsyncLocalStorage context and W3C `traceparent` propagation.
  provider.register();
  const undici = new UndiciInstrumentation(restSpanHooks());
  undici.setTracerProvider(provider);
  return {
    plugin: useTracing(provider.getTracer('docs-graph')),
    async shutdown() {
      undici.disable();
      await provider.shutdown().catch(() => undefined);
    },
  };
}
