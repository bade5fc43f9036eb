/**
 * Prometheus metrics at `GET /metrics`, through prom-client, in a registry of the gateway's own
 * (several gateways may share a process):
 *
 * - `graphql_envelop_request` / `graphql_envelop_request_duration` (histogram): operations
 *   that reach execution (run, refused there, or served from the kept introspection answers: the
 *   plugin comes before the caches, app.ts), by name, type and outcome (`ok`, `error` when the
 *   result carries an error, `cancelled` when it does and its client had left); a response-cache
 *   hit, answered before execution, is counted by `docs_graph_response_cache_total` only;
 * - `graphql_envelop_error_result`: errors by phase and `extensions.code` (not those of an
 *   operation whose client left);
 * - `docs_graph_upstream_request_duration_seconds` (histogram): REST attempts by method, route
 *   template (src/rest/routes.ts: never an id) and status (`none` when no answer came);
 * - `docs_graph_upstream_retries_total`, `docs_graph_upstream_circuit_state` (the worst state of the
 *   circuits), `docs_graph_upstream_circuit_refusals_total` (calls refused by an open circuit, by route),
 *   `docs_graph_response_cache_total`, `docs_graph_subscriptions_open`;
 * - Node's process metrics (prom-client's default metrics).
 *
 * The operation metrics keep the names, labels and semantics of @envelop/prometheus (which the
 * gateway used before), recorded by one plugin of its own (useOperationMetrics): that plugin's
 * hooks built label objects, filtered them and looked the operation up in a WeakMap in four
 * phases of every request. Operation names are the client's: past
 * MAX_OPERATION_NAMES distinct ones, new names count as `other` (a bounded number of series), and
 * each is cut to MAX_LABEL_NAME_LENGTH characters (a bounded size of each), and a slow render of
 * the whole is served again for a second (RENDER_KEPT_MS).
 */
import { createHash } from 'node:crypto';
import { getHeapStatistics } from 'node:v8';
import type { DocumentNode, ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DEFAULTS } from '../config.js';
import { BytesInFlight, errorCode, type RestCall } from '../rest/index.js';
import { callerBudget } from './lib/callerHash.js';
import { whenResponseDone, type NodeServerContext } from './lib/httpBounds.js';
import { clientLeft } from './lib/plainPost.js';
import { requestPath } from './lib/requestPath.js';
import type { SharedBodies } from './lib/sharedBodies.js';
import { clientCode } from './plugins/useRequestErrorCodes.js';

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface GatewayMetrics {
  registry: Registry;
  /** The Yoga plugins: the endpoint, and the operation metrics (useOperationMetrics). */
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
  /** A render of the registry that took this long or more is served again for RENDER_KEPT_MS (default 10 ms; tests lower it). */
  slowRenderMs?: number;
  /** The clock of that (ms; default `performance.now`). */
  now?: () => number;
  /**
   * Whether a request's caller may add an operation name to the labels (default: every caller;
   * the gateway passes "its token is one the REST API accepted").
   */
  namesFrom?: (request: Request) => boolean;
  /**
   * Bytes of scrapes being written at once (default: defaultScrapeBytesInFlight): each holds its
   * text's length until its response is written or closed, each client (its budget key:
   * lib/callerHash.ts) with a share as in src/rest/bytesInFlight.ts, and a scrape past it is
   * refused (503, `Retry-After: 1`). A scrape alone is always served.
   */
  scrapeBytesInFlight?: number;
  /**
   * Where each render's text is registered while it is the latest (lib/sharedBodies.ts), so that
   * the scrapes it answers are written from bytes made once and compressed once per encoding.
   */
  shared?: SharedBodies;
}

export const MAX_OPERATION_NAMES = 200;
/** Operation names in labels are cut to this many characters, a hash of the whole name keeping cut names apart. */
export const MAX_LABEL_NAME_LENGTH = 64;
/**
 * How long a slow render of `/metrics` is served again. Anyone may scrape it, and 200 operation
 * names of 256 characters made it 3.4 MB, 65–100 ms of the event loop per render: ten clients
 * looping on it took another caller's median latency from 5 ms to 1.4 s. Scrapers read it every
 * 15–60 s; concurrent scrapes share one render.
 */
const RENDER_KEPT_MS = 1_000;

/**
 * Bytes of /metrics texts being written at once, by default a sixteenth of V8's heap limit (about
 * 9.5 MiB under `npm start`, six texts of 200 operation names). Written as a string, the text
 * was copied by node:http into each response's own memory where its socket did not take it at
 * once, and each response compressed a copy of its own: 1,000 anonymous connections asking for a
 * 1.6 MB text (four pipelined on each) and never reading took the process from 150 MB to 1.8 GB
 * of RSS (1.2 GB with `gzip`), outside every bound, for the minute the write-stall timeout let
 * them stay. The scrapes of one render now share its bytes (`shared`), but a render is made anew
 * after a second (at each scrape when it is fast), and an unread scrape keeps its own for as long
 * as it stays: each still holds its text's length here. A budget of its own, not the results'
 * (useMaxResponseBytes.ts): anonymous scrapes nobody reads would hold that one, and every token's
 * large results would be refused meanwhile.
 */
export function defaultScrapeBytesInFlight(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 16);
}

/** The answer to a scrape past MetricsOptions.scrapeBytesInFlight. */
const BUSY = 'The gateway is writing too many large answers at once; try again shortly.\n';
const CIRCUIT_STATES: CircuitState[] = ['closed', 'open', 'half-open'];
const OPERATION_LABELS = ['operationName', 'operationType', 'outcome'] as const;
type OperationLabel = (typeof OPERATION_LABELS)[number];

export function createMetrics(options: MetricsOptions = {}): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const subscriptions = new Gauge({ name: 'docs_graph_subscriptions_open', help: 'Subscriptions open now', registers: [registry] });
  const endpoint = options.endpoint ?? DEFAULTS.metricsPath;
  // The endpoint, found by its path in the request's URL string (reading `url.pathname` would make
  // Yoga parse a URL for every request).
  const now = options.now ?? (() => performance.now());
  const slowRenderMs = options.slowRenderMs ?? 10;
  let render: { text: Promise<string>; until: number } | undefined;
  /** The text of the render last registered in `options.shared`. */
  let sharedText: string | undefined;
  const written = new BytesInFlight(options.scrapeBytesInFlight ?? defaultScrapeBytesInFlight());
  /** The registry's text: one render for concurrent scrapes, and a slow one kept for RENDER_KEPT_MS. */
  const rendered = (): Promise<string> => {
    if (render && now() < render.until) return render.text;
    const started = now();
    const current: { text: Promise<string>; until: number } = { text: registry.metrics(), until: Infinity };
    render = current;
    current.text.then(
      (text) => {
        const took = now() - started;
        current.until = took >= slowRenderMs ? now() + RENDER_KEPT_MS : 0;
        // Compressed at each scrape, a text of 200 operation names (1.6 MB) cost a copy of it and
        // 4-8 ms of libuv's threadpool per anonymous request: 4,000 scrapes pipelined on 1,000
        // connections kept 500 of them waiting for the pool (where every other response's
        // compression waits too) for over a minute.
        if (!options.shared) return;
        if (sharedText !== undefined) options.shared.delete(sharedText);
        options.shared.add((sharedText = text));
      },
      () => {
        if (render === current) render = undefined;
      },
    );
    return current.text;
  };
  const serve: Plugin = {
    onRequest({ request, serverContext, fetchAPI, endResponse }) {
      if (requestPath(request.url) !== endpoint) return;
      return rendered().then((text) => {
        const { req, res } = serverContext as NodeServerContext;
        // No response over another transport (yoga.fetch): nothing waits to be written.
        const held = !res || written.takeUntil(callerBudget(request), text.length, (release) => whenResponseDone(req, res, release));
        if (!held)
          return endResponse(new fetchAPI.Response(BUSY, { status: 503, headers: { 'Content-Type': 'text/plain', 'Retry-After': '1' } }));
        endResponse(new fetchAPI.Response(text, { headers: { 'Content-Type': registry.contentType } }));
      });
    },
  };
  const operations: OperationMetrics = {
    requests: new Counter({
      name: 'graphql_envelop_request',
      help: 'GraphQL operations run, by name, type and outcome',
      labelNames: OPERATION_LABELS,
      registers: [registry],
    }),
    durations: new Histogram({
      name: 'graphql_envelop_request_duration',
      help: 'Time to run a GraphQL operation (execution, or a subscription from start to end), in seconds',
      labelNames: OPERATION_LABELS,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    errors: new Counter({
      name: 'graphql_envelop_error_result',
      help: 'Errors in GraphQL results, by phase and extensions.code',
      labelNames: ['operationName', 'operationType', 'phase', 'code'],
      registers: [registry],
    }),
    subscriptions,
    names: operationNames(options.namesFrom),
  };

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
    plugins: [serve, useOperationMetrics(operations)],
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

interface OperationMetrics {
  requests: Counter<OperationLabel>;
  durations: Histogram<OperationLabel>;
  errors: Counter<'operationName' | 'operationType' | 'phase' | 'code'>;
  subscriptions: Gauge;
  names: (name: string | undefined, request?: Request) => string;
}

/** What the labels say of an operation: as @envelop/prometheus read it, the request's operation name or the document's first definition's. */
interface Operation {
  operationName: string;
  operationType: string;
}

type Phase = 'parse' | 'validate' | 'context' | 'execute';

/**
 * The operation metrics, one hook per phase: operations run by name, type and outcome (`error`
 * when a result carries an error) with their duration from the start of execution (of a
 * subscription or an incremental result: to its end), and errors by phase and code, as
 * @envelop/prometheus counted them: each error of each result (phase `execute`), a parse error
 * (`parse`), a failed validation once (`validate`), a context that could not be built (`context`),
 * a subscription that failed (`execute`); also the subscriptions open.
 */
function useOperationMetrics(metrics: OperationMetrics): Plugin {
  const { requests, durations, errors, subscriptions, names } = metrics;
  // The name's label is decided when first read (an operation's first error or its end): by then
  // its REST calls have answered, so a token's first operation finds it accepted.
  const operationOf = (document: DocumentNode, context: { params?: { operationName?: string | null }; request?: Request }): Operation => {
    const first = document.definitions[0] as { name?: { value: string }; operation?: string } | undefined;
    const name = context.params?.operationName || first?.name?.value || 'Anonymous';
    let label: string | undefined;
    return {
      get operationName() {
        return (label ??= names(name, context.request));
      },
      operationType: first?.operation ?? 'unknown',
    };
  };
  const countError = (operation: Operation, phase: Phase, error: unknown) =>
    errors.inc({
      ...operation,
      phase,
      code: errorCode(error) ?? (phase === 'parse' || phase === 'validate' ? 'BAD_USER_INPUT' : 'UPSTREAM_ERROR'),
    });
  /** An operation's run, from the start of its execution: its results' errors as they come, then its count and duration. */
  const run = (operation: Operation, request: Request | undefined) => {
    const start = performance.now();
    let failed = false;
    let cancelled = false;
    return {
      operation,
      result(result: ExecutionResult) {
        if (!result.errors?.length) return;
        // Clients that cancel their requests (a page left, a component unmounted) counted as an
        // upstream outage and in the error ratio.
        if (clientLeft(request)) return void (cancelled = true);
        failed = true;
        // The code the client gets, given after this hook (a variable's: BAD_USER_INPUT).
        for (const error of result.errors) errors.inc({ ...operation, phase: 'execute', code: clientCode(error) });
      },
      fail() {
        failed = true;
      },
      end() {
        const labels = { ...operation, outcome: failed ? 'error' : cancelled ? 'cancelled' : 'ok' };
        requests.inc(labels);
        durations.observe(labels, (performance.now() - start) / 1000);
      },
    };
  };
  const afterParse = ({ result }: { result: unknown }) => {
    if (result instanceof Error) countError({ operationName: names(undefined), operationType: 'unknown' }, 'parse', result);
  };
  return {
    onPluginInit({ registerContextErrorHandler }) {
      registerContextErrorHandler(({ context, error }) => {
        const { params, request } = context as { params?: { operationName?: string | null }; request?: Request };
        countError({ operationName: names(params?.operationName || 'Anonymous', request), operationType: 'unknown' }, 'context', error);
      });
    },
    onParse: () => afterParse,
    onValidate:
      ({ params, context }) =>
      ({ valid }) => {
        if (!valid) countError(operationOf(params.documentAST, context), 'validate', undefined);
      },
    onExecute: ({ args }) => {
      const operation = run(operationOf(args.document, args.contextValue as object), (args.contextValue as { request?: Request }).request);
      return {
        onExecuteDone: ({ result }) => {
          if (isAsyncIterable(result)) return { onNext: ({ result }) => operation.result(result as ExecutionResult), onEnd: operation.end };
          operation.result(result);
          operation.end();
        },
      };
    },
    onSubscribe: ({ args }) => {
      subscriptions.inc();
      const operation = run(operationOf(args.document, args.contextValue as object), (args.contextValue as { request?: Request }).request);
      let open = true;
      const close = () => {
        if (open) subscriptions.dec();
        open = false;
      };
      const end = () => {
        close();
        operation.end();
      };
      return {
        onSubscribeResult: ({ result }) => {
          if (isAsyncIterable(result)) return { onNext: ({ result }) => operation.result(result as ExecutionResult), onEnd: end };
          operation.result(result as ExecutionResult);
          end();
        },
        // A failed subscription: an error (code UPSTREAM_ERROR, as @envelop/prometheus counted it), not an operation run.
        onSubscribeError: () => {
          operation.fail();
          countError(operation.operation, 'execute', undefined);
          close();
        },
      };
    },
  };
}

/**
 * Operation names as labels: the first MAX_OPERATION_NAMES distinct ones, then `other`; each cut to
 * MAX_LABEL_NAME_LENGTH. A new name is added only for a caller `namesFrom` accepts (others' count
 * as `other` until it is added): an anonymous client's 200 requests of made-up names took every
 * place, and every operation of every caller after them counted as `other` until a restart.
 */
function operationNames(namesFrom?: (request: Request) => boolean): (name: string | undefined, request?: Request) => string {
  const seen = new Set<string>();
  return (full, request) => {
    // Not a name of the client's: no place taken.
    if (!full || full === 'Anonymous') return 'Anonymous';
    const name = labelName(full);
    if (seen.has(name)) return name;
    if (seen.size >= MAX_OPERATION_NAMES || (namesFrom && !(request && namesFrom(request)))) return 'other';
    seen.add(name);
    return name;
  };
}

/** `name` as a label: itself, or cut with a hash of the whole (distinct names stay distinct). */
function labelName(name: string): string {
  if (name.length <= MAX_LABEL_NAME_LENGTH) return name;
  return `${name.slice(0, MAX_LABEL_NAME_LENGTH - 9)}…${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}
