import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, helpText, parseConfig, SETTINGS } from '../src/config.js';

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
    const c = parseConfig('start', ['--redis-url', 'redis://127.0.0.1:6380', '--response-cache-ttl-ms=5000', '--persisted-operations', 'ops.json', '--persisted-only'], {
      CALLER_RATE_LIMIT: '600',
      CALLER_RATE_LIMIT_FAIL_MODE: 'closed',
    });
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
    expect(() => parseConfig('start', [], { CALLER_RATE_LIMIT_FAIL_MODE: 'maybe' })).toThrow(/CALLER_RATE_LIMIT_FAIL_MODE: "maybe" must be one of open, closed/);
    expect(() => parseConfig('start', ['--persisted-only'], {})).toThrow(/--persisted-only needs --persisted-operations/);
    expect(helpText('start')).toMatch(/--persisted-only {2,}PERSISTED_ONLY/);
  });
});
