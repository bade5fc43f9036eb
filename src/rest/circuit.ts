/**
 * The circuit breaker of one upstream origin (cockatiel's ConsecutiveBreaker): after `threshold`
 * upstream-health failures in a row (no answer, a timeout, a 5xx; a 4xx is a healthy answer) it
 * opens, and every call fails at once without reaching the upstream; after `cooldownMs` the next
 * call is a probe (half-open: the others still fail fast), and its success closes the circuit.
 */
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhenResult, type CircuitBreakerPolicy } from 'cockatiel';

export type CircuitStateName = 'closed' | 'open' | 'half-open';

export interface CircuitConfig {
  /** Upstream-health failures in a row that open the circuit (default 10; 0 turns the breaker off). */
  threshold: number;
  /** Time open before a probe call, ms (default 5000). */
  cooldownMs: number;
}

export const DEFAULT_CIRCUIT: CircuitConfig = { threshold: 10, cooldownMs: 5_000 };

/** What a call through the circuit answers: `unhealthy` counts as a failure. */
export interface CircuitResult {
  unhealthy: boolean;
}

export interface CircuitEvents {
  onChange?: (state: CircuitStateName) => void;
  /** Where state changes are logged (warn when it opens, info when it closes). */
  logger?: { info(msg: string, fields?: Record<string, unknown>): void; warn(msg: string, fields?: Record<string, unknown>): void };
  /** Names the upstream in log lines (an origin: no path, query or credential). */
  origin: string;
}

export interface Circuit {
  /** Runs `fn` unless the circuit is open; throws `CircuitOpen` when it is. */
  run<T extends CircuitResult>(fn: () => Promise<T>): Promise<T>;
  readonly state: CircuitStateName;
}

/** Thrown by `Circuit.run` while the circuit is open: no call was made. */
export class CircuitOpen extends Error {}

const NAMES: Record<CircuitState, CircuitStateName> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half-open',
  [CircuitState.Isolated]: 'open',
};

export function createCircuit(config: CircuitConfig, events: CircuitEvents): Circuit {
  if (config.threshold <= 0) return { run: (fn) => fn(), state: 'closed' };
  const policy: CircuitBreakerPolicy = circuitBreaker(
    handleWhenResult((result) => (result as CircuitResult).unhealthy),
    { halfOpenAfter: config.cooldownMs, breaker: new ConsecutiveBreaker(config.threshold) },
  );
  const fields = { upstream: events.origin, threshold: config.threshold, cooldownMs: config.cooldownMs };
  policy.onStateChange((state) => {
    const name = NAMES[state];
    if (name === 'open') events.logger?.warn('upstream circuit open: failing fast until a probe succeeds', fields);
    else if (name === 'closed') events.logger?.info('upstream circuit closed: the upstream answers again', { upstream: events.origin });
    events.onChange?.(name);
  });
  return {
    async run(fn) {
      // While the probe runs, the others fail fast too (cockatiel would make them wait for it).
      if (policy.state === CircuitState.HalfOpen) throw new CircuitOpen();
      try {
        return await policy.execute(fn);
      } catch (error) {
        if (error instanceof BrokenCircuitError) throw new CircuitOpen();
        throw error;
      }
    },
    get state() {
      return NAMES[policy.state];
    },
  };
}
