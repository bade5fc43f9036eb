/**
 * The commonest request, a small `POST /graphql` of a JSON operation, answered by Yoga's own steps
 * without the Fetch API layer around them (docs/BENCHMARKS-history.md: that layer was about two fifths of
 * the gateway's CPU per request on the varied load). whatwg-node's server adapter builds a Fetch
 * `Request` (URL, Headers, AbortController, a body stream) and a `Response`, reads the body
 * through the stream, and runs each phase's hooks through its promise helpers. Here the body is
 * read from node:http directly, and the request the plugins see is a view of node:http's
 * (`PlainRequest`: method, URL, headers, a signal aborted when the client leaves); the hooks run
 * in plain loops, in the order and with the payloads the server runs them: the `onRequest` hooks
 * (the caller's identity, refusals, CORS), the `onParams` hooks, Envelop's parse, validation,
 * context and execution with every plugin, the `onExecutionResult` hooks (as
 * `getResultForParams` runs them), the `onResultProcess` hooks, Yoga's result processor, the
 * `onResponse` hooks (compression, CORS, cache headers) and whatwg-node's writer. A text this
 * path has seen parse and pass validation skips those two steps (and their `onParse` and
 * `onValidate` hooks) the next times: see `valid` below for why that changes nothing; its
 * execution's `onExecute` hooks then run in loops too (executeHooks.ts). The REST client learns
 * that the client left from the response's `close` (`ClientLeft`), not from an AbortSignal.
 *
 * One step is skipped for every request taken: the request parser's `onRequestParse` hooks.
 * What they do for such a request, and why skipping them changes nothing: Yoga's parser selection
 * and JSON parser (here `JSON.parse` of the same bytes), batching (an array body is not taken),
 * the method check (POST), CSRF (a JSON body passes it), the variables' depth before parsing
 * (only for bodies over 4 KiB; deeper variables are refused at `onParams` as for a small body)
 * and GET's error codes. Not used with tracing on, whose instrumentation wraps the adapter's
 * and Yoga's steps.
 *
 * Any other request, or a body that is not a JSON object of `query`, `variables` and
 * `operationName` only, goes to Yoga whole (a body already read is handed over as node:http
 * frameworks hand a parsed one: `req.body`, a stream of one chunk).
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs, type OperationDefinitionNode } from 'graphql';
import { createGraphQLError, isAsyncIterable, isPromise, mapAsyncIterator, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { sendNodeResponse } from '@whatwg-node/server';
import type { Clock, LeaveSignal } from '../../rest/index.js';
import type { GatewayContext } from '../../schema/context.js';
import { executeWithHooks } from './executeHooks.js';
import { runHooks } from './runHooks.js';
import { whenResponseDone } from './httpBounds.js';
import { BODIES_REFUSAL, holdParsedText } from './requestBytesInFlight.js';

/** The request plugins see: node:http's method, URL, headers and a signal aborted when the client leaves. */
class PlainRequest {
  readonly method = 'POST';
  readonly url: string;
  readonly headers: PlainHeaders;
  /** As `signal` for the REST client, without an AbortController (`leaveSignalOf`). */
  readonly left: ClientLeft;
  #controller?: AbortController;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    this.url = `http://${req.headers.host ?? 'localhost'}${req.url}`;
    this.headers = new PlainHeaders(req.headers);
    this.left = new ClientLeft(req, res);
  }

  /** As whatwg-node's: aborted when the response closes before it was written whole. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = (this.#controller = new AbortController());
      const abort = () => {
        if (!controller.signal.aborted) {
          Object.defineProperty(this.req, 'aborted', { value: true });
          controller.abort(this.res.errored ?? undefined);
        }
      };
      this.res.once('error', abort);
      // Aborted unless the response was written whole (also when it closed before, or its pipelined connection went).
      whenResponseDone(this.req, this.res, () => {
        if (!this.res.writableFinished) abort();
      });
    }
    return this.#controller.signal;
  }
}

/**
 * `signal` as the REST client needs it (`abort` when the response closes before it was written
 * whole), with a listener on the response rather than an AbortController and its EventTarget:
 * those were about a twentieth of a small query's CPU and a fifth of what it kept past a
 * young-generation collection.
 */
class ClientLeft implements LeaveSignal {
  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {}

  get aborted(): boolean {
    return !this.res.writableFinished && (this.res.closed || this.req.socket.destroyed);
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    // As an AbortSignal's: a listener added once aborted is not called.
    if (this.aborted) return;
    whenResponseDone(this.req, this.res, () => {
      if (!this.res.writableFinished) listener();
    });
  }
}

/** What tells the REST client that the request's client left: a small POST's `ClientLeft`, or the Fetch request's signal. */
export function leaveSignalOf(request: Request): LeaveSignal {
  return request instanceof PlainRequest ? request.left : request.signal;
}

/**
 * Whether an operation's client left before its result was written: its errors are then its
 * leaving (each REST call it no longer waited for is UPSTREAM_UNAVAILABLE), not the upstream's.
 * The one rule for the metrics' `cancelled` outcome, the debug line and the span.
 */
export function clientLeft(request: Request | undefined): boolean {
  return request !== undefined && leaveSignalOf(request).aborted;
}

/** A header node:http may give as a list (repeated), as one string as the Fetch API joins it. */
export const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** node:http's headers as the Fetch API's `Headers` reads them (names in lower case, a list joined). */
class PlainHeaders {
  constructor(private readonly raw: IncomingHttpHeaders) {}

  get(name: string): string | null {
    return headerValue(this.raw[name.toLowerCase()]) ?? null;
  }

  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }

  /** As `Headers.set`: a plugin may rewrite a request header (useAcceptWeights.ts: `Accept`). */
  set(name: string, value: string): void {
    this.raw[name.toLowerCase()] = value;
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.raw)) yield [name, this.get(name)!];
  }

  *keys(): IterableIterator<string> {
    yield* Object.keys(this.raw);
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: string, name: string, headers: this) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/**
 * The JSON body types Yoga's POST parser takes, as it matches them (isContentTypeMatch): exactly
 * `application/json`, or it and `;` and parameters. Another spelling (`APPLICATION/JSON`, a space
 * before the `;`) goes to Yoga, once useRequestContentType.ts has written it so.
 */
const JSON_TYPE = /^application\/json(;|$)/;
/** Accepted types whose result processors stream (SSE, multipart): Yoga's path. */
const STREAMED = /text\/event-stream|multipart\//i;
const PARAMS = new Set(['query', 'variables', 'operationName']);

export interface PlainPostOptions {
  yoga: YogaServerInstance<Record<string, unknown>, object>;
  /** Bodies of at most this many bytes are taken (under every body bound of the gateway). */
  maxBytes: number;
  /** Where the requests not taken go (Yoga's request listener). */
  fallback(req: IncomingMessage, res: ServerResponse): unknown;
  /** Yoga's parsed documents by text (the `parserAndValidationCache` given to createYoga). */
  documents: { get(text: string): DocumentNode | undefined };
  /** When a body the budget refuses is answered (its `Retry-After` later). */
  clock: Clock;
}

type Hook<P> = (payload: P) => unknown;
type OnResultProcess = Hook<Parameters<NonNullable<Plugin['onResultProcess']>>[0]>;
type OnResponse = Hook<Parameters<NonNullable<Plugin['onResponse']>>[0]>;
type OnRequest = Hook<Parameters<NonNullable<Plugin['onRequest']>>[0]>;
type OnExecute = Parameters<typeof executeWithHooks>[0][number];
type ResultProcessor = (result: unknown, fetchAPI: unknown, accepted: string) => Response | Promise<Response>;

/** Yoga's server, as the adapter exposes it: the steps run here are its own. */
interface YogaSteps {
  handleParams(payload: { params: Params; request: Request; context: object }): unknown;
  getEnveloped(context: object): {
    schema: ExecutionArgs['schema'];
    contextFactory(): unknown;
    execute(args: ExecutionArgs): unknown;
    subscribe(args: ExecutionArgs): unknown;
  };
  onParamsHooks: Array<Hook<Parameters<NonNullable<Plugin['onParams']>>[0]>>;
  onExecutionResultHooks: Array<Hook<Parameters<NonNullable<Plugin['onExecutionResult']>>[0]>>;
  onResultProcessHooks: OnResultProcess[];
  plugins: Array<{ onRequest?: OnRequest; onResponse?: OnResponse; onExecute?: OnExecute; instrumentation?: unknown }>;
  maskedErrorsOpts: { maskError(error: unknown, message: string, isDev: boolean): Error; errorMessage: string; isDev: boolean } | null;
  logger: { debug(...args: unknown[]): void; error(...args: unknown[]): void };
  fetchAPI: { Response: typeof Response };
  waitUntil(promise: unknown): void;
}

/** The request's URL, parsed on first use only (as the server adapter gives it to `onRequest` hooks). */
function lazyUrl(href: () => string): URL {
  let url: URL | undefined;
  return new Proxy({} as URL, {
    get: (_target, property) => {
      url ??= new URL(href(), 'http://localhost');
      const value: unknown = Reflect.get(url, property, url);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(url) : value;
    },
  });
}

/** A field the gateway's context factory adds to the request's context (schema/context.ts). */
const CONTEXT_BUILT: keyof GatewayContext = 'rest';

type Params = { query?: string; variables?: Record<string, unknown> | null; operationName?: string | null };

/**
 * `(req, res) => taken`: true when the request is answered here (false: not touched, hand it to
 * Yoga). Read once at start: the hook lists are Yoga's, fixed once the server is built.
 */
export function plainPost({ yoga, maxBytes, fallback, documents, clock }: PlainPostOptions) {
  const steps = yoga as unknown as YogaSteps;
  const onResultProcess = steps.onResultProcessHooks;
  const onRequest = steps.plugins.flatMap((p) => (p.onRequest ? [p.onRequest.bind(p) as OnRequest] : []));
  const onResponse = steps.plugins.flatMap((p) => (p.onResponse ? [p.onResponse.bind(p) as OnResponse] : []));
  const { fetchAPI, logger } = steps;
  // Envelop's execution with its hooks in plain loops (executeHooks.ts), unless a plugin
  // instruments it (Envelop then wraps its own).
  const onExecute = steps.plugins.flatMap((p) => (p.onExecute ? [p.onExecute] : []));
  const execute = steps.plugins.some((p) => p.instrumentation)
    ? (enveloped: ReturnType<YogaSteps['getEnveloped']>, args: ExecutionArgs) => enveloped.execute(args)
    : (_enveloped: unknown, args: ExecutionArgs) => executeWithHooks(onExecute, args);

  /** Yoga's `handleError` for an error thrown before execution (a refused parameter, the rate limit). */
  const errorsOf = (error: unknown): GraphQLError[] => {
    if (error instanceof AggregateError) return error.errors.flatMap(errorsOf);
    if (error instanceof Error && error.name === 'AbortError') {
      logger.debug('Request aborted');
      return [];
    }
    const opts = steps.maskedErrorsOpts;
    if (!opts) return [error instanceof GraphQLError ? error : createGraphQLError(String((error as Error)?.message ?? error))];
    const masked = opts.maskError(error, opts.errorMessage, opts.isDev);
    if (masked !== error) logger.error(error);
    return [masked instanceof GraphQLError ? masked : createGraphQLError(masked.message, { originalError: masked })];
  };

  /**
   * Documents that a request of this path has parsed and validated (its context was built, which
   * Yoga does only for a valid document). Parsing and validation are functions of the text (the
   * rules are the same for every request; the checks that depend on the caller or the variables
   * run at execution: introspection access, cost, variables), but for one: the operation the
   * request names must be in the document. So a text seen valid, naming one of its operations,
   * runs again without them: its parsed document from Yoga's cache, its context, its execution,
   * every `onContextBuilding` and `onExecute` hook. The set holds no document itself: it empties as
   * the parse cache lets go of them.
   */
  const valid = new WeakSet<DocumentNode>();

  /** Yoga's `handleParams` for a document known valid: its context, then its operation's execution. */
  const run = async (
    document: DocumentNode,
    operation: OperationDefinitionNode,
    params: Params,
    request: Request,
    context: object,
  ): Promise<unknown> => {
    // Yoga's own debug lines for this step (a debug log reads the same on either path).
    logger.debug('Processing GraphQL Parameters');
    try {
      Object.assign(context, { request, params });
      const enveloped = steps.getEnveloped(context);
      const contextValue = await enveloped.contextFactory();
      const args = {
        schema: enveloped.schema,
        document,
        contextValue,
        variableValues: params.variables,
        operationName: params.operationName,
      };
      const result = await (operation.operation === 'subscription' ? enveloped.subscribe(args) : execute(enveloped, args));
      logger.debug('Processing GraphQL Parameters done.');
      if (!isAsyncIterable(result)) return result;
      return mapAsyncIterator(
        result,
        (value) => value,
        (error: Error) => {
          if (error.name === 'AbortError') throw error;
          return { errors: errorsOf(error) };
        },
      );
    } catch (error) {
      return { errors: errorsOf(error) };
    }
  };

  /** Yoga's `handleParams`, without parsing and validation for a text known valid. */
  const handleParams: YogaSteps['handleParams'] = (payload) => {
    const text = payload.params.query;
    const known = text === undefined ? undefined : documents.get(text);
    // Yoga's parse step also refuses an operation name the document lacks (usePreventMutationViaGET).
    const operation = known && valid.has(known) ? getOperationAST(known, payload.params.operationName) : null;
    if (operation) return run(known!, operation, payload.params, payload.request, payload.context);
    const result = steps.handleParams(payload);
    const learn = () => {
      // The context is built only for a document that parsed and passed validation.
      const document = text === undefined ? undefined : documents.get(text);
      if (document && CONTEXT_BUILT in payload.context) valid.add(document);
    };
    return isPromise(result) ? result.finally(learn) : (learn(), result);
  };

  /**
   * Yoga's `getResultForParams` (the `onParams` hooks, which may set the parameters, their handler
   * or the result; the handler: Envelop's parse, validation, context and execution; the
   * `onExecutionResult` hooks), its hooks run in a plain loop rather than through the promise
   * helpers (a few closures and promise-likes per hook and request).
   */
  const resultFor = async (params: object, request: Request, context: object): Promise<unknown> => {
    let result: unknown;
    const before = {
      params,
      request,
      setParams(next: object) {
        before.params = next;
      },
      paramsHandler: handleParams,
      setParamsHandler(next: YogaSteps['handleParams']) {
        before.paramsHandler = next;
      },
      setResult(next: unknown) {
        result = next;
      },
      fetchAPI,
      context,
    };
    await runHooks(steps.onParamsHooks, before as unknown as Parameters<YogaSteps['onParamsHooks'][number]>[0]);
    const after = {
      result: result || (await before.paramsHandler({ request, params: before.params, context })),
      setResult(next: unknown) {
        after.result = next;
      },
      request,
      context,
    };
    await runHooks(steps.onExecutionResultHooks, after as unknown as Parameters<YogaSteps['onExecutionResultHooks'][number]>[0]);
    return after.result;
  };

  /** Yoga's `processResult`: the result-process hooks choose the processor (by `Accept`), which makes the response. */
  const respond = (request: Request, result: unknown, serverContext: object): Response | Promise<Response> => {
    let processor: ResultProcessor | undefined;
    let accepted = '*/*';
    const acceptableMediaTypes: string[] = [];
    const payload: { result: unknown } & Record<string, unknown> = {
      request,
      acceptableMediaTypes,
      result,
      setResult(next: unknown) {
        payload.result = next;
      },
      resultProcessor: processor,
      setResultProcessor(next: ResultProcessor, type: string) {
        processor = next;
        accepted = type;
        payload.resultProcessor = next;
      },
      serverContext,
    };
    const done = (): Response | Promise<Response> => {
      if (!processor)
        return new fetchAPI.Response(null, {
          status: 406,
          statusText: 'Not Acceptable',
          headers: { accept: acceptableMediaTypes.join('; charset=utf-8, ') },
        });
      return processor(payload.result, fetchAPI, accepted);
    };
    const pending = runHooks(onResultProcess, payload as unknown as Parameters<OnResultProcess>[0]);
    return pending ? pending.then(done) : done();
  };

  const answer = async (req: IncomingMessage, res: ServerResponse, params: object): Promise<void> => {
    const serverContext = { req, res, waitUntil: steps.waitUntil };
    let response: Response | undefined;
    try {
      // The server adapter's `onRequest` hooks (the caller's identity, a refusal that ends them).
      const arrival: { request: Request } & Record<string, unknown> = {
        request: new PlainRequest(req, res) as unknown as Request,
        setRequest(next: Request) {
          arrival.request = next;
        },
        url: lazyUrl((): string => arrival.request.url),
        serverContext,
        fetchAPI,
        endResponse(next: Response) {
          response = next;
        },
        setRequestHandler() {
          throw new Error('plainPost: an onRequest hook replaced the request handler, which this path cannot run');
        },
      };
      await runHooks(onRequest, arrival as unknown as Parameters<OnRequest>[0], () => response !== undefined);
      const { request } = arrival;
      if (!response) {
        // Yoga's own debug line for its parsing step, which a request answered by an `onRequest`
        // hook (a 429 with CORS on) never reaches (a debug log reads the same on either path).
        logger.debug('Parsing request to extract GraphQL parameters');
        let result: unknown;
        try {
          result = await resultFor(params, request, serverContext);
        } catch (error) {
          result = { errors: errorsOf(error) };
        }
        response = await respond(request, result, serverContext);
      }
      const responsePayload = {
        request,
        // The response as the hooks before left it: the adapter gives each hook a payload of its
        // own. One set once, a hook after a `setResponse` (useRequestErrorCodes' body for a 406)
        // changed the response replaced, not the one sent (its `Vary: Origin` was lost).
        get response() {
          return response;
        },
        serverContext,
        setResponse(next: Response) {
          response = next;
        },
        fetchAPI,
      } as unknown as Parameters<OnResponse>[0];
      await runHooks(onResponse, responsePayload);
    } catch (error) {
      // As the adapter's handleErrorFromRequestHandler, but logged rather than sent (it answers
      // the error's stack).
      logger.error(error);
      response = new fetchAPI.Response(null, { status: (error as { status?: number })?.status || 500 });
    }
    await sendNodeResponse(response, res, req, true);
  };

  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const { headers } = req;
    if (req.method !== 'POST' || req.url !== '/graphql') return false;
    const length = headers['content-length'];
    if (length === undefined || headers['transfer-encoding'] !== undefined || !JSON_TYPE.test(headers['content-type'] ?? '')) return false;
    const bytes = Number(length);
    // An empty body is not taken: handed back, whatwg-node would read it from the spent stream.
    if (!(bytes > 0 && bytes <= maxBytes) || (headers.accept !== undefined && STREAMED.test(headers.accept))) return false;
    const body = Buffer.allocUnsafe(bytes);
    let read = 0;
    // A client that leaves mid-body: nothing to answer (the response's close ends the rest).
    req.on('error', () => undefined);
    req.on('data', (chunk: Buffer) => {
      // node:http holds the body to its Content-Length.
      chunk.copy(body, read);
      read += chunk.length;
    });
    req.once('end', () => {
      const text = body.toString('utf8', 0, read);
      // What its parse builds, held by the bodies budget when it is much (lib/requestBytesInFlight.ts).
      // Refused, it is answered when it may try again (its `Retry-After`), as the rate limit's
      // refusals on arrival are: one token looping such bodies on 1,000 connections was refused
      // 7,000 times a second, four of every five seconds of the event loop (the abuse bench's
      // small held bodies); now once a second per connection.
      if (!holdParsedText(req, text)) {
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(503, { ...BODIES_REFUSAL.headers, 'content-length': Buffer.byteLength(BODIES_REFUSAL.body) });
          res.end(BODIES_REFUSAL.body);
        };
        const timer = clock.setTimeout(send, 1000 * Number(BODIES_REFUSAL.headers['retry-after']));
        res.once('close', () => clock.clearTimeout(timer));
        return;
      }
      let params: unknown;
      try {
        // A body that is not UTF-8 goes to Yoga, which refuses it (bodyText, useMaxVariablesDepth.ts):
        // `text` has U+FFFD for each byte that is not, which a mutation wrote as the caller's text.
        params = isUtf8(body.subarray(0, read)) ? JSON.parse(text) : undefined;
      } catch {
        params = undefined;
      }
      if (!isPlain(params)) {
        // As a stream of one chunk, as lib/chunkedBody.ts hands one on: whatwg-node lists the own
        // keys of a `req.body` (a Buffer's: one string per byte).
        (req as IncomingMessage & { body?: Readable }).body = Readable.from([body.subarray(0, read)]);
        fallback(req, res);
        return;
      }
      answer(req, res, params).catch((error: unknown) => {
        logger.error(error);
        res.destroy();
      });
    });
    return true;
  };
}

/** `{ query, variables?, operationName? }` with a string query, object variables and a string name (or nulls). */
function isPlain(params: unknown): params is object {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return false;
  const { query, variables, operationName } = params as Record<string, unknown>;
  if (typeof query !== 'string') return false;
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return false;
  if (operationName != null && typeof operationName !== 'string') return false;
  for (const key in params) if (!PARAMS.has(key)) return false;
  return true;
}
