/**
 * Settings of the two commands (`start`: gateway + embedded upstream, `upstream`: the REST API
 * alone). Each setting is a `--flag` and an environment variable; flags win. A bad value stops the
 * start with a message that names the setting.
 */
import { parseArgs } from 'node:util';
import { getHeapStatistics } from 'node:v8';
import { DEFAULT_IPV6_PREFIX } from './clientNetwork.js';

export type Command = 'start' | 'upstream';

type Kind = 'int' | 'string' | 'url' | 'level' | 'origins' | 'redis' | 'choice' | 'bool';

/**
 * The consumer a setting belongs to: its settings form the object that consumer takes, under the
 * same names (`rest`: the REST client, `createRestClient`; `limits`: the operation limits of the
 * schema and its plugins; `http`: the HTTP server's bounds). Ungrouped settings sit at the top.
 */
export type Group = 'rest' | 'limits' | 'http';

export interface Setting {
  /** The name in the config (within its group) and in the consumer's options. */
  key: string;
  group?: Group;
  flag: `--${string}`;
  env: string;
  kind: Kind;
  help: string;
  /** Default per command (a function of the command); undefined: the setting is optional. */
  fallback: (command: Command) => string | number | undefined;
  min?: number;
  max?: number;
  commands?: readonly Command[];
  /** The values a `choice` setting accepts. */
  choices?: readonly string[];
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Every setting, declared once: a new setting is one entry here (its type in `Config` follows from `kind` and `fallback`). */
const TABLE = [
  {
    key: 'port',
    flag: '--port',
    env: 'PORT',
    kind: 'int',
    min: 0,
    max: 65535,
    fallback: (c) => (c === 'start' ? 4000 : 4010),
    help: 'Port of the server the command starts (gateway for start, REST API for upstream)',
  },
  {
    key: 'host',
    flag: '--host',
    env: 'HOST',
    kind: 'string',
    fallback: () => '127.0.0.1',
    help: 'Interface to listen on (under start, the gateway only: the embedded REST API listens on 127.0.0.1)',
  },
  {
    key: 'upstreamPort',
    flag: '--upstream-port',
    env: 'UPSTREAM_PORT',
    kind: 'int',
    min: 0,
    max: 65535,
    fallback: () => 4010,
    commands: ['start'],
    help: 'Port of the embedded REST API under start',
  },
  {
    key: 'db',
    flag: '--db',
    env: 'DOCS_GRAPH_DB',
    kind: 'string',
    fallback: () => './data/docs-graph.db',
    help: 'SQLite file of the embedded REST API, or :memory:',
  },
  {
    key: 'dbMaxBytes',
    flag: '--db-max-bytes',
    env: 'DOCS_GRAPH_DB_MAX_BYTES',
    kind: 'int',
    min: 0,
    max: 1_000_000_000_000,
    fallback: () => 256 * 1024 * 1024,
    help: 'Largest size of the embedded REST API database: a write that needs more is answered 507 (0: no cap)',
  },
  {
    key: 'upstreamUrl',
    flag: '--upstream-url',
    env: 'GITBOOK_API_URL',
    kind: 'url',
    fallback: () => undefined,
    commands: ['start'],
    help: 'Upstream REST API base URL ending in /v1 (e.g. https://api.gitbook.com/v1); when set, no embedded upstream starts',
  },
  {
    key: 'latencyMs',
    flag: '--latency-ms',
    env: 'UPSTREAM_LATENCY_MS',
    kind: 'int',
    min: 0,
    max: 60_000,
    fallback: () => 0,
    help: 'Artificial delay the embedded REST API adds to each response, in ms',
  },
  {
    key: 'logLevel',
    flag: '--log-level',
    env: 'LOG_LEVEL',
    kind: 'level',
    fallback: () => 'info',
    help: `Log level: ${LOG_LEVELS.join(', ')} (info logs no line per request, debug does)`,
  },
  {
    key: 'rateLimit',
    flag: '--rate-limit',
    env: 'UPSTREAM_RATE_LIMIT',
    kind: 'int',
    min: 0,
    max: 1_000_000,
    fallback: () => 0,
    help: 'Requests per minute and token the embedded REST API accepts before answering 429 (0: no limit)',
  },
  {
    key: 'connectTimeoutMs',
    group: 'rest',
    flag: '--upstream-connect-timeout-ms',
    env: 'UPSTREAM_CONNECT_TIMEOUT_MS',
    kind: 'int',
    min: 1,
    max: 600_000,
    fallback: () => 5_000,
    commands: ['start'],
    help: 'Gateway: time allowed to connect to the REST API',
  },
  {
    key: 'headersTimeoutMs',
    group: 'rest',
    flag: '--upstream-headers-timeout-ms',
    env: 'UPSTREAM_HEADERS_TIMEOUT_MS',
    kind: 'int',
    min: 1,
    max: 600_000,
    fallback: () => 15_000,
    commands: ['start'],
    help: 'Gateway: time allowed for the REST API to send response headers',
  },
  {
    key: 'bodyTimeoutMs',
    group: 'rest',
    flag: '--upstream-body-timeout-ms',
    env: 'UPSTREAM_BODY_TIMEOUT_MS',
    kind: 'int',
    min: 1,
    // A REST call (its attempts, their bodies) ends at its 30 s deadline (rest/client.ts): up to
    // 600000 was accepted, and any gap past 30 s was cut there all the same.
    max: 30_000,
    fallback: () => 30_000,
    commands: ['start'],
    help: "Gateway: time allowed between two chunks of a REST response body (at most a call's 30 s deadline)",
  },
  {
    key: 'retries',
    group: 'rest',
    flag: '--upstream-retries',
    env: 'UPSTREAM_RETRIES',
    kind: 'int',
    min: 0,
    max: 10,
    fallback: () => 3,
    commands: ['start'],
    help: 'Gateway: retries of an idempotent read on 429/502/503/504 or a connection reset (within the retry budget)',
  },
  {
    key: 'retryBudgetPercent',
    group: 'rest',
    flag: '--upstream-retry-budget-percent',
    env: 'UPSTREAM_RETRY_BUDGET_PERCENT',
    kind: 'int',
    min: 0,
    max: 100,
    fallback: () => 20,
    commands: ['start'],
    help: 'Gateway: retries allowed, as a share of the REST calls of the last 10 s (plus 10 per second)',
  },
  {
    key: 'circuitThreshold',
    group: 'rest',
    flag: '--upstream-circuit-threshold',
    env: 'UPSTREAM_CIRCUIT_THRESHOLD',
    kind: 'int',
    min: 0,
    max: 10_000,
    fallback: () => 10,
    commands: ['start'],
    help: 'Gateway: REST failures in a row on one route (5xx, timeout; from 2 callers or more), or failures to connect, that open its circuit, failing fast with UPSTREAM_UNAVAILABLE (0: no breaker)',
  },
  {
    key: 'circuitCooldownMs',
    group: 'rest',
    flag: '--upstream-circuit-cooldown-ms',
    env: 'UPSTREAM_CIRCUIT_COOLDOWN_MS',
    kind: 'int',
    min: 1,
    max: 3_600_000,
    fallback: () => 5_000,
    commands: ['start'],
    help: 'Gateway: time the circuit stays open before one probe call; its success closes it',
  },
  {
    key: 'concurrency',
    group: 'rest',
    flag: '--upstream-concurrency',
    env: 'UPSTREAM_CONCURRENCY',
    kind: 'int',
    min: 1,
    max: 10_000,
    fallback: () => 128,
    commands: ['start'],
    help: 'Gateway: REST calls in flight at once, in total (also the connections to the REST API)',
  },
  {
    key: 'callerConcurrency',
    group: 'rest',
    flag: '--upstream-caller-concurrency',
    env: 'UPSTREAM_CALLER_CONCURRENCY',
    kind: 'int',
    min: 1,
    max: 10_000,
    fallback: () => 64,
    commands: ['start'],
    help: "Gateway: REST calls in flight at once per caller (token); more wait in the caller's queue",
  },
  {
    key: 'callerBytesPerSecond',
    group: 'rest',
    flag: '--upstream-caller-bytes-per-second',
    env: 'UPSTREAM_CALLER_BYTES_PER_SECOND',
    kind: 'int',
    min: 0,
    max: 1_000_000_000,
    fallback: () => 1_048_576,
    commands: ['start'],
    help: 'Gateway: bytes of large REST answers and of large results served from a cache (64 KiB or more each) per second and caller, 4 s of it at once (0: no bound); a caller past it waits, or gets RATE_LIMITED when the wait would outlast its call',
  },
  {
    key: 'queueLimit',
    group: 'rest',
    flag: '--upstream-queue-limit',
    env: 'UPSTREAM_QUEUE_LIMIT',
    kind: 'int',
    min: 0,
    max: 1_000_000,
    fallback: () => 1_000,
    commands: ['start'],
    help: 'Gateway: REST calls of one caller waiting for a slot before more get RATE_LIMITED (10 times this in total: UPSTREAM_UNAVAILABLE)',
  },
  {
    key: 'maxRestCalls',
    flag: '--max-rest-calls',
    env: 'MAX_REST_CALLS',
    kind: 'int',
    min: 1,
    max: 1_000_000,
    fallback: () => 1_000,
    commands: ['start'],
    help: 'Gateway: most REST calls one operation may make; past it, its further fields get BAD_USER_INPUT (maxRestCalls) and no call',
  },
  {
    key: 'trustProxyHops',
    flag: '--trust-proxy-hops',
    env: 'TRUST_PROXY_HOPS',
    kind: 'int',
    min: 0,
    max: 10,
    fallback: () => 0,
    commands: ['start'],
    help: 'Gateway: reverse proxies in front of the gateway whose X-Forwarded-For is trusted for the client address (0: the socket address)',
  },
  {
    key: 'anonymousRateLimit',
    flag: '--anonymous-rate-limit',
    env: 'ANONYMOUS_RATE_LIMIT',
    kind: 'int',
    min: 0,
    max: 1_000_000,
    fallback: () => 600,
    commands: ['start'],
    help: 'Gateway: operations per minute per client address for callers without a known token (none, or one the REST API has not accepted yet); 0: no limit',
  },
  {
    key: 'maxDepth',
    group: 'limits',
    flag: '--max-depth',
    env: 'MAX_QUERY_DEPTH',
    kind: 'int',
    min: 1,
    max: 100,
    fallback: () => 16,
    commands: ['start'],
    help: 'Gateway: deepest query accepted',
  },
  {
    key: 'maxAliases',
    group: 'limits',
    flag: '--max-aliases',
    env: 'MAX_QUERY_ALIASES',
    kind: 'int',
    min: 1,
    max: 1000,
    fallback: () => 30,
    commands: ['start'],
    help: 'Gateway: most aliases accepted in one query',
  },
  {
    key: 'maxTokens',
    group: 'limits',
    flag: '--max-tokens',
    env: 'MAX_QUERY_TOKENS',
    kind: 'int',
    min: 10,
    max: 100_000,
    fallback: () => 2_000,
    commands: ['start'],
    help: 'Gateway: most tokens accepted in one query document',
  },
  {
    key: 'maxCost',
    group: 'limits',
    flag: '--max-cost',
    env: 'MAX_QUERY_COST',
    kind: 'int',
    min: 1,
    max: 10_000_000,
    fallback: () => 50_000,
    commands: ['start'],
    help: 'Gateway: highest query cost accepted (connection `first` multiplies the cost of what is below it)',
  },
  {
    key: 'defaultPageSize',
    group: 'limits',
    flag: '--default-page-size',
    env: 'DEFAULT_PAGE_SIZE',
    kind: 'int',
    min: 1,
    max: 1000,
    fallback: () => 20,
    commands: ['start'],
    help: 'Gateway: `first` of a connection when not given',
  },
  {
    key: 'maxPageSize',
    group: 'limits',
    flag: '--max-page-size',
    env: 'MAX_PAGE_SIZE',
    kind: 'int',
    min: 1,
    max: 1000,
    fallback: () => 100,
    commands: ['start'],
    help: 'Gateway: largest `first` accepted',
  },
  {
    key: 'maxIds',
    group: 'limits',
    flag: '--max-ids',
    env: 'MAX_QUERY_IDS',
    kind: 'int',
    min: 1,
    max: 10_000,
    fallback: () => 100,
    commands: ['start'],
    help: 'Gateway: most ids and representations in all the `nodes(ids:)` and `_entities` lists of one operation (each is priced as a REST call)',
  },
  {
    key: 'maxListItems',
    group: 'limits',
    flag: '--max-list-items',
    env: 'MAX_LIST_ITEMS',
    kind: 'int',
    min: 1,
    max: 100_000,
    fallback: () => 1000,
    commands: ['start'],
    help: "Gateway: most items in one list the variables pass where the schema takes a list (an argument's or an input field's, e.g. a grant's `users`); a JSON value's own arrays are not counted",
  },
  {
    key: 'maxFields',
    group: 'limits',
    flag: '--max-fields',
    env: 'MAX_QUERY_FIELDS',
    kind: 'int',
    min: 1,
    max: 100_000,
    fallback: () => 200,
    commands: ['start'],
    help: 'Gateway: most fields written in one query document (checked before validation, which grows with their square)',
  },
  {
    key: 'maxBodyBytes',
    flag: '--max-body-bytes',
    env: 'MAX_REQUEST_BODY_BYTES',
    kind: 'int',
    min: 1024,
    max: 100_000_000,
    fallback: () => 1_000_000,
    commands: ['start'],
    help: 'Gateway: largest request body accepted (413 past it, chunked bodies included)',
  },
  {
    key: 'maxDocumentBytes',
    flag: '--max-document-bytes',
    env: 'MAX_DOCUMENT_BYTES',
    kind: 'int',
    min: 1024,
    max: 100_000_000,
    fallback: () => 65_536,
    commands: ['start'],
    help: 'Gateway: largest query document in UTF-8 bytes, checked before parsing (BAD_USER_INPUT past it)',
    group: 'limits',
  },
  {
    key: 'maxResponseBytes',
    flag: '--max-response-bytes',
    env: 'MAX_RESPONSE_BYTES',
    kind: 'int',
    min: 1024,
    max: 1_000_000_000,
    fallback: () => 4 * 1024 * 1024,
    commands: ['start'],
    help: 'Gateway: largest result (all parts of a streamed one), each occurrence of an object counted, refused before it is serialized (BAD_USER_INPUT)',
    group: 'limits',
  },
  {
    key: 'maxResultValues',
    flag: '--max-result-values',
    env: 'MAX_RESULT_VALUES',
    kind: 'int',
    min: 100,
    max: 100_000_000,
    fallback: () => 50_000,
    commands: ['start'],
    help: "Gateway: most values an operation's connections may bring into its result, each item and each field selected on it counted as pages are read (BAD_USER_INPUT past it)",
    group: 'limits',
  },
  {
    key: 'anonymousIntrospection',
    flag: '--anonymous-introspection',
    env: 'ANONYMOUS_INTROSPECTION',
    kind: 'bool',
    fallback: () => undefined,
    commands: ['start'],
    help: 'Gateway: serve introspection (__schema, __type) to callers without a token too (a flag without value, or true/false); off: UNAUTHENTICATED',
    group: 'limits',
  },
  {
    key: 'corsOrigins',
    flag: '--cors-origin',
    env: 'CORS_ORIGIN',
    kind: 'origins',
    fallback: () => undefined,
    commands: ['start'],
    help: 'Gateway: comma-separated origins allowed by CORS (e.g. https://app.example.com); unset: CORS off',
  },
  {
    key: 'requestTimeoutMs',
    group: 'http',
    flag: '--request-timeout-ms',
    env: 'REQUEST_TIMEOUT_MS',
    kind: 'int',
    min: 1000,
    max: 600_000,
    fallback: () => 20_000,
    commands: ['start'],
    help: 'Gateway: time a client has to send a whole request, headers and body (408 past it; responses and event streams are not bounded by it)',
  },
  {
    key: 'headersTimeoutMs',
    group: 'http',
    flag: '--headers-timeout-ms',
    env: 'HEADERS_TIMEOUT_MS',
    kind: 'int',
    min: 1000,
    max: 600_000,
    fallback: () => 10_000,
    commands: ['start'],
    help: "Gateway: time a client has to send a request's headers (408 past it; at most --request-timeout-ms)",
  },
  {
    key: 'keepAliveTimeoutMs',
    group: 'http',
    flag: '--keep-alive-timeout-ms',
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    kind: 'int',
    min: 1000,
    max: 600_000,
    fallback: () => 5_000,
    commands: ['start'],
    help: 'Gateway: an idle keep-alive connection closes after this (behind a load balancer: longer than its idle timeout)',
  },
  {
    key: 'writeStallTimeoutMs',
    group: 'http',
    flag: '--write-stall-timeout-ms',
    env: 'WRITE_STALL_TIMEOUT_MS',
    kind: 'int',
    min: 1000,
    max: 600_000,
    fallback: () => 30_000,
    commands: ['start'],
    help: 'Gateway: a connection whose client has read nothing of what waits to be written to it (a result, an event stream) for this long is closed',
  },
  {
    key: 'maxConnections',
    group: 'http',
    flag: '--max-connections',
    env: 'MAX_CONNECTIONS',
    kind: 'int',
    min: 1,
    max: 1_000_000,
    fallback: () => 1_000,
    commands: ['start'],
    help: 'Gateway: connections held at once, event streams included (a new one past it is closed unanswered, unless its client address holds fewer than another, which then gives up one)',
  },
  {
    key: 'maxConnectionsPerAddress',
    group: 'http',
    flag: '--max-connections-per-address',
    env: 'MAX_CONNECTIONS_PER_ADDRESS',
    kind: 'int',
    min: 0,
    max: 1_000_000,
    fallback: () => 250,
    commands: ['start'],
    help: "Gateway: connections one client address holds at once (a new one past it is closed unanswered; 0: no cap; not applied with --trust-proxy-hops, where the address is a proxy's)",
  },
  {
    key: 'ipv6Prefix',
    group: 'http',
    flag: '--ipv6-prefix',
    env: 'IPV6_PREFIX',
    kind: 'int',
    min: 32,
    max: 128,
    fallback: () => DEFAULT_IPV6_PREFIX,
    commands: ['start'],
    help: 'Gateway: bits of an IPv6 client address that name one client for the per-address limits (64: its /64, the least an ISP hands one line; 128: each address)',
  },
  {
    key: 'metricsPath',
    flag: '--metrics-path',
    env: 'METRICS_PATH',
    kind: 'string',
    fallback: () => '/metrics',
    commands: ['start'],
    help: 'Gateway: path of the Prometheus metrics endpoint, or off (no metrics at all)',
  },
  {
    key: 'redisUrl',
    flag: '--redis-url',
    env: 'REDIS_URL',
    kind: 'redis',
    fallback: () => undefined,
    commands: ['start'],
    help: 'Gateway: Redis shared by replicas (redis://host:port) for the response cache, caller rate limit and persisted queries; process memory when unset',
  },
  {
    key: 'responseCacheTtlMs',
    flag: '--response-cache-ttl-ms',
    env: 'RESPONSE_CACHE_TTL_MS',
    kind: 'int',
    min: 0,
    max: 86_400_000,
    fallback: () => 0,
    commands: ['start'],
    help: 'Gateway: time a query result stays in the per-caller response cache, in ms (0: no cache)',
  },
  {
    key: 'callerRateLimit',
    flag: '--caller-rate-limit',
    env: 'CALLER_RATE_LIMIT',
    kind: 'int',
    min: 0,
    max: 1_000_000,
    fallback: () => 0,
    commands: ['start'],
    help: 'Gateway: operations per minute and token, across replicas (0: no limit); over it RATE_LIMITED',
  },
  {
    key: 'callerRateLimitFailMode',
    flag: '--caller-rate-limit-fail-mode',
    env: 'CALLER_RATE_LIMIT_FAIL_MODE',
    kind: 'choice',
    choices: ['open', 'closed'],
    fallback: () => 'open',
    commands: ['start'],
    help: "Gateway: while Redis is down, open counts operations in each replica's memory (each allows the limit), closed refuses them",
  },
  {
    key: 'redisRequired',
    flag: '--redis-required',
    env: 'REDIS_REQUIRED',
    kind: 'bool',
    fallback: () => undefined,
    commands: ['start'],
    help: 'Gateway: GET /ready answers 503 while Redis is down or skipped (default: reported, the replica stays ready)',
  },
  {
    key: 'persistedOperations',
    flag: '--persisted-operations',
    env: 'PERSISTED_OPERATIONS',
    kind: 'string',
    fallback: () => undefined,
    commands: ['start'],
    help: 'Gateway: JSON file of id → document (Relay persistConfig, Codegen client preset; ids as written) run by {"documentId": id} or GET ?documentId=; at most 16 MiB and 10,000 ids, each document checked at start',
  },
  {
    key: 'persistedOnly',
    flag: '--persisted-only',
    env: 'PERSISTED_ONLY',
    kind: 'bool',
    fallback: () => undefined,
    commands: ['start'],
    help: 'Gateway: refuse every operation that is not in --persisted-operations (a flag without value, or true/false)',
  },
  {
    key: 'apqMaxBytes',
    flag: '--apq-max-bytes',
    env: 'APQ_MAX_BYTES',
    kind: 'int',
    min: 0,
    max: 1_000_000,
    fallback: () => 32_768,
    commands: ['start'],
    help: 'Gateway: largest automatic persisted query registered, in bytes; a larger one runs but is not kept',
  },
  {
    key: 'apqQuota',
    flag: '--apq-quota',
    env: 'APQ_QUOTA',
    kind: 'int',
    min: 0,
    max: 1_000_000,
    fallback: () => 100,
    commands: ['start'],
    help: 'Gateway: automatic persisted queries one caller (a token the REST API accepted, else the client address) may register per hour (0: none); past it they run but are not kept',
  },
] as const satisfies readonly Setting[];

type Entry = (typeof TABLE)[number];
/** The table as its entries' common shape (for walking it). */
export const SETTINGS: readonly Setting[] = TABLE;
/** The value type of a setting, from its kind. */
type ValueOf<E extends Entry> = E extends { kind: 'int' }
  ? number
  : E extends { kind: 'level' }
    ? LogLevel
    : E extends { kind: 'origins' }
      ? string[]
      : E extends { kind: 'bool' }
        ? boolean
        : E extends { kind: 'choice'; choices: readonly (infer C)[] }
          ? C
          : string;
/** The settings of a set of entries, optional when their default is undefined. */
type Fields<E extends Entry> = { [S in E as undefined extends ReturnType<S['fallback']> ? never : S['key']]: ValueOf<S> } & {
  [S in E as undefined extends ReturnType<S['fallback']> ? S['key'] : never]?: ValueOf<S>;
};
export type GroupConfig<G extends Group> = Fields<Extract<Entry, { group: G }>>;

/** The parsed settings: ungrouped ones at the top, each group as the object its consumer takes. */
export type Config = { command: Command } & Fields<Exclude<Entry, { group: Group }>> & { [G in Group]: GroupConfig<G> };

export class ConfigError extends Error {}

/**
 * A quarter of V8's heap limit (about 38 MiB under `npm start`): the bytes of results being written
 * at once (useMaxResponseBytes.ts), and so the largest result the heap holds while it is written.
 */
export const resultsHeapBytes = () => Math.floor(getHeapStatistics().heap_size_limit / 4);

const settingsFor = (command: Command) => SETTINGS.filter((s) => !s.commands || s.commands.includes(command));

/** Paths the gateway serves besides its metrics: GraphQL (and below it: graphql-sse's, GraphiQL's assets), liveness and readiness. */
const SERVED_PATHS = ['/graphql', '/health', '/ready'];
const served = (path: string) => SERVED_PATHS.includes(path) || path.startsWith('/graphql/');

/** Reads flags (`--port 4100` or `--port=4100`) and environment variables into a typed config. */
export function parseConfig(command: Command, argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const settings = settingsFor(command);
  const fromFlags = readFlags(settings, argv);
  const values = new Map<Setting, unknown>();
  for (const s of SETTINGS) {
    const applies = settings.includes(s);
    const raw = applies ? (fromFlags.get(s) ?? nonEmpty(env[s.env])) : undefined;
    const source = fromFlags.has(s) ? s.flag : `${s.env}`;
    values.set(s, raw === undefined ? s.fallback(command) : convert(s, raw, source));
  }
  const c = assemble(command, values);
  if (c.persistedOnly && !c.persistedOperations)
    throw new ConfigError('--persisted-only needs --persisted-operations (the file of the operations it accepts)');
  // A result's JSON text is on the heap while it is written: under `npm start`, --max-response-bytes
  // 1000000000 let one token's 120 MB result (150 aliases of a 800 KB comment) run the heap out.
  if (command === 'start' && c.limits.maxResponseBytes > resultsHeapBytes())
    throw new ConfigError(
      `--max-response-bytes (${c.limits.maxResponseBytes}) must not exceed a quarter of the heap limit (${resultsHeapBytes()} under this process's --max-old-space-size): a result is on the heap while it is written`,
    );
  // Without Redis, /ready had no Redis to require, and the fail mode no Redis to fail: each was taken
  // and did nothing. REDIS_REQUIRED=true with REDIS_URL empty (a secret not mounted: empty is unset)
  // ran every replica on its own memory, each ready, each counting its callers alone.
  if (!c.redisUrl && (c.redisRequired || c.callerRateLimitFailMode === 'closed'))
    throw new ConfigError(
      `${c.redisRequired ? '--redis-required' : '--caller-rate-limit-fail-mode closed'} needs --redis-url (without Redis it does nothing)`,
    );
  if (c.limits.defaultPageSize > c.limits.maxPageSize)
    throw new ConfigError(`--default-page-size (${c.limits.defaultPageSize}) must not exceed --max-page-size (${c.limits.maxPageSize})`);
  if (command === 'start' && c.rest.callerConcurrency > c.rest.concurrency)
    throw new ConfigError(
      `--upstream-caller-concurrency (${c.rest.callerConcurrency}) must not exceed --upstream-concurrency (${c.rest.concurrency})`,
    );
  // One port for both servers: the embedded REST API took it and the gateway then failed with
  // "the port is already in use", after the demo content was written.
  if (command === 'start' && !c.upstreamUrl && c.port !== 0 && c.port === c.upstreamPort)
    throw new ConfigError(`--port and --upstream-port (${c.port}) must differ: the gateway and the embedded REST API each listen on one`);
  // `.`, `..` and empty segments: clients resolve them away before asking, so the metrics were unreachable.
  if (c.metricsPath !== 'off' && (!/^\/[\w./-]*$/.test(c.metricsPath) || /\/\/|\/\.\.?(\/|$)/.test(c.metricsPath)))
    throw new ConfigError(`--metrics-path: "${c.metricsPath}" must be a path starting with / (no empty, . or .. segment) or off`);
  // On /graphql the metrics answered every GraphQL request; on /health, /ready or /graphql/stream they were unreachable.
  if (served(c.metricsPath.replace(/\/+$/, '')))
    throw new ConfigError(
      `--metrics-path: "${c.metricsPath}" is a path the gateway serves already (${SERVED_PATHS.join(', ')} and below /graphql)`,
    );
  return c;
}

/**
 * The raw value of each flag given, tokenized by `node:util` parseArgs (`--flag value`,
 * `--flag=value`; a bool flag alone means true, `--flag=false` is accepted too). Later flags win.
 */
function readFlags(settings: readonly Setting[], argv: string[]): Map<Setting, string> {
  const byName = new Map(settings.map((s) => [s.flag.slice(2), s]));
  const options = Object.fromEntries(
    settings.map((s) => [s.flag.slice(2), { type: s.kind === 'bool' ? ('boolean' as const) : ('string' as const) }]),
  );
  // Not strict: unknown options, positionals and a bool's inline value come back as tokens, judged below.
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  const fromFlags = new Map<Setting, string>();
  let previous: Setting | undefined;
  for (const token of tokens) {
    if (token.kind === 'option-terminator') throw new ConfigError('Unknown option -- (see --help)');
    const name = token.kind === 'option' ? token.rawName : token.value;
    // `--redis-required false`: a bool flag alone is true, so `false` came as an unknown option.
    if (token.kind === 'positional' && previous?.kind === 'bool')
      throw new ConfigError(`${previous.flag} takes its value after = (${previous.flag}=${token.value}), not as the next argument`);
    const setting = token.kind === 'option' && token.rawName.startsWith('--') ? byName.get(token.name) : undefined;
    previous = setting;
    if (!setting) throw new ConfigError(`Unknown option ${name} (see --help)`);
    const value = token.kind === 'option' ? (token.value ?? (setting.kind === 'bool' ? 'true' : undefined)) : undefined;
    // An empty value is none (`--host "$HOST"` with HOST unset): taken as given, `--host ''` listened
    // on every interface, `--db ''` kept the data in a temporary file and `--persisted-operations ''`
    // loaded nothing, each without a word.
    if (value === undefined || value.trim() === '') throw new ConfigError(`${setting.flag} needs a value`);
    fromFlags.set(setting, value);
  }
  return fromFlags;
}

/** The values of the table's settings as a Config: ungrouped at the top, the others under their group. */
function assemble(command: Command, values: Map<Setting, unknown>): Config {
  const config: Record<string, unknown> = { command, rest: {}, limits: {}, http: {} };
  for (const [s, value] of values) (s.group ? (config[s.group] as Record<string, unknown>) : config)[s.key] = value;
  // The keys and value types are those `Config` derives from the same table (see `convert`).
  return config as Config;
}

/** `defaults` overridden by the values of `given` that are not undefined. */
export function withDefaults<T extends object>(defaults: T, given: Partial<T> | undefined): T {
  const out = { ...defaults };
  for (const [key, value] of Object.entries(given ?? {})) if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  return out;
}

/** An environment variable set to nothing, or to blanks only, is unset: `DOCS_GRAPH_DB=' '` made a database file named ` `. */
const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v);

function redisUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    return false;
  }
  // The scheme as written, in lower case and first: ioredis turns TLS on for `rediss://` alone, so
  // `REDISS://` (which the URL parser lowers) sent the password in the clear, and a leading blank
  // (which it drops) ended the start with a stack trace printing the URL, password included.
  return /^rediss?:\/\//.test(raw) && url.hostname !== '' && /^(\/\d*)?$/.test(url.pathname);
}

function convert(s: Setting, raw: string, source: string): unknown {
  switch (s.kind) {
    case 'int': {
      const n = Number(raw);
      if (!/^\d+$/.test(raw.trim()) || n < (s.min ?? 0) || n > (s.max ?? Number.MAX_SAFE_INTEGER))
        throw new ConfigError(`${source}: "${raw}" is not a whole number from ${s.min ?? 0} to ${s.max}`);
      return n;
    }
    case 'url': {
      // Shown without what stands between `//` and the last `@`: a password must not reach a terminal
      // or a log. A password holding `/`, `?` or `#` (written unescaped) ends the URL's authority
      // there, and the rest of it was shown in "is not a URL".
      const shown = raw.replace(/\/\/.*@/, '//…@');
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new ConfigError(`${source}: "${shown}" is not a URL`);
      }
      if (!/^https?:$/.test(url.protocol)) throw new ConfigError(`${source}: "${shown}" must be an http(s) URL`);
      // The REST client calls the URL's origin and path: a user and password were never sent (each
      // caller's token is) but were printed at start, and a query or fragment went to /ready only.
      // An `@` in the path is one whose user or password held a `/` (`https://me/x:pw@host/v1` is
      // the host `me`): printed at start as well.
      if (url.username || url.password || url.pathname.includes('@'))
        throw new ConfigError(`${source}: must hold no user or password (each caller's token is sent)`);
      if (url.search || url.hash || raw.includes('?') || raw.includes('#'))
        throw new ConfigError(`${source}: "${shown}" must have no query or fragment`);
      const trimmed = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
      if (!trimmed.endsWith('/v1')) throw new ConfigError(`${source}: "${shown}" must end in /v1 (e.g. https://api.gitbook.com/v1)`);
      return trimmed;
    }
    case 'level':
      if (!(LOG_LEVELS as readonly string[]).includes(raw))
        throw new ConfigError(`${source}: "${raw}" must be one of ${LOG_LEVELS.join(', ')}`);
      return raw;
    case 'string':
      return raw;
    case 'origins': {
      const origins = raw
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean);
      for (const origin of origins) {
        let parsed: URL | undefined;
        try {
          parsed = new URL(origin);
        } catch {
          parsed = undefined;
        }
        if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin)
          throw new ConfigError(`${source}: "${origin}" is not an origin (scheme://host[:port], no path or trailing slash)`);
      }
      // `--cors-origin ,` turned CORS off, as unset.
      if (!origins.length) throw new ConfigError(`${source}: names no origin`);
      return origins;
    }
    case 'redis':
      // Checked as ioredis reads it (WHATWG URL, the user and password percent-decoded, the path a
      // database number), never shown (it may hold a password): a port past 65535, a space in the
      // host or a bad %-escape ended the start with a stack trace that printed the URL, after the
      // embedded REST API had started, and `/abc` as the database was taken as database 0.
      if (!redisUrl(raw))
        throw new ConfigError(
          `${source}: must be a redis:// or rediss:// URL: redis[s]://[[user]:password@]host[:port][/db] (e.g. redis://127.0.0.1:6379)`,
        );
      return raw;
    case 'choice':
      if (!s.choices!.includes(raw)) throw new ConfigError(`${source}: "${raw}" must be one of ${s.choices!.join(', ')}`);
      return raw;
    case 'bool':
      if (!/^(true|false|1|0)$/.test(raw)) throw new ConfigError(`${source}: "${raw}" must be true or false`);
      return raw === 'true' || raw === '1';
  }
}

/** Tracing takes the standard OpenTelemetry variables rather than settings of its own. */
export const TRACING_HELP =
  'Tracing: OpenTelemetry spans are exported when OTEL_EXPORTER_OTLP_ENDPOINT is set (the other standard OTEL_* variables apply; see docs/OPERATIONS.md)';

/** The --help text of a command. */
export function helpText(command: Command): string {
  const title =
    command === 'start'
      ? 'npm start [-- options]: the GraphQL gateway, with the embedded REST API unless --upstream-url is set'
      : 'npm run upstream [-- options]: the embedded REST API alone';
  const rows = settingsFor(command).map((s) => {
    const def = s.fallback(command);
    return `  ${`${s.flag}${s.kind === 'bool' ? '' : ' <value>'}`.padEnd(36)} ${s.env.padEnd(28)} ${s.help}${def === undefined ? '' : ` (default ${def})`}`;
  });
  const lines = [
    title,
    '',
    `  ${'Option'.padEnd(36)} ${'Environment'.padEnd(28)} Meaning`,
    ...rows,
    `  ${'--help'.padEnd(36)} ${''.padEnd(28)} This text`,
  ];
  if (command === 'start') lines.push('', TRACING_HELP);
  return lines.join('\n');
}

/** The defaults of the gateway's settings (`start` with nothing set): what its consumers fill absent options from. */
export const DEFAULTS: Config = parseConfig('start', [], {});
