/**
 * Persisted operations (Yoga's plugin) and automatic persisted queries.
 *
 * - `documents`: id → document, as the Relay compiler's `persistConfig` (md5/sha ids) and GraphQL
 *   Codegen's client preset (`persisted-documents.json`, `sha256:<hex>` ids) write, ids taken as
 *   written; a request sends `{"documentId": "<id>"}` (or `GET /graphql?documentId=…`, or the id as
 *   `extensions.persistedQuery.sha256Hash`) instead of `query`.
 * - APQ (Apollo's protocol): a request with only `extensions.persistedQuery.sha256Hash` runs the
 *   document its caller registered under that hash (`apqOwner`: another caller's registration is
 *   not found), or gets `PersistedQueryNotFound`; the client then sends the
 *   query with its hash, which is checked (SHA-256 of the query) and registered once the document
 *   passed parsing, validation and every query limit (depth, aliases, tokens, fields, cost): when
 *   it is about to be executed, so a refused document takes no room. A document over `apqMaxBytes`,
 *   or past its caller's `apqQuota` registrations in the hour, still runs but is not registered
 *   (the client keeps sending it whole: slower, never broken). Registered hashes live in Redis when
 *   configured (`dg:apq:<hash>`, and the caller's mark `dg:apq:by:<owner>:<hash>`, so one
 *   replica's registration serves all; the quota is counted
 *   there too; a value read there runs only if it has that hash), in a process map bounded in
 *   count and bytes otherwise (and while Redis is down); a caller whose token the REST API has not
 *   accepted registers in the process map only (Redis would hold a quota per client address).
 * - `only`: nothing but the documents of the file runs (no raw document, no APQ registration),
 *   refused before parsing, so before any REST call; over graphql-sse's endpoint, refused at
 *   execution unless `persistedStreamQuery` resolved the operation's id.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { LRUCache } from 'lru-cache';
import { usePersistedOperations as useYogaPersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { parse, specifiedRules, validate, type GraphQLError } from 'graphql';
import { createGraphQLError, envelop, type GraphQLParams, type Plugin } from 'graphql-yoga';
import { DEFAULTS } from '../../config.js';
import type { GatewayLimits } from '../../schema/context.js';
import { schema } from '../../schema/index.js';
import type { Logger } from '../../log.js';
import { ANONYMOUS, isAddressKey, jsonShape, provenBudget } from '../../rest/index.js';
import { callerIdentity } from '../lib/callerHash.js';
import { countInWindow, type RedisHandle } from '../redis.js';
import { servedFromCache } from '../lib/servedFromCache.js';
import { useMaxDocumentBytes } from './useMaxDocumentBytes.js';
import { useOneRuleValidation } from './useOneRuleValidation.js';
import { useDocumentLimits } from './useQueryLimits.js';

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
  /** Most characters of APQ documents kept in process, all together (default 4 M). */
  maxLocalChars?: number;
  /** How long Redis keeps an APQ document after its registration (default a day). */
  apqTtlMs?: number;
  /** Largest APQ document registered, in bytes (default: the table's, src/config.ts); a larger one runs unregistered. */
  apqMaxBytes?: number;
  /** APQ registrations per caller and hour (default: the table's; 0: none); past it, documents run unregistered. */
  apqQuota?: number;
  /** Clock of the quota's hour, in ms (default `performance.now`; tests). */
  now?: () => number;
}

const QUOTA_WINDOW_MS = 3_600_000;

/**
 * Bounds of the --persisted-operations file, checked before anything starts: read whole and kept,
 * a 14 MB file of 300,000 ids held 229 MB of RSS, and a 10 MB file of `[` took 750 MB to parse.
 * Each document is also checked as a request's would be (below), so a manifest that does not fit
 * the gateway stops its start instead of failing each request that names one of its ids.
 */
export const PERSISTED_FILE_MAX_BYTES = 16 * 1024 * 1024;
export const PERSISTED_MAX_IDS = 10_000;
/** Relay's ids are 32 or 64 hex digits, Codegen's `sha256:` and 64. */
export const PERSISTED_ID_MAX_LENGTH = 256;

/**
 * Reads a persisted operations file (a JSON object of id → document) and checks each document
 * against the schema and `limits` (those a request's document meets before execution: bytes,
 * tokens, fields, operation name, depth, aliases, and graphql-js's validation), or throws a
 * message naming the file (and the id).
 */
export function loadPersistedOperations(file: string, limits: GatewayLimits = DEFAULTS.limits): Record<string, string> {
  let parsed: unknown;
  let text: string;
  try {
    // A regular file only: /dev/zero was read until the process held 16 GB and aborted (50 s),
    // and a named pipe with no writer blocked the start for good.
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error('not a regular file');
    if (stat.size > PERSISTED_FILE_MAX_BYTES) throw new Error(`${stat.size} bytes, more than ${PERSISTED_FILE_MAX_BYTES}`);
    // A byte order mark (Windows editors write one) is no JSON, but no mistake either.
    text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    throw new Error(`Cannot read the persisted operations file ${file}: ${(error as Error).message}`, { cause: error });
  }
  // Its ids counted on the text, before it is parsed: 1.7 million tiny ones in 16 MiB ran the
  // heap out while parsing. A manifest is one object of strings (nesting 1 deep, an id per comma).
  const shape = jsonShape(text, 1);
  if (shape.tooDeep) throw new Error(`${file}: expected a JSON object of id → GraphQL document (no nested object or array)`);
  if (shape.commas + 1 > PERSISTED_MAX_IDS) throw new Error(`${file}: ${shape.commas + 1} ids, more than ${PERSISTED_MAX_IDS}`);
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // Without the text V8 quotes around an unexpected token: a file named by mistake (an .env)
    // had the start of a secret printed (`Unexpected token 'R', "REDIS_URL="... is not valid JSON`).
    const message = (error as Error).message.replace(/, (\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s, ' (not valid JSON)');
    throw new Error(`Cannot read the persisted operations file ${file}: ${message}`, { cause: error });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error(`${file}: expected a JSON object of id → GraphQL document`);
  const entries = Object.entries(parsed);
  // JSON.parse keeps the last of an id written twice (a merge of two manifests): its other document
  // was dropped without a word. An id per comma, so fewer ids than that means one came twice.
  if (entries.length > 0 && entries.length < shape.commas + 1)
    throw new Error(`${file}: ${shape.commas + 1 - entries.length} id(s) written more than once`);
  const check = documentCheck(limits);
  for (const [id, document] of entries) {
    const named = JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id);
    if (id === '' || id.length > PERSISTED_ID_MAX_LENGTH)
      throw new Error(`${file}: the id ${named} must have 1 to ${PERSISTED_ID_MAX_LENGTH} characters`);
    if (typeof document !== 'string') throw new Error(`${file}: the document of ${named} is not a string`);
    const problem = check(document);
    if (problem) throw new Error(`${file}: the document of ${named} would be refused: ${problem}`);
  }
  return parsed as Record<string, string>;
}

/**
 * The first error a request would get for `document` before its execution (the gateway's own
 * plugins, as it runs them), or undefined. Cost, list sizes and directive arguments depend on the
 * variables: they are checked per request.
 */
function documentCheck(limits: GatewayLimits): (document: string) => string | undefined {
  const getEnveloped = envelop({
    plugins: [
      {
        onPluginInit: ({ setSchema }) => setSchema(schema),
        onParse: ({ setParseFn }) => setParseFn(parse),
        onValidate: ({ setValidationFn }) => setValidationFn(validate),
      },
      useMaxDocumentBytes(limits.maxDocumentBytes),
      ...useDocumentLimits(limits),
      useOneRuleValidation(),
    ],
  });
  return (document) => {
    const run = getEnveloped({});
    try {
      const errors = run.validate(run.schema, run.parse(document), specifiedRules);
      return errors.length ? errors[0].message : undefined;
    } catch (error) {
      // A syntax error quotes the token it met: where a file of other strings (secrets.json) was
      // named by mistake, that is the secret. Its place instead.
      const at = (error as GraphQLError).locations?.[0];
      const message = (error as Error).message;
      return at && message.startsWith('Syntax Error:')
        ? `${message.replace(/ "[^"]*"/g, '').replace(/\.$/, '')} at line ${at.line}, column ${at.column}.`
        : message;
    }
  };
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
function documentIdOf(params: GraphQLParams, request: Request): string | undefined {
  const documentId =
    (params as { documentId?: unknown }).documentId ??
    (request.method === 'GET' ? new URL(request.url).searchParams.get('documentId') : undefined);
  return typeof documentId === 'string' ? documentId : undefined;
}

/** Per gateway (its Yoga instance): the document of a graphql-sse operation's persisted id. */
const streamResolvers = new WeakMap<object, (request: Request, params: GraphQLParams) => string | GraphQLError | undefined>();

/**
 * The persisted document a graphql-sse operation names, for `yoga`'s documents. graphql-sse's
 * handler skips Yoga's params step and keeps only `query`, `operationName`, `variables` and
 * `extensions`, so the id comes as `extensions.persistedQuery.sha256Hash` with an empty `query`.
 * PERSISTED_QUERY_NOT_FOUND when it sends an id without a query and the id is none of them, as
 * over HTTP (an APQ client then sends the query); undefined when it sends no id (its `query` runs
 * as sent, and is refused under `only`).
 */
export const persistedStreamQuery = (yoga: object, request: Request, params: GraphQLParams): string | GraphQLError | undefined =>
  streamResolvers.get(yoga)?.(request, params);

const persistedQueryNotFound = () => createGraphQLError('PersistedQueryNotFound', { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });

const badRequest = (message: string) => createGraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });

export function usePersistedOperations(options: PersistedOperationsOptions): Plugin[] {
  const documents = new Map(Object.entries(options.documents ?? {}));
  const only = options.only ?? false;
  const apq = apqStore(options);
  const quota = apqQuota(options);
  const maxBytes = options.apqMaxBytes ?? DEFAULTS.apqMaxBytes;
  const registers = (options.apqQuota ?? DEFAULTS.apqQuota) > 0;
  const onlyError = () =>
    badRequest('Only persisted operations are accepted: send {"documentId": "<id>"} (the gateway runs with --persisted-only)');
  const viaParams = new WeakSet<Request>();
  // Registrations wait for the document to pass parsing, validation and every query limit: only a
  // document that runs is stored (garbage sent with its hash takes no room in Redis).
  const toRegister = new WeakMap<Request, [hash: string, document: string]>();
  // The limits that price an operation (cost) refuse it in their own onExecute/onSubscribe, which
  // run after this one: the registration goes into the execute (subscribe) function itself, which
  // runs only once every plugin let the operation through. Synchronous unless there is something to
  // do (an async hook costs every operation a promise).
  const atExecution = <F extends (args: never) => unknown>(
    context: { request?: Request },
    stop: (result: { data: null; errors: GraphQLError[] }) => void,
    run: F,
    setRun: (run: F) => void,
  ) => {
    const { request } = context;
    if (!request) return;
    if (only && !viaParams.has(request)) return stop({ data: null, errors: [onlyError()] });
    if (toRegister.has(request)) setRun(((args: never) => register(request).then(() => run(args))) as F);
  };
  const register = async (request: Request) => {
    const registration = toRegister.get(request);
    toRegister.delete(request);
    if (!registration) return;
    const caller = provenBudget(callerIdentity(request));
    // Only a caller whose token the REST API accepted registers for every replica (Redis): one
    // without (no token, a made-up one, one not answered for yet) registers in this process's
    // bounded map. Counted per client address, anonymous registrations kept a day in Redis grew
    // with the number of addresses (20 addresses × 100 documents of 30 KB: 63 MB), without bound.
    const shared = !isAddressKey(caller);
    if (await quota.take(caller, shared)) await apq.set(apqOwner(request), ...registration, shared);
    else options.log.debug('persisted queries: caller over its APQ registration quota, not registered');
  };

  return [
    {
      onYogaInit({ yoga }) {
        streamResolvers.set(yoga, (request, params) => {
          const hash = params.query ? undefined : apqHash(params);
          if (hash === undefined) return undefined;
          const document = documents.get(hash);
          if (document === undefined) return persistedQueryNotFound();
          viaParams.add(request);
          return document;
        });
      },
      // APQ registration: a query sent with its hash.
      onParams({ params, request }) {
        if (only) viaParams.add(request);
        const hash = apqHash(params);
        if (!params.query || hash === undefined) return;
        if (only) throw onlyError();
        // Too large to keep (checked before hashing it): it runs as a plain query.
        if (!registers || params.query.length > maxBytes || Buffer.byteLength(params.query) > maxBytes) return;
        if (createHash('sha256').update(params.query).digest('hex') !== hash.toLowerCase())
          throw badRequest('provided sha does not match query');
        toRegister.set(request, [hash.toLowerCase(), params.query]);
      },
      onExecute: ({ args, setResultAndStopExecution, executeFn, setExecuteFn }) =>
        atExecution(args.contextValue as { request?: Request }, setResultAndStopExecution, executeFn, setExecuteFn),
      onSubscribe: ({ args, setResultAndStopExecution, subscribeFn, setSubscribeFn }) =>
        atExecution(args.contextValue as { request?: Request }, setResultAndStopExecution, subscribeFn, setSubscribeFn),
      // A response-cache hit runs nothing, but its document ran (and validated) before for this caller.
      onExecutionResult: ({ request, result }) => {
        if (servedFromCache(result) && toRegister.has(request)) return register(request);
      },
    },
    useYogaPersistedOperations({
      allowArbitraryOperations: !only,
      extractPersistedOperationId: (params, request) => documentIdOf(params, request) ?? apqHash(params) ?? null,
      getPersistedOperation: async (id, request) => documents.get(id) ?? (only ? null : apq.get(apqOwner(request), id.toLowerCase())),
      customErrors: {
        // An unknown APQ hash: APQ clients (Apollo's link, Apollo Kotlin/iOS, urql) recognize the message
        // and then register the query. An unknown documentId is the client's mistake (a manifest the
        // gateway was not given): nothing to retry.
        notFound: ({ params, request }) =>
          documentIdOf(params, request) === undefined
            ? persistedQueryNotFound()
            : badRequest('Unknown documentId: not one of the persisted documents the gateway was started with'),
        keyNotFound: () => badRequest('Must provide a query, a documentId or extensions.persistedQuery.sha256Hash'),
        persistedQueryOnly: onlyError,
      },
    }),
  ];
}

/**
 * Whose APQ registrations a request's are: its token's (the REST API's answer for it aside: a
 * token's first registration, made before that answer, is its own), or its client address's
 * without one. Its quota is counted as its other budgets are (provenBudget).
 */
function apqOwner(request: Request): string {
  const { key, address } = callerIdentity(request);
  return key === ANONYMOUS ? address : key;
}

interface ApqStore {
  /** The document `owner` registered under `hash`, if any. */
  get(owner: string, hash: string): Promise<string | null>;
  /** Registers `document` for `owner`: in Redis too when `shared` (and Redis is up). */
  set(owner: string, hash: string, document: string, shared: boolean): Promise<void>;
}

const redisFailed = (log: Logger) => (error: Error) => {
  log.debug('persisted queries: redis failed, using process memory', { error: error.name });
  return null;
};

/** Redis when configured and up, else a process map bounded in count and characters (oldest registration dropped first). */
function apqStore(options: PersistedOperationsOptions): ApqStore {
  const { redis, log } = options;
  const max = options.maxLocalDocuments ?? 1000;
  const maxChars = options.maxLocalChars ?? 4_000_000;
  const ttl = options.apqTtlMs ?? 86_400_000;
  const local = new Map<string, string>();
  let chars = 0;
  const remember = (hash: string, document: string) => {
    forget(hash);
    local.set(hash, document);
    chars += document.length;
    while (local.size > max || chars > maxChars) forget(local.keys().next().value!);
  };
  const forget = (hash: string) => {
    chars -= local.get(hash)?.length ?? 0;
    local.delete(hash);
  };
  const maxBytes = options.apqMaxBytes ?? DEFAULTS.apqMaxBytes;
  const failed = redisFailed(log);
  const shared = () => redis && redis.isRedisReady();
  /**
   * What Redis holds under a hash is a document only if it has that hash: a value another program
   * (or anyone who can write to Redis) put there ran in place of the caller's document. Read up to
   * one byte more than any registration holds, so a larger value is neither read whole nor taken.
   */
  const registered = (hash: string, found: string | null) =>
    found && createHash('sha256').update(found).digest('hex') === hash ? found : null;
  // Who registered what: a document runs by its hash only for a caller that registered it. Shared,
  // a hash alone told any caller (one without a token too) whether another had sent that document
  // in the last day, literals and all (an `ask` query, an id): a guess confirmed. Documents stay
  // kept once per hash; each caller's registrations are marks (in Redis: `dg:apq:by:<caller>:<hash>`).
  const marks = new LRUCache<string, true>({ max: 10 * max });
  const mark = (owner: string, hash: string) => `${owner}\n${hash}`;
  const markKey = (owner: string, hash: string) => `dg:apq:by:${owner}:${hash}`;
  const fromRedis = async (owner: string, hash: string) => {
    const read = await redis!.ask(() =>
      redis!.client.pipeline().exists(markKey(owner, hash)).getrange(`dg:apq:${hash}`, 0, maxBytes).exec(),
    );
    const [[, marked], [, value]] = (read ?? [[], []]) as Array<[unknown, unknown]>;
    return marked === 1 && typeof value === 'string' ? registered(hash, value) : null;
  };
  return {
    async get(owner, hash) {
      // A caller without a token registers in this process only.
      const found = shared() && !isAddressKey(owner) ? await fromRedis(owner, hash).catch(failed) : null;
      return found ?? (marks.has(mark(owner, hash)) ? (local.get(hash) ?? null) : null);
    },
    async set(owner, hash, document, everywhere) {
      // Waited for whole (not `ask`'s short bound): another replica may be asked for it next.
      if (everywhere && shared())
        await redis!.client
          .multi()
          .set(`dg:apq:${hash}`, document, 'PX', ttl)
          .set(markKey(owner, hash), '1', 'PX', ttl)
          .exec()
          .catch(failed);
      remember(hash, document);
      marks.set(mark(owner, hash), true);
    },
  };
}

interface ApqQuota {
  /** Counts one registration of `caller` in the current hour (in Redis too when `shared`); false past the quota. */
  take(caller: string, shared: boolean): Promise<boolean>;
}

/**
 * Registrations per caller (its hash, never its token) in fixed hours: counted in Redis when it is
 * up (`dg:apq:quota:<caller>`, for all replicas), in a bounded process map otherwise.
 */
function apqQuota(options: PersistedOperationsOptions): ApqQuota {
  const { redis, log } = options;
  const limit = options.apqQuota ?? DEFAULTS.apqQuota;
  // Monotonic, as the rate limit's windows: on the wall clock, a step forward gave every caller a
  // fresh quota at once, and a step back made its hour longer by the step.
  const now = options.now ?? (() => performance.now());
  const failed = redisFailed(log);
  const local = new Map<string, { count: number; until: number }>();
  const countLocally = (caller: string) => {
    const t = now();
    let entry = local.get(caller);
    if (!entry || entry.until <= t) {
      local.delete(caller);
      local.set(caller, (entry = { count: 0, until: t + QUOTA_WINDOW_MS }));
      // One entry per caller seen in the hour, the oldest dropped first past 10 000.
      if (local.size > 10_000) local.delete(local.keys().next().value!);
    }
    return ++entry.count;
  };
  const countShared = async (caller: string) => {
    const counted = await countInWindow(redis!, `dg:apq:quota:${caller}`, QUOTA_WINDOW_MS).catch(failed);
    return typeof counted?.[0] === 'number' ? counted[0] : null;
  };
  return {
    async take(caller, shared) {
      const count = (shared && redis && redis.isRedisReady() ? await countShared(caller) : null) ?? countLocally(caller);
      return count <= limit;
    },
  };
}
