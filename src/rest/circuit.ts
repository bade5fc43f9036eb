/**
 * Circuit breakers of one upstream, so that one caller's failing requests never fail everyone's:
 *
 * - one circuit per route template (routes.ts: `/spaces/{spaceId}`, never an id): a 5xx or a
 *   timeout counts against its route only. A route opens after `threshold` failures in a row
 *   (any answer below 500 on that route resets the run) that came from at least `minCallers`
 *   distinct callers: one token hammering an id that makes the upstream fail cannot open it, not
 *   even for its own route's other callers, and it fails only on its own calls (each answered 500);
 * - one circuit for the origin, counting only failures to connect at all (refused, connect
 *   timeout, unknown host), which no caller's input can cause: when it opens, every route fails
 *   fast, whoever asks.
 *
 * An open circuit refuses calls (`CircuitOpen`, no upstream call) for `cooldownMs`; then the next
 * call is a probe (half-open: the others still fail fast) whose success closes it and whose
 * failure opens it again. One warn line when a circuit opens and one info line when it closes;
 * each refusal is reported to `onRefusal` (a metric), never logged.
 *
 * Hand-written rather than cockatiel's breaker: that one is a single circuit with `Date.now()`
 * inside; these are keyed, count callers, and read an injectable clock (clock.ts).
 */
import type { Clock } from './clock.js';
import type { Health } from './responses.js';

export type CircuitStateName = 'closed' | 'open' | 'half-open';

export interface CircuitConfig {
  /** Failures in a row that open a circuit (the `circuitThreshold` setting; 0 turns the breakers off). */
  threshold: number;
  /** Time open before a probe call, ms (the `circuitCooldownMs` setting). */
  cooldownMs: number;
  /** Distinct callers among a route's failures before it opens (default 2; the origin's needs none). */
  minCallers: number;
}

/** What is not a setting; threshold and cool-down come from src/config.ts. */
export const DEFAULT_CIRCUIT: Pick<CircuitConfig, 'minCallers'> = { minCallers: 2 };

/** The origin's circuit, beside the route templates'. */
export const ORIGIN = '*';

export interface CircuitEvents {
  /** The worst state of all circuits changed (`open` while any is open). */
  onChange?: (state: CircuitStateName) => void;
  /** A call was refused by an open circuit (`route` is its template, or `*` for the origin). */
  onRefusal?: (route: string) => void;
  /** Where state changes are logged (warn when one opens, info when it closes). */
  logger?: { info(msg: string, fields?: Record<string, unknown>): void; warn(msg: string, fields?: Record<string, unknown>): void };
  /** Names the upstream in log lines (an origin: no path, query or credential). */
  origin: string;
}

/** Thrown by `Circuits.admit` while a circuit is open: no call was made. */
export class CircuitOpen extends Error {
  constructor(readonly route: string) {
    super('circuit open');
  }
}

interface CircuitState {
  state: CircuitStateName;
  /** Failures in the current run, and (up to minCallers of) the callers they came from. */
  failures: number;
  callers: Set<string>;
  openedAt: number;
  /** Half-open: the probe call is out. */
  probing: boolean;
}

/** A call let through: report its outcome with `done`. */
export interface Admission {
  done(health: Health): void;
}

const NOOP: Admission = { done: () => undefined };

function probe(circuit: CircuitState): void {
  circuit.state = 'half-open';
  circuit.probing = true;
}

export class Circuits {
  private readonly circuits = new Map<string, CircuitState>();
  private readonly origin = this.circuit(ORIGIN);
  private worst: CircuitStateName = 'closed';

  constructor(
    private readonly config: CircuitConfig,
    private readonly events: CircuitEvents,
    private readonly clock: Clock,
  ) {}

  /**
   * Throws CircuitOpen (and reports the refusal) when a call on `route` would be refused now, and
   * takes no probe: the transport asks before its call waits for a concurrency slot, and admits it
   * once it holds one (a probe that waited behind its caller's slow calls kept the route refused
   * to every other caller for up to their deadline, the upstream answering again).
   */
  refuse(route: string): void {
    if (this.config.threshold <= 0) return;
    const blocked = this.blocks(this.origin) ? ORIGIN : this.blocks(this.circuit(route)) ? route : undefined;
    if (blocked === undefined) return;
    this.events.onRefusal?.(blocked);
    throw new CircuitOpen(blocked);
  }

  /** Lets a call of `caller` on `route` through, or throws CircuitOpen (and reports the refusal). */
  admit(route: string, caller: string): Admission {
    if (this.config.threshold <= 0) return NOOP;
    this.refuse(route);
    const origin = this.origin;
    const own = this.circuit(route);
    // A circuit past its cool-down lets this one call through as its probe.
    const probesOrigin = origin.state !== 'closed';
    const probesOwn = own.state !== 'closed';
    if (probesOrigin) probe(origin);
    if (probesOwn) probe(own);
    if (probesOrigin || probesOwn) this.changed();
    return {
      done: (health) => {
        if (probesOrigin) origin.probing = false;
        if (probesOwn) own.probing = false;
        if (health === 'neutral') return;
        if (health === 'origin') return this.failed(ORIGIN, origin, undefined);
        // The upstream answered (or timed out): it is reachable.
        this.succeeded(ORIGIN, origin);
        if (health === 'healthy') this.succeeded(route, own);
        else this.failed(route, own, caller);
      },
    };
  }

  private circuit(route: string): CircuitState {
    let circuit = this.circuits.get(route);
    if (!circuit) this.circuits.set(route, (circuit = { state: 'closed', failures: 0, callers: new Set(), openedAt: 0, probing: false }));
    return circuit;
  }

  /** Open and cooling down, or half-open with its probe out: calls fail fast. */
  private blocks(circuit: CircuitState): boolean {
    if (circuit.state === 'closed') return false;
    if (circuit.state === 'open' && this.clock.now() - circuit.openedAt < this.config.cooldownMs) return true;
    return circuit.probing;
  }

  private succeeded(route: string, circuit: CircuitState): void {
    circuit.failures = 0;
    circuit.callers.clear();
    if (circuit.state === 'closed') return;
    circuit.state = 'closed';
    this.events.logger?.info('upstream circuit closed: the upstream answers again', { upstream: this.events.origin, route });
    this.changed();
  }

  private failed(route: string, circuit: CircuitState, caller: string | undefined): void {
    if (circuit.state === 'half-open') return this.open(route, circuit);
    if (circuit.state === 'open') return;
    circuit.failures++;
    if (caller !== undefined && circuit.callers.size < this.config.minCallers) circuit.callers.add(caller);
    const enoughCallers = route === ORIGIN || circuit.callers.size >= this.config.minCallers;
    if (circuit.failures >= this.config.threshold && enoughCallers) this.open(route, circuit);
  }

  private open(route: string, circuit: CircuitState): void {
    circuit.state = 'open';
    circuit.openedAt = this.clock.now();
    circuit.failures = 0;
    circuit.callers.clear();
    const { threshold, cooldownMs } = this.config;
    this.events.logger?.warn('upstream circuit open: failing fast until a probe succeeds', {
      upstream: this.events.origin,
      route,
      threshold,
      cooldownMs,
    });
    this.changed();
  }

  private changed(): void {
    const states = [...this.circuits.values()].map((c) => c.state);
    const worst: CircuitStateName = states.includes('open') ? 'open' : states.includes('half-open') ? 'half-open' : 'closed';
    if (worst === this.worst) return;
    this.worst = worst;
    this.events.onChange?.(worst);
  }
}
