/**
 * OpenTelemetry spans for GraphQL operations and REST calls. Loaded only when tracing is on
 * (src/gateway/tracing.ts imports it dynamically), so nothing of OpenTelemetry loads otherwise.
 *
 * - One SERVER span per GraphQL operation (`query OrgSpaces`), continuing the caller's W3C
 *   `traceparent` when it sends one. The operation runs in the span's context, so every REST call
 *   it makes is a child; a streamed result (@defer/@stream, subscription) ends the span when it ends.
 *   Attributes: operation name (cut to MAX_OPERATION_NAME_LENGTH, as in the span's name) and type, the error codes of the result
 *   (the span's status an error), or `graphql.operation.outcome: cancelled` when its client left first (status unset); never the document,
 *   variables or headers. The name is a caller's text: it is given to the span only when
 *   `namesFrom` says the caller may name it (the gateway: its token is one the REST API accepted,
 *   decided when the span ends, so a token's first operation is named); other spans are named by
 *   their type alone (`query`). Anonymous `query Junk1`, `query Junk2`… made one span name
 *   each, without bound, for the tracing backend to index, as they did metric labels.
 * - One CLIENT span per REST attempt, from undici's instrumentation (which also sends
 *   `traceparent` upstream), named and labelled with the route template: `url.full`/`url.path`
 *   carry the template, not the ids; `url.query` is dropped; no header is recorded.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import type { UndiciInstrumentationConfig, UndiciRequest } from '@opentelemetry/instrumentation-undici';
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { routeTemplate } from '../../rest/routes.js';
import { boundedName } from '../lib/operationName.js';
import { clientLeft } from '../lib/plainPost.js';
import { READY_USER_AGENT } from './useReadiness.js';
import { clientCode } from './useRequestErrorCodes.js';

const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

interface OperationSpan {
  span: Span;
  /** Ends when the stream ends, not when the operation returns. */
  streaming: boolean;
  request: Request;
  /** The operation's type and name, set at its start, given to the span at its end. */
  type?: string;
  name?: string;
}

/** Whether a request's caller may name its spans (default: every caller). */
export type NamesFrom = (request: Request) => boolean;

export function useTracing(tracer: Tracer, namesFrom: NamesFrom = () => true): Plugin {
  const operations = new WeakMap<Span, OperationSpan>();
  const active = () => {
    const span = trace.getActiveSpan();
    return span && operations.get(span);
  };
  const started = ({ args }: { args: { document: DocumentNode; operationName?: string | null } }) => {
    const op = active();
    if (!op) return undefined;
    const ast = getOperationAST(args.document, args.operationName);
    const type = ast?.operation ?? 'query';
    op.type = type;
    op.name = boundedName(ast?.name?.value);
    op.span.updateName(type);
    op.span.setAttribute('graphql.operation.type', type);
    return op;
  };
  const end = (op: OperationSpan) => {
    if (op.name && namesFrom(op.request)) {
      op.span.updateName(`${op.type} ${op.name}`);
      op.span.setAttribute('graphql.operation.name', op.name);
    }
    op.span.end();
  };
  const done = (op: OperationSpan, result: unknown) => {
    if (!isAsyncIterable(result)) return recordErrors(op, result as ExecutionResult);
    op.streaming = true;
    return {
      onNext: ({ result: part }: { result: unknown }) => recordErrors(op, part as ExecutionResult),
      onEnd: () => end(op),
    };
  };
  return {
    instrumentation: {
      operation: ({ request }, wrapped) => {
        const parent = propagation.extract(ROOT_CONTEXT, request.headers, headerGetter);
        const span = tracer.startSpan('graphql.operation', { kind: SpanKind.SERVER }, parent);
        const op: OperationSpan = { span, streaming: false, request };
        operations.set(span, op);
        return context.with(trace.setSpan(parent, span), async () => {
          try {
            await wrapped();
          } finally {
            if (!op.streaming) end(op);
          }
        });
      },
    },
    onExecute: (payload) => {
      const op = started(payload);
      return op && { onExecuteDone: ({ result }) => done(op, result) };
    },
    onSubscribe: (payload) => {
      const op = started(payload);
      return op && { onSubscribeResult: ({ result }) => done(op, result) };
    },
    // Errors before execution (syntax, validation, limits) are in the operation's result.
    onExecutionResult: ({ result }) => {
      const op = active();
      if (op && !isAsyncIterable(result) && !Array.isArray(result)) recordErrors(op, result as ExecutionResult);
    },
  };
}

function recordErrors({ span, request }: OperationSpan, result: ExecutionResult | undefined): void {
  if (!result?.errors?.length) return;
  // Its client left: the errors are its leaving, not a failure of the gateway or the upstream.
  if (clientLeft(request)) return void span.setAttribute('graphql.operation.outcome', 'cancelled');
  const codes = [...new Set(result.errors.map(clientCode))];
  span.setAttribute('graphql.error.codes', codes);
  span.setStatus({ code: SpanStatusCode.ERROR, message: codes.join(',') });
}

/** The path below the base URL (`…/v1/spaces/x` → `/spaces/x`) and what comes before it. */
function split(request: UndiciRequest): { prefix: string; route: string } {
  const path = request.path.split('?', 1)[0];
  const at = path.indexOf('/v1/');
  return at < 0 ? { prefix: '', route: routeTemplate(path) } : { prefix: path.slice(0, at + 3), route: routeTemplate(path.slice(at + 3)) };
}

function header(request: UndiciRequest, name: string): string | undefined {
  const { headers } = request;
  if (!Array.isArray(headers)) return undefined;
  for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
  return undefined;
}

/** Hooks of the undici instrumentation: route templates instead of ids, readiness probes not traced. */
export function restSpanHooks(): UndiciInstrumentationConfig {
  const routes = new WeakMap<UndiciRequest, string>();
  return {
    ignoreRequestHook: (request) => header(request, 'user-agent') === READY_USER_AGENT,
    startSpanHook: (request) => {
      const { prefix, route } = split(request);
      routes.set(request, route);
      return { 'http.route': route, 'url.full': `${request.origin}${prefix}${route}`, 'url.path': `${prefix}${route}`, 'url.query': '' };
    },
    requestHook: (span, request) => span.updateName(`${request.method} ${routes.get(request) ?? 'other'}`),
  };
}
