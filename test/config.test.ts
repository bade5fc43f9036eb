import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULTS, helpText, parseConfig, SETTINGS } from '../src/config.js';

describe('config', () => {
  it('defaults per command', () => {
    const start = parseConfig('start', [], {});
    expect(start).toMatchObject({ port: 4000, upstreamPort: 4010, db: './data/docs-graph.db', latencyMs: 0, logLevel: 'info' });
    expect(start.upstreamUrl).toBeUndefined();
    expect(parseConfig('upstream', [], {}).port).toBe(4010);
  });

  it('flags win over the environment; both forms of flags work', () => {
    const c = parseConfig('start', ['--port', '4100', '--latency-ms=25'], { PORT: '5000', UPSTREAM_LATENCY_MS: '3', LOG_LEVEL: 'debug' });
    expect(c).toMatchObject({ port: 4100, latencyMs: 25, logLevel: 'debug' });
  });

  it('a bad value stops with a message that names the setting', () => {
    expect(() => parseConfig('start', ['--port', 'abc'], {})).toThrow(/--port: "abc"/);
    expect(() => parseConfig('start', [], { PORT: '70000' })).toThrow(/PORT: "70000"/);
    expect(() => parseConfig('start', [], { LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => parseConfig('start', ['--upstream-url', 'https://api.gitbook.com'], {})).toThrow(/must end in \/v1/);
    expect(() => parseConfig('start', ['--nope', '1'], {})).toThrow(ConfigError);
    expect(() => parseConfig('upstream', ['--upstream-url', 'https://api.gitbook.com/v1'], {})).toThrow(/Unknown option/);
    expect(() => parseConfig('start', ['--default-page-size', '200', '--max-page-size', '100'], {})).toThrow(/default-page-size/);
    expect(() => parseConfig('start', ['--port', '4010'], {})).toThrow('--port and --upstream-port (4010) must differ');
    // A call ends at its 30 s deadline: a longer gap between two chunks was accepted, and cut there.
    expect(() => parseConfig('start', [], { UPSTREAM_BODY_TIMEOUT_MS: '60000' })).toThrow(
      'UPSTREAM_BODY_TIMEOUT_MS: "60000" is not a whole number from 1 to 30000',
    );
    for (const path of ['/graphql', '/graphql/', '/health', '/ready'])
      expect(() => parseConfig('start', ['--metrics-path', path], {})).toThrow(
        `--metrics-path: "${path}" is a path the gateway serves already`,
      );
    expect(parseConfig('start', ['--metrics-path', '/graphql-metrics'], {}).metricsPath).toBe('/graphql-metrics');
    expect(parseConfig('start', ['--port', '4010', '--upstream-url', 'https://api.gitbook.com/v1'], {}).port).toBe(4010);
    expect(parseConfig('start', ['--port', '0', '--upstream-port', '0'], {}).port).toBe(0);
  });

  it('refuses a URL, origin list or path that would start silently wrong, never showing a password', () => {
    const refusal = (argv: string[], env: Record<string, string> = {}) => {
      try {
        parseConfig('start', argv, env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as Error).message).not.toContain('s3cret');
        return (error as Error).message;
      }
      return 'accepted';
    };
    // A user and password were never sent (the REST client calls the origin with each caller's
    // token) but `Upstream: <url>` printed them; a query or fragment went to /ready's check only.
    expect(refusal(['--upstream-url', 'https://me:s3cret@api.example.com/v1'])).toBe(
      "--upstream-url: must hold no user or password (each caller's token is sent)",
    );
    expect(refusal([], { GITBOOK_API_URL: 'https://me:s3cret@exa mple.com/v1' })).toBe(
      'GITBOOK_API_URL: "https://…@exa mple.com/v1" is not a URL',
    );
    // A password holding `/`, `?` or `#` (unescaped) ends the authority there: "is not a URL" quoted
    // the rest of it, and a user holding `/` made the host the user and the password part of the
    // path, printed at start (`Upstream: https://me/x:s3cret@…`).
    for (const c of ['/', '?', '#'])
      expect(refusal(['--upstream-url', `https://me:s3${c}cret@api.example.com/v1`])).toBe(
        '--upstream-url: "https://…@api.example.com/v1" is not a URL',
      );
    expect(refusal([], { GITBOOK_API_URL: 'https://me/x:s3cret@api.example.com/v1' })).toBe(
      "GITBOOK_API_URL: must hold no user or password (each caller's token is sent)",
    );
    expect(refusal(['--upstream-url', 'https://api.example.com/v1?v=/v1'])).toMatch(/must have no query or fragment$/);
    expect(refusal(['--upstream-url', 'https://api.example.com/v1#/v1'])).toMatch(/must have no query or fragment$/);
    expect(parseConfig('start', ['--upstream-url', 'https:/API.example.com:443/v1/'], {}).upstreamUrl).toBe('https://api.example.com/v1');
    // Each ended the start with a stack trace printing the URL, after the embedded REST API had started.
    for (const url of ['redis://:s3cret@127.0.0.1:99999', 'redis://me:s3cret@', 'redis://:s3cret@a b:6379', 'redis://:s3cret%zz@h:6379'])
      expect(refusal(['--redis-url', url])).toMatch(/^--redis-url: must be a redis:\/\/ or rediss:\/\/ URL/);
    // Taken as database 0.
    expect(refusal([], { REDIS_URL: 'redis://:s3cret@h:6379/cache' })).toMatch(/^REDIS_URL: must be a redis:\/\//);
    // ioredis reads the scheme as written: without TLS (the password sent in the clear), and a stack
    // trace printing the password after the embedded REST API had started.
    for (const url of ['REDISS://:s3cret@h:6380', 'Redis://:s3cret@h:6379', ' redis://:s3cret@h:6379'])
      expect(refusal([], { REDIS_URL: url })).toMatch(/^REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(parseConfig('start', [], { REDIS_URL: 'redis://h:6379/2\n' }).redisUrl).toBe('redis://h:6379/2\n');
    expect(parseConfig('start', ['--redis-url', 'rediss://me:s3cret@[::1]:6380/2'], {}).redisUrl).toBe('rediss://me:s3cret@[::1]:6380/2');
    // CORS off, as unset.
    expect(refusal(['--cors-origin', ' , '])).toBe('--cors-origin: names no origin');
    // Unreachable: graphql-sse answers there, and clients resolve `..` and `//` away.
    expect(refusal(['--metrics-path', '/graphql/stream'])).toMatch(/is a path the gateway serves already/);
    for (const path of ['/ready/../metrics', '//metrics', '/a/./b'])
      expect(refusal(['--metrics-path', path])).toMatch(/must be a path starting with \/ \(no empty, \. or \.\. segment\) or off$/);
  });

  it('takes an environment variable set to blanks as unset, as one set to nothing', () => {
    // A database file named ` ` in the working directory; a gateway listening on no interface.
    expect(parseConfig('start', [], { DOCS_GRAPH_DB: ' ', HOST: '\t', PORT: '  ' })).toMatchObject({
      db: './data/docs-graph.db',
      host: '127.0.0.1',
      port: 4000,
    });
  });

  it('accepts the hosted API URL', () => {
    expect(parseConfig('start', [], { GITBOOK_API_URL: 'https://api.gitbook.com/v1/' }).upstreamUrl).toBe('https://api.gitbook.com/v1');
  });

  it('--help and the README list every setting', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const s of SETTINGS) {
      expect(readme).toContain(`\`${s.flag}\``);
      expect(readme).toContain(`\`${s.env}\``);
      const help = helpText(s.commands?.[0] ?? 'start');
      expect(help).toContain(s.flag);
    }
  });

  it('scale-out settings: Redis URL, cache TTL, caller rate limit and its fail mode, persisted operations', () => {
    const c = parseConfig(
      'start',
      ['--redis-url', 'redis://127.0.0.1:6380', '--response-cache-ttl-ms=5000', '--persisted-operations', 'ops.json', '--persisted-only'],
      {
        CALLER_RATE_LIMIT: '600',
        CALLER_RATE_LIMIT_FAIL_MODE: 'closed',
      },
    );
    expect(c).toMatchObject({
      redisUrl: 'redis://127.0.0.1:6380',
      responseCacheTtlMs: 5000,
      callerRateLimit: 600,
      callerRateLimitFailMode: 'closed',
      persistedOperations: 'ops.json',
      persistedOnly: true,
    });
    expect(parseConfig('start', [], {})).toMatchObject({ responseCacheTtlMs: 0, callerRateLimit: 0, callerRateLimitFailMode: 'open' });
    expect(parseConfig('start', [], { PERSISTED_OPERATIONS: 'ops.json', PERSISTED_ONLY: 'false' }).persistedOnly).toBe(false);
    expect(parseConfig('start', [], {})).toMatchObject({ apqMaxBytes: 32_768, apqQuota: 100 });
    expect(parseConfig('start', ['--apq-max-bytes=4096'], { APQ_QUOTA: '0' })).toMatchObject({ apqMaxBytes: 4096, apqQuota: 0 });
    expect(() => parseConfig('start', ['--redis-url', 'http://cache:6379'], {})).toThrow(/--redis-url: must be a redis:\/\//);
    expect(() => parseConfig('start', [], { CALLER_RATE_LIMIT_FAIL_MODE: 'maybe' })).toThrow(
      /CALLER_RATE_LIMIT_FAIL_MODE: "maybe" must be one of open, closed/,
    );
    expect(() => parseConfig('start', ['--persisted-only'], {})).toThrow(/--persisted-only needs --persisted-operations/);
    // Taken, and nothing done: /ready had no Redis to require, the rate limit no Redis to fail.
    expect(() => parseConfig('start', [], { REDIS_REQUIRED: 'true', REDIS_URL: '' })).toThrow(
      '--redis-required needs --redis-url (without Redis it does nothing)',
    );
    expect(() => parseConfig('start', ['--caller-rate-limit-fail-mode', 'closed'], {})).toThrow(
      '--caller-rate-limit-fail-mode closed needs --redis-url (without Redis it does nothing)',
    );
    expect(helpText('start')).toMatch(/--persisted-only {2,}PERSISTED_ONLY/);
  });

  it('gives each consumer its settings as one object, named as it takes them', () => {
    const c = parseConfig('start', ['--upstream-connect-timeout-ms=700', '--max-depth', '9', '--headers-timeout-ms=3000'], {
      UPSTREAM_RETRIES: '1',
    });
    expect(c.rest).toMatchObject({ connectTimeoutMs: 700, retries: 1, headersTimeoutMs: 15_000, concurrency: 128 });
    expect(c.limits).toMatchObject({ maxDepth: 9, defaultPageSize: 20, maxIds: 100 });
    expect(c.http).toEqual({
      requestTimeoutMs: 20_000,
      headersTimeoutMs: 3000,
      keepAliveTimeoutMs: 5000,
      writeStallTimeoutMs: 30_000,
      maxConnections: 1000,
      maxConnectionsPerAddress: 250,
      ipv6Prefix: 64,
    });
    expect(Object.keys(c.rest).length + Object.keys(c.limits).length + Object.keys(c.http).length).toBe(
      SETTINGS.filter((s) => s.group).length,
    );
  });

  it("the defaults consumers fill absent options from are the table's (those --help shows)", () => {
    const help = helpText('start');
    for (const s of SETTINGS.filter((s) => !s.commands || s.commands.includes('start'))) {
      const value = s.group
        ? DEFAULTS[s.group][s.key as keyof (typeof DEFAULTS)[typeof s.group]]
        : DEFAULTS[s.key as keyof typeof DEFAULTS];
      expect(value).toEqual(s.fallback('start'));
      if (value !== undefined) expect(help).toContain(`(default ${value})`);
    }
  });

  it('reads flags as before: last one wins, a bool alone is true or takes =true/=false, anything else is refused', () => {
    expect(parseConfig('start', ['--port', '5', '--port=6'], {}).port).toBe(6);
    const redis = ['--redis-url', 'redis://127.0.0.1:6379'];
    expect(parseConfig('start', ['--redis-required', ...redis], {}).redisRequired).toBe(true);
    expect(parseConfig('start', ['--redis-required=false'], { REDIS_REQUIRED: 'true' }).redisRequired).toBe(false);
    // `false` was an unknown option: said as the mistake it is.
    expect(() => parseConfig('start', ['--redis-required', 'false'], {})).toThrow(
      '--redis-required takes its value after = (--redis-required=false), not as the next argument',
    );
    expect(() => parseConfig('start', ['--port', '1', 'true'], {})).toThrow('Unknown option true (see --help)');
    expect(() => parseConfig('start', ['--port'], {})).toThrow('--port needs a value');
    for (const flag of ['--host', '--db', '--persisted-operations', '--cors-origin', '--port'])
      expect(() => parseConfig('start', [flag, ' '], {})).toThrow(`${flag} needs a value`);
    expect(() => parseConfig('start', ['-p', '1'], {})).toThrow('Unknown option -p (see --help)');
    expect(() => parseConfig('start', ['--', '--port', '1'], {})).toThrow('Unknown option -- (see --help)');
  });
});
