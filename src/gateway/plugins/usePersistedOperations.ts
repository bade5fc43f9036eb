/**
 * Persisted operations (Yoga's plugin) and automatic persisted queries.
 *
 * - `documents`: id → document, as the Relay compiler's `persistConfig` (md5/sha ids) and GraphQL
 *   Codegen's client preset (`persisted-documents.json`, `sha256:<hex>` ids) write, ids taken as
 *   written; a request sends `{"documentId": "<id>"}` (or `GET /graphql?documentId=…`, or the id as
 *   `extensions.persistedQuery.sha256Hash`) instead of `query`.
 * - APQ (Apollo's protocol): a request with only `extensions.persistedQuery.sha256Hash` runs the
 *   document registered under that hash, or gets `PersistedQueryNotFound`; the client then sends the
 *   query with its hash, which is checked (SHA-256 of the query) and registered once the document
 *   passes validation and the query limits (when it is about to run). Registered hashes
 *   live in Redis when configured (`dg:apq:<hash>`, so one replica's registration serves all), in a
 *   bounded process map otherwise (and while Redis is down).
 * - `only`: nothing but the documents of the file runs (no raw document, no APQ registration),
 *   refused before parsing, so before any REST call; over graphql-sse's endpoint, refused at
 *   execution unless `persistedStreamQuery` resolved the operation's id.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { usePersistedOperations as useYogaPersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { GraphQLError } from 'graphql';
import { createGraphQLError, type GraphQLParams, type Plugin } from 'graphql-yoga';
import type { Logger } from '../../log.js';
import type { RedisHandle } from '../redis.js';

export interface PersistedOperationsOptions {
  /** id → document. */
  documents?: Record<string, string>;
  /** Refuse every operation that is not one of `documents`. */
  only?: boolean;
  /** Shared APQ store; process memory without it. */
  redis?: RedisHandle;
  log: Logger;
  /** Most APQ documents kept in process (default 1000). */
  maxLocalDocuments?: number;
  /** How long Redis keeps an APQ document after its registration (default a day). */
  apqTtlMs?: number;
}

/** Reads a persisted operations file (a JSON object of id → document), or throws a message naming it. */
export function loadPersistedOperations(file: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read the persisted operations file ${file}: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error(`${file}: expected a JSON object of id → GraphQL document`);
  for (const [id, document] of Object.entries(parsed))
    if (typeof document !== 'string') throw new Error(`${file}: the document of ${JSON.stringify(id)} is not a string`);
  return parsed as Record<string, string>;
}

interface ApqExtension {
  version?: unknown;
  sha256Hash?: unknown;
}

const apqOf = (params: GraphQLParams): ApqExtension | undefined =>
  (params.extensions as { persistedQuery?: ApqExtension } | undefined)?.persistedQuery;

const apqHash = (params: GraphQLParams): string | undefined => {
  const apq = apqOf(params);
  return apq?.version === 1 && typeof apq.sha256Hash === 'string' ? apq.sha256Hash : undefined;
};

/**
 * Yoga reads only `query`, `operationName`, `variables` and `extensions` from a GET's search
 * parameters (its `extraParamNames` apply to bodies); the id of `GET /graphql?documentId=…` is read
 * here. A mutation found under it is still refused over GET (Yoga's 405, once parsed).
 */
const documentIdOfGet = (request: Request): string | undefined =>
  request.method === 'GET' ? (new URL(request.url).searchParams.get('documentId') ?? undefined) : undefined;

/** Per gateway (its Yoga instance): the document of a graphql-sse operation's persisted id. */
const streamResolvers = new WeakMap<object, (request: Request, params: GraphQLParams) => string | undefined>();

/**
 * The persisted document a graphql-sse operation names, for `yoga`'s documents. graphql-sse's
 * handler skips Yoga's params step and keeps only `query`, `operationName`, `variables` and
 * `extensions`, so the id comes as `extensions.persistedQuery.sha256Hash` with an empty `query`.
 * Undefined when the operation names none of the file's documents (its `query` runs as sent, and
 * is refused under `only`).
 */
export const persistedStreamQuery = (yoga: object, request: Request, params: GraphQLParams): string | undefined =>
  streamResolvers.get(yoga)?.(request, params);

const badRequest = (message: string) =>
  createGraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });

export function usePersistedOperations(options: PersistedOperationsOptions): Plugin[] {
  const documents = new Map(Object.entries(options.documents ?? {}));
  const only = options.only ?? false;
  const apq = apqStore(options);
  const onlyError = () =>
    badRequest('Only persisted operations are accepted: send {"documentId": "<id>"} (the gateway runs with --persisted-only)');
  const viaParams = new WeakSet<Request>();
  // Registrations wait for the document to pass parsing, validation and the query limits: only a
  // document that runs is stored (garbage sent with its hash takes no room in Redis).
  const toRegister = new WeakMap<Request, [hash: string, document: string]>();
  // Synchronous unless there is something to do (an async hook costs every operation a promise).
  const atExecution = (context: { request?: Request }, stop: (result: { data: null; errors: GraphQLError[] }) => void) => {
    const { request } = context;
    if (!request) return;
    if (only && !viaParams.has(request)) return stop({ data: null, errors: [onlyError()] });
    if (toRegister.has(request)) return register(request);
  };
  const register = async (request: Request) => {
    const registration = toRegister.get(request);
    toRegister.delete(request);
    if (registration) await apq.set(...registration);
  };

  return [
    {
      onYogaInit({ yoga }) {
        streamResolvers.set(yoga, (request, params) => {
          const hash = params.query ? undefined : apqHash(params);
          const document = hash === undefined ? undefined : documents.get(hash);
          if (document !== undefined) viaParams.add(request);
          return document;
        });
      },
      // APQ registration: a query sent with its hash.
      onParams({ params, request }) {
        if (only) viaParams.add(request);
        const hash = apqHash(params);
        if (!params.query || hash === undefined) return;
        if (only) throw onlyError();
        if (createHash('sha256').update(params.query).digest('hex') !== hash.toLowerCase())
          throw badRequest('provided sha does not match query');
        toRegister.set(request, [hash.toLowerCase(), params.query]);
      },
      onExecute: ({ args, setResultAndStopExecution }) => atExecution(args.contextValue as { request?: Request }, setResultAndStopExecution),
      onSubscribe: ({ args, setResultAndStopExecution }) => atExecution(args.contextValue as { request?: Request }, setResultAndStopExecution),
      // A response-cache hit runs nothing, but its document ran (and validated) before for this caller.
      onExecutionResult: ({ request, result }) => {
        if ((result as Record<symbol, unknown>)[Symbol.for('servedFromResponseCache')] && toRegister.has(request)) return register(request);
      },
    },
    useYogaPersistedOperations({
      allowArbitraryOperations: !only,
      extractPersistedOperationId: (params, request) => {
        const documentId = (params as { documentId?: unknown }).documentId ?? documentIdOfGet(request);
        return typeof documentId === 'string' ? documentId : (apqHash(params) ?? null);
      },
      getPersistedOperation: async (id) => documents.get(id) ?? (only ? null : apq.get(id.toLowerCase())),
      customErrors: {
        // APQ clients (Apollo's link, Apollo Kotlin/iOS, urql) recognize the message and then register the
        // query; the code stays in the fixed set.
        notFound: { message: 'PersistedQueryNotFound', extensions: { code: 'BAD_USER_INPUT' } },
        keyNotFound: () => badRequest('Must provide a query, a documentId or extensions.persistedQuery.sha256Hash'),
        persistedQueryOnly: onlyError,
      },
    }),
  ];
}

interface ApqStore {
  get(hash: string): Promise<string | null>;
  set(hash: string, document: string): Promise<void>;
}

/** Redis when configured and up, else a bounded process map (oldest registration dropped first). */
function apqStore(options: PersistedOperationsOptions): ApqStore {
  const { redis, log } = options;
  const max = options.maxLocalDocuments ?? 1000;
  const ttl = options.apqTtlMs ?? 86_400_000;
  const local = new Map<string, string>();
  const remember = (hash: string, document: string) => {
    local.delete(hash);
    local.set(hash, document);
    if (local.size > max) local.delete(local.keys().next().value!);
  };
  const failed = (error: Error) => {
    log.debug('persisted queries: redis failed, using process memory', { error: error.name });
    return null;
  };
  const shared = () => redis && redis.isRedisReady();
  return {
    async get(hash) {
      const found = shared() ? await redis!.client.get(`dg:apq:${hash}`).catch(failed) : null;
      return found ?? local.get(hash) ?? null;
    },
    async set(hash, document) {
      if (shared()) await redis!.client.set(`dg:apq:${hash}`, document, 'PX', ttl).catch(failed);
      remember(hash, document);
    },
  };
}
