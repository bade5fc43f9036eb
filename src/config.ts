/**
 * Settings of the two commands (`start`: gateway + embedded upstream, `upstream`: the REST API
 * alone). Each setting is a `--flag` and an environment variable; flags win. A bad value stops the
 * start with a message that names the setting.
 */
export type Command = 'start' | 'upstream';

type Kind = 'int' | 'string' | 'url' | 'level' | 'origins' | 'redis' | 'choice' | 'bool';

interface Setting {
  key: keyof Config;
  flag: string;
  env: string;
  kind: Kind;
  help: string;
  /** Default per command (a function of the command). */
  fallback: (command: Command) => string | number | undefined;
  min?: number;
  max?: number;
  commands?: Command[];
  /** The values a `choice` setting accepts. */
  choices?: readonly string[];
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  command: Command;
  host: string;
  port: number;
  upstreamPort: number;
  db: string;
  upstreamUrl?: string;
  latencyMs: number;
  logLevel: LogLevel;
  rateLimit: number;
  upstreamConnectTimeoutMs: number;
  upstreamHeadersTimeoutMs: number;
  upstreamBodyTimeoutMs: number;
  upstreamRetries: number;
  upstreamRetryBudgetPercent: number;
  upstreamCircuitThreshold: number;
  upstreamCircuitCooldownMs: number;
  upstreamConcurrency: number;
  upstreamCallerConcurrency: number;
  upstreamQueueLimit: number;
  maxRestCalls: number;
  trustProxyHops: number;
  anonymousRateLimit: number;
  maxDepth: number;
  maxAliases: number;
  maxTokens: number;
  maxCost: number;
  defaultPageSize: number;
  maxPageSize: number;
  maxIds: number;
  maxFields: number;
  maxBodyBytes: number;
  maxDocumentBytes: number;
  maxResponseBytes: number;
  anonymousIntrospection?: boolean;
  corsOrigins?: string[];
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  metricsPath: string;
  redisUrl?: string;
  responseCacheTtlMs: number;
  callerRateLimit: number;
  callerRateLimitFailMode: 'open' | 'closed';
  redisRequired?: boolean;
  persistedOperations?: string;
  persistedOnly?: boolean;
  apqMaxBytes: number;
  apqQuota: number;
}

export const SETTINGS: Setting[] = [
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
    help: 'Interface to listen on',
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
    key: 'upstreamConnectTimeoutMs',
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
    key: 'upstreamHeadersTimeoutMs',
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
    key: 'upstreamBodyTimeoutMs',
    flag: '--upstream-body-timeout-ms',
    env: 'UPSTREAM_BODY_TIMEOUT_MS',
    kind: 'int',
    min: 1,
    max: 600_000,
    fallback: () => 30_000,
    commands: ['start'],
    help: 'Gateway: time allowed between two chunks of a REST response body',
  },
  {
    key: 'upstreamRetries',
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
    key: 'upstreamRetryBudgetPercent',
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
    key: 'upstreamCircuitThreshold',
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
    key: 'upstreamCircuitCooldownMs',
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
    key: 'upstreamConcurrency',
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
    key: 'upstreamCallerConcurrency',
    flag: '--upstream-caller-concurrency',
    env: 'UPSTREAM_CALLER_CONCURRENCY',
    kind: 'int',
    min: 1,
    max: 10_000,
    fallback: () => 64,
    commands: ['start'],
    help: 'Gateway: REST calls in flight at once per caller (token); more wait in the caller\'s queue',
  },
  {
    key: 'upstreamQueueLimit',
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
    flag: '--max-ids',
    env: 'MAX_QUERY_IDS',
    kind: 'int',
    min: 1,
    max: 10_000,
    fallback: () => 100,
    commands: ['start'],
    help: 'Gateway: most ids in one `nodes(ids:)` and representations in one `_entities` (each is priced as a REST call)',
  },
  {
    key: 'maxFields',
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
  },
  {
    key: 'anonymousIntrospection',
    flag: '--anonymous-introspection',
    env: 'ANONYMOUS_INTROSPECTION',
    kind: 'bool',
    fallback: () => undefined,
    commands: ['start'],
    help: 'Gateway: serve introspection (__schema, __type) to callers without a token too (a flag without value, or true/false); off: UNAUTHENTICATED',
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
    flag: '--headers-timeout-ms',
    env: 'HEADERS_TIMEOUT_MS',
    kind: 'int',
    min: 1000,
    max: 600_000,
    fallback: () => 10_000,
    commands: ['start'],
    help: 'Gateway: time a client has to send a request\'s headers (408 past it; at most --request-timeout-ms)',
  },
  {
    key: 'keepAliveTimeoutMs',
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
    key: 'maxConnections',
    flag: '--max-connections',
    env: 'MAX_CONNECTIONS',
    kind: 'int',
    min: 1,
    max: 1_000_000,
    fallback: () => 1_000,
    commands: ['start'],
    help: 'Gateway: connections held at once, event streams included (a new one past it is closed unanswered)',
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
    help: 'Gateway: while Redis is down, open lets operations through uncounted, closed refuses them',
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
    help: 'Gateway: JSON file of id → document (Relay persistConfig, Codegen client preset; ids as written) run by {"documentId": id} or GET ?documentId=',
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
    help: 'Gateway: automatic persisted queries one caller may register per hour (0: none); past it they run but are not kept',
  },
];

export class ConfigError extends Error {}

const settingsFor = (command: Command) => SETTINGS.filter((s) => !s.commands || s.commands.includes(command));

/** Reads flags (`--port 4100` or `--port=4100`) and environment variables into a typed config. */
export function parseConfig(command: Command, argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const settings = settingsFor(command);
  const fromFlags = new Map<Setting, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const setting = settings.find((s) => s.flag === flag);
    if (!setting) throw new ConfigError(`Unknown option ${flag} (see --help)`);
    const value = inline ?? (setting.kind === 'bool' ? 'true' : argv[++i]);
    if (value === undefined) throw new ConfigError(`${flag} needs a value`);
    fromFlags.set(setting, value);
  }
  const config: Record<string, unknown> = { command };
  for (const s of SETTINGS) {
    const applies = settings.includes(s);
    const raw = applies ? (fromFlags.get(s) ?? nonEmpty(env[s.env])) : undefined;
    const source = fromFlags.has(s) ? s.flag : `${s.env}`;
    config[s.key] = raw === undefined ? s.fallback(command) : convert(s, raw, source);
  }
  const c = config as unknown as Config;
  if (c.persistedOnly && !c.persistedOperations)
    throw new ConfigError('--persisted-only needs --persisted-operations (the file of the operations it accepts)');
  if (c.defaultPageSize > c.maxPageSize)
    throw new ConfigError(`--default-page-size (${c.defaultPageSize}) must not exceed --max-page-size (${c.maxPageSize})`);
  if (command === 'start' && c.upstreamCallerConcurrency > c.upstreamConcurrency)
    throw new ConfigError(`--upstream-caller-concurrency (${c.upstreamCallerConcurrency}) must not exceed --upstream-concurrency (${c.upstreamConcurrency})`);
  if (c.metricsPath !== 'off' && !/^\/[\w./-]*$/.test(c.metricsPath))
    throw new ConfigError(`--metrics-path: "${c.metricsPath}" must be a path starting with / or off`);
  return c;
}

const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

function convert(s: Setting, raw: string, source: string): unknown {
  switch (s.kind) {
    case 'int': {
      const n = Number(raw);
      if (!/^\d+$/.test(raw.trim()) || n < (s.min ?? 0) || n > (s.max ?? Number.MAX_SAFE_INTEGER))
        throw new ConfigError(`${source}: "${raw}" is not a whole number from ${s.min ?? 0} to ${s.max}`);
      return n;
    }
    case 'url': {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new ConfigError(`${source}: "${raw}" is not a URL`);
      }
      if (!/^https?:$/.test(url.protocol)) throw new ConfigError(`${source}: "${raw}" must be an http(s) URL`);
      const trimmed = raw.replace(/\/+$/, '');
      if (!trimmed.endsWith('/v1')) throw new ConfigError(`${source}: "${raw}" must end in /v1 (e.g. https://api.gitbook.com/v1)`);
      return trimmed;
    }
    case 'level':
      if (!(LOG_LEVELS as readonly string[]).includes(raw))
        throw new ConfigError(`${source}: "${raw}" must be one of ${LOG_LEVELS.join(', ')}`);
      return raw;
    case 'string':
      return raw;
    case 'origins': {
      const origins = raw.split(',').map((o) => o.trim()).filter(Boolean);
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
      return origins;
    }
    case 'redis':
      if (!/^rediss?:\/\/[^/]/.test(raw)) throw new ConfigError(`${source}: must be a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379)`);
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
  const lines = [title, '', `  ${'Option'.padEnd(36)} ${'Environment'.padEnd(28)} Meaning`, ...rows, `  ${'--help'.padEnd(36)} ${''.padEnd(28)} This text`];
  if (command === 'start') lines.push('', TRACING_HELP);
  return lines.join('\n');
}
