/**
 * Prometheus metrics at `GET /metrics`, through @graphql-yoga/plugin-prometheus and prom-client,
 * in a registry of the gateway's own (several gateways may share a process):
 *
 * - `graphql_envelop_request` / `graphql_envelop_request_duration` (histogram): operations
 *   by name, type and outcome (`ok`, or `error` when the result carries an error);
 * - `graphql_envelop_error_result`: errors by phase and `extensions.code`;
 * - `docs_graph_upstream_request_duration_seconds` (histogram): REST attempts by method, route
 *   template (src/rest/routes.ts: never an id) and status (`none` when no answer came);
 * - `docs_graph_upstream_retries_total`, `docs_graph_upstream_circuit_state` (the worst state of the
 *   circuits), `docs_graph_upstream_circuit_refusals_total` (calls refused by an open circuit, by route),
 *   `docs_graph_response_cache_total`, `docs_graph_subscriptions_open`;
 * - Node's process metrics (prom-client's default metrics).
 *
 * Only cheap per-request work: the phase histograms, the summary, the deprecated-field walk and
 * the HTTP histogram of the plugin are off. Operation names are the client's: past
 * MAX_OPERATION_NAMES distinct ones, new names count as `other` (a bounded number of series), and
 * each is cut to MAX_OPERATION_NAME_LENGTH characters (a bounded size of each).
 */
import { createCounter, createHistogram, usePrometheus } from '@graphql-yoga/plugin-prometheus';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DEFAULTS } from '../config.js';
import { errorCode, type RestCall } from '../rest/index.js';
import { boundedName } from './lib/operationName.js';
import { requestPath } from './lib/requestPath.js';

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface GatewayMetrics {
  registry: Registry;
  /** The Yoga plugins, in order: outcome tracking first, then the Prometheus plugin. */
  plugins: Plugin[];
  /** Feed with every REST attempt (the REST client's `onRequest`). */
  onRestCall(call: RestCall): void;
  /** Feed with the REST client's circuit breaker changes. */
  onCircuitChange(state: CircuitState): void;
  /** Feed with each REST call an open circuit refused (its route template). */
  onCircuitRefusal(route: string): void;
  /** Feed with each response-cache lookup. */
  onResponseCache(hit: boolean): void;
}

export interface MetricsOptions {
  /** Path of the metrics endpoint (default `/metrics`). */
  endpoint?: string;
}

export const MAX_OPERATION_NAMES = 200;
const CIRCUIT_STATES: CircuitState[] = ['closed', 'open', 'half-open'];
const OPERATION_LABELS = ['operationName', 'operationType', 'outcome'] as const;
type OperationLabel = (typeof OPERATION_LABELS)[number];

interface LabelParams {
  operationName?: string;
  operationType?: string;
  errorPhase?: string;
  error?: unknown;
}

export function createMetrics(options: MetricsOptions = {}): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const failed = new WeakSet<object>();
  const names = operationNames();
  const operationLabels = (params: LabelParams, context: object): Record<OperationLabel, string> => ({
    operationName: names(params.operationName),
    operationType: params.operationType ?? 'unknown',
    outcome: failed.has(context) ? 'error' : 'ok',
  });

  const subscriptions = new Gauge({ name: 'docs_graph_subscriptions_open', help: 'Subscriptions open now', registers: [registry] });
  const endpoint = options.endpoint ?? DEFAULTS.metricsPath;
  // The endpoint is served below: the plugin's own reads `url.pathname`, which makes Yoga parse
  // a URL for every request.
  const serve: Plugin = {
    onRequest({ request, fetchAPI, endResponse }) {
      if (requestPath(request.url) !== endpoint) return;
      return registry
        .metrics()
        .then((text) => endResponse(new fetchAPI.Response(text, { headers: { 'Content-Type': registry.contentType } })));
    },
  };
  const prometheus = usePrometheus({
    registry,
    endpoint: false,
    metrics: {
      graphql_envelop_request: createCounter({
        registry,
        counter: {
          name: 'graphql_envelop_request',
          help: 'GraphQL operations run, by name, type and outcome',
          labelNames: OPERATION_LABELS,
        },
        fillLabelsFn: operationLabels,
      }),
      graphql_envelop_request_duration: createHistogram({
        registry,
        histogram: {
          name: 'graphql_envelop_request_duration',
          help: 'Time to run a GraphQL operation (execution, or a subscription from start to end), in seconds',
          labelNames: OPERATION_LABELS,
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        },
        fillLabelsFn: operationLabels,
      }),
      graphql_envelop_error_result: createCounter({
        registry,
        counter: {
          name: 'graphql_envelop_error_result',
          help: 'Errors in GraphQL results, by phase and extensions.code',
          labelNames: ['operationName', 'operationType', 'phase', 'code'],
        },
        fillLabelsFn: (params: LabelParams) => ({
          operationName: names(params.operationName),
          operationType: params.operationType ?? 'unknown',
          phase: params.errorPhase ?? 'execute',
          code:
            errorCode(params.error) ??
            (params.errorPhase === 'parse' || params.errorPhase === 'validate' ? 'BAD_USER_INPUT' : 'UPSTREAM_ERROR'),
        }),
      }),
      graphql_envelop_request_time_summary: false,
      graphql_envelop_phase_parse: false,
      graphql_envelop_phase_validate: false,
      graphql_envelop_phase_context: false,
      graphql_envelop_phase_execute: false,
      graphql_envelop_phase_subscribe: false,
      graphql_envelop_deprecated_field: false,
      graphql_envelop_schema_change: false,
      graphql_yoga_http_duration: false,
    },
  });

  const upstream = new Histogram({
    name: 'docs_graph_upstream_request_duration_seconds',
    help: 'REST attempts to the upstream by method, route template and HTTP status (none: no answer), in seconds',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const retries = new Counter({
    name: 'docs_graph_upstream_retries_total',
    help: 'REST attempts that were retries (attempt > 1), by method and route template',
    labelNames: ['method', 'route'],
    registers: [registry],
  });
  const circuit = new Gauge({
    name: 'docs_graph_upstream_circuit_state',
    help: "The upstream circuit breaker's state: 1 for the current state, 0 for the others",
    labelNames: ['state'],
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'docs_graph_upstream_circuit_refusals_total',
    help: 'REST calls refused by an open circuit (no upstream call), by route template (`*`: the whole upstream)',
    labelNames: ['route'],
    registers: [registry],
  });
  const cache = new Counter({
    name: 'docs_graph_response_cache_total',
    help: 'Response-cache lookups by result (hit, miss)',
    labelNames: ['result'],
    registers: [registry],
  });
  const setCircuit = (state: CircuitState) => CIRCUIT_STATES.forEach((s) => circuit.set({ state: s }, s === state ? 1 : 0));
  setCircuit('closed');
  cache.inc({ result: 'hit' }, 0);
  cache.inc({ result: 'miss' }, 0);

  return {
    registry,
    plugins: [serve, useOutcome(failed, subscriptions), prometheus],
    onRestCall(call) {
      const { route } = call;
      upstream.observe({ method: call.method, route, status: call.status === null ? 'none' : String(call.status) }, call.ms / 1000);
      if (call.attempt > 1) retries.inc({ method: call.method, route });
    },
    onCircuitChange: setCircuit,
    onCircuitRefusal: (route) => refusals.inc({ route }),
    onResponseCache: (hit) => cache.inc({ result: hit ? 'hit' : 'miss' }),
  };
}

/**
 * Marks the contexts whose results carry an error (read by the operation labels; this plugin runs
 * before the Prometheus plugin, so its marks are there when that one observes) and counts open
 * subscriptions.
 */
function useOutcome(failed: WeakSet<object>, open: Gauge): Plugin {
  const mark = (context: object, result: unknown) => {
    if ((result as { errors?: unknown[] } | undefined)?.errors?.length) failed.add(context);
  };
  const onNext =
    (context: object) =>
    ({ result }: { result: unknown }) =>
      mark(context, result);
  return {
    onExecute: ({ args }) => ({
      onExecuteDone: ({ result }) => (isAsyncIterable(result) ? { onNext: onNext(args.contextValue) } : mark(args.contextValue, result)),
    }),
    onSubscribe: ({ args }) => {
      open.inc();
      let ended = false;
      const end = () => {
        if (!ended) open.dec();
        ended = true;
      };
      return {
        onSubscribeResult: ({ result }) => {
          if (isAsyncIterable(result)) return { onNext: onNext(args.contextValue), onEnd: end };
          mark(args.contextValue, result);
          end();
        },
        onSubscribeError: () => {
          failed.add(args.contextValue);
          end();
        },
      };
    },
  };
}

/** Operation names as labels: the first MAX_OPERATION_NAMES distinct ones, then `other`; each cut to MAX_OPERATION_NAME_LENGTH. */
function operationNames(): (name: string | undefined) => string {
  const seen = new Set<string>();
  return (full) => {
    if (!full) return 'Anonymous';
    const name = boundedName(full);
    if (seen.has(name)) return name;
    if (seen.size >= MAX_OPERATION_NAMES) return 'other';
    seen.add(name);
    return name;
  };
}
