/** The REST client's reliability settings: flags and env vars, --help, and what a bad value says. */
import { describe, expect, it } from 'vitest';
import { ConfigError, helpText, parseConfig } from '../../src/config.js';

describe('reliability settings', () => {
  it('have defaults, flags and environment variables', () => {
    const defaults = parseConfig('start', [], {});
    expect(defaults.rest).toMatchObject({
      retries: 3,
      retryBudgetPercent: 20,
      circuitThreshold: 10,
      circuitCooldownMs: 5_000,
      concurrency: 128,
      callerConcurrency: 64,
      queueLimit: 1_000,
    });
    const set = parseConfig(
      'start',
      ['--upstream-circuit-threshold', '0', '--upstream-circuit-cooldown-ms=250', '--upstream-concurrency', '16'],
      {
        UPSTREAM_CALLER_CONCURRENCY: '4',
        UPSTREAM_QUEUE_LIMIT: '10',
        UPSTREAM_RETRY_BUDGET_PERCENT: '5',
      },
    );
    expect(set.rest).toMatchObject({
      circuitThreshold: 0,
      circuitCooldownMs: 250,
      concurrency: 16,
      callerConcurrency: 4,
      queueLimit: 10,
      retryBudgetPercent: 5,
    });
  });

  it('are listed by --help', () => {
    const help = helpText('start');
    for (const flag of [
      '--upstream-circuit-threshold',
      '--upstream-circuit-cooldown-ms',
      '--upstream-retry-budget-percent',
      '--upstream-concurrency',
      '--upstream-caller-concurrency',
      '--upstream-queue-limit',
    ]) {
      expect(help).toContain(flag);
    }
  });

  it('refuse bad values with a message naming the setting', () => {
    expect(() => parseConfig('start', ['--upstream-retry-budget-percent', '101'], {})).toThrow(/--upstream-retry-budget-percent: "101"/);
    expect(() => parseConfig('start', [], { UPSTREAM_CIRCUIT_COOLDOWN_MS: 'soon' })).toThrow(/UPSTREAM_CIRCUIT_COOLDOWN_MS/);
    expect(() => parseConfig('start', ['--upstream-caller-concurrency', '200'], {})).toThrow(ConfigError);
    expect(() => parseConfig('start', ['--upstream-caller-concurrency', '200'], {})).toThrow(/must not exceed --upstream-concurrency/);
  });
});
