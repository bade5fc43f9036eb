/**
 * One REST call to the upstream, all its attempts: each attempt goes through the circuit breakers
 * (circuit.ts: per route template and for the origin) and the concurrency limits (limiter.ts:
 * per caller budget and in total) over one undici Pool; a GET is tried again on 429/502/503/504
 * and connection failures (retry.ts) while the retry budget (retryBudget.ts) and the call's
 * deadline (deadline.ts) allow; a write gets exactly one attempt (GitBook's API has no
 * idempotency key). Every attempt is reported (`RestCall`) to whoever listens.
 */
import { Pool } from 'undici';
import type { RestCall } from './callLog.js';
import { CircuitOpen, Circuits } from './circuit.js';
import type { Clock } from './clock.js';
import { Deadline } from './deadline.js';
import type { AnswerAccount, BytesInFlight } from './bytesInFlight.js';
import type { ByteBudgets } from './byteBudget.js';
import {
  byteBudgetError,
  circuitOpenError,
  credentialRefusedError,
  errorCode,
  madeWriteError,
  overloadError,
  RestError,
  unavailableError,
} from './errors.js';
import { Limiter, Overloaded, WaitAborted, type CallerSlots } from './limiter.js';
import type { Prepared, Target } from './request.js';
import { exchange } from './exchange.js';
import { failure, readResponse, wantsBody, type Outcome } from './responses.js';
import { backoff, type RetryConfig } from './retry.js';
import type { RetryBudget } from './retryBudget.js';

/** Whose call it is: `budget` keys the concurrency slots and counts as one caller for the circuits. */
export interface Who {
  /** The credential's key (callerKey.ts). */
  key: string;
  /** The budget the call is counted against (the key of a known token, else the client address's). */
  budget: string;
}

export interface TransportParts {
  pool: Pool;
  /**
   * The event streams' connections (stream.ts: STREAMS_TOTAL), apart from the calls' and without
   * their response size limit: a stream's events are passed on as they come, not held.
   */
  streamPool: Pool;
  target: Target;
  clock: Clock;
  retry: RetryConfig;
  budget: RetryBudget;
  circuits: Circuits;
  limiter: Limiter;
  /** Bytes of answers per caller over time (byteBudget.ts). */
  bytes: ByteBudgets;
  /** Bytes of answers held at once, across callers (bytesInFlight.ts). */
  answers: BytesInFlight;
  /** Deadline of a whole call, ms. */
  requestTimeout: number;
  headersTimeout: number;
  streamIdleTimeout: number;
  /** Reports an attempt; undefined when nobody listens (no RestCall is built then). */
  report?: (call: RestCall) => void;
  /** An answer (any HTTP status) came for this credential. */
  onAnswer?: (who: Who, status: number) => void;
}

/** What the calls of one operation (a caller view's: client.ts) share beyond their caller. */
export interface Operation {
  /** Where its answers' bytes are held (bytesInFlight.ts). */
  answers: AnswerAccount;
  /**
   * The 401 one of its calls got, by the call's access (request.ts): its attempts with the same
   * access after it fail with the same error, unmade (an operation with a made-up token made up to
   * 1,000 calls, each answered 401).
   */
  unauthenticated: Map<string, RestError>;
}

/**
 * Notes on `op` a 401 that `error` is for the access of `req`: its operation's later calls with
 * that access fail with it, unmade. The first one noted stays.
 */
export function noteUnauthenticated(op: Operation | undefined, req: Prepared, error: unknown): void {
  if (op && error instanceof RestError && error.extensions.upstream?.status === 401 && !op.unauthenticated.has(req.access))
    op.unauthenticated.set(req.access, error);
}

/** Upstream event streams open at once, per caller (budget key) and in all (stream.ts says why). */
export const STREAMS_PER_CALLER = 8;
export const STREAMS_TOTAL = 64;

export class Transport {
  /** Concurrency slots per budget key, kept while a call of it runs or waits. */
  private readonly slots = new Map<string, CallerSlots>();

  /** Upstream event streams open, per budget key and in all (stream.ts). */
  private readonly streams = new Map<string, number>();
  private streamsOpen = 0;

  /** The final status's timer of an exchange (exchange.ts), built once. */
  private readonly headersTimeout: { ms: number; clock: Clock };

  constructor(readonly parts: TransportParts) {
    this.headersTimeout = { ms: parts.headersTimeout, clock: parts.clock };
  }

  /** Counts a stream opened for `budget`, or names the cap it would pass (stream.ts). */
  takeStream(budget: string): 'caller' | 'total' | undefined {
    const mine = this.streams.get(budget) ?? 0;
    if (mine >= STREAMS_PER_CALLER) return 'caller';
    if (this.streamsOpen >= STREAMS_TOTAL) return 'total';
    this.streams.set(budget, mine + 1);
    this.streamsOpen++;
    return undefined;
  }

  giveStream(budget: string): void {
    const mine = this.streams.get(budget) ?? 0;
    if (mine <= 1) this.streams.delete(budget);
    else this.streams.set(budget, mine - 1);
    this.streamsOpen--;
  }

  deadline(): Deadline {
    return new Deadline(this.parts.requestTimeout, this.parts.clock);
  }

  /** One REST call: attempts until success, a final failure, or the deadline; its answer's bytes go to its operation's account (bytesInFlight.ts). */
  async call(req: Prepared, who: Who, deadline: Deadline, op?: Operation): Promise<{ value: unknown; size: number }> {
    const { retry, budget } = this.parts;
    const attempts = req.info.method === 'GET' ? Math.max(1, retry.maxAttempts) : 1;
    budget.deposit();
    let previous: RestError | undefined;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.guardedAttempt(req, who, attempt, deadline, op);
      if (outcome.ok) return outcome;
      // A retry the open circuit refused: the failure before it says more.
      if (outcome.circuitOpen && previous) throw previous;
      previous = outcome.error;
      if (!outcome.retryable || attempt >= attempts) throw outcome.error;
      const { retryAfterMs } = outcome;
      if (retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs) throw outcome.error;
      const wait = retryAfterMs ?? backoff(retry, attempt);
      if (wait >= deadline.remaining() || !budget.tryWithdraw()) throw outcome.error;
      await deadline.sleep(wait, req.info);
    }
  }

  /** One attempt through the caller's byte budget, the circuits and the concurrency limits; never throws. */
  private async guardedAttempt(req: Prepared, who: Who, attempt: number, deadline: Deadline, op?: Operation): Promise<Outcome> {
    // A caller in debt waits before it takes a slot (it holds none meanwhile), or is refused.
    const { bytes } = this.parts;
    const wait = bytes.waitMs(who.budget);
    if (wait > 0) {
      if (wait >= deadline.remaining() || !bytes.enter(who.budget))
        return { ok: false, error: byteBudgetError(req.info, wait), retryable: false };
      try {
        await deadline.sleep(wait, req.info);
      } catch (error) {
        return { ok: false, error: error as RestError, retryable: false };
      } finally {
        bytes.leave(who.budget);
      }
    }
    // Refused at once while a circuit is open; admitted (as its probe, maybe) once it holds a slot.
    try {
      this.parts.circuits.refuse(req.route);
    } catch (error) {
      return circuitRefusal(req, error);
    }
    let outcome: Outcome | undefined;
    const slots = this.slotsOf(who.budget);
    try {
      const waiting = this.parts.limiter.acquire(slots, deadline.signal);
      if (waiting) await waiting;
    } catch (error) {
      this.forgetIfIdle(who.budget, slots);
      if (error instanceof Overloaded) return { ok: false, error: overloadError(req.info, error.scope), retryable: false };
      if (error instanceof WaitAborted) return { ok: false, error: unavailableError(req.info, deadline.reason()), retryable: false };
      throw error;
    }
    let admission;
    try {
      admission = this.parts.circuits.admit(req.route, who.budget);
    } catch (error) {
      // Another call took the probe, or a circuit opened, while this one waited.
      this.parts.limiter.release(slots);
      this.forgetIfIdle(who.budget, slots);
      return circuitRefusal(req, error);
    }
    try {
      // Its operation's credential was refused while it waited: no call.
      const refused = op?.unauthenticated.get(req.access);
      outcome = refused
        ? { ok: false, error: credentialRefusedError(refused, req.info), retryable: false, health: 'neutral' }
        : await this.attemptOnce(req, who, attempt, deadline, op);
    } finally {
      this.parts.limiter.release(slots);
      this.forgetIfIdle(who.budget, slots);
      // Callers that left tell nothing about the upstream (failure() calls that `neutral`); nor
      // does a throw past the call (its report): ended all the same, else a half-open circuit's
      // probe stayed out for good and its route (or the origin) was refused until a restart.
      admission.done(outcome ? (outcome.health ?? 'healthy') : 'neutral');
    }
    return outcome;
  }

  private async attemptOnce(req: Prepared, who: Who, attempt: number, deadline: Deadline, op?: Operation): Promise<Outcome> {
    const { clock, pool, report } = this.parts;
    const answers = op?.answers ?? this.parts.answers.account(who.budget, false);
    const started = clock.now();
    let status: number | null = null;
    let outcome: Outcome;
    try {
      const res = await exchange(pool, { path: req.url, method: req.info.method, headers: req.headers, body: req.body }, deadline.signal, {
        keep: (answered) => wantsBody(req, answered),
        onStatus: (answered) => {
          status = answered;
          this.parts.onAnswer?.(who, answered);
        },
        hold: answers,
        headersTimeout: this.headersTimeout,
      });
      this.parts.bytes.charge(who.budget, res.bytes);
      try {
        outcome = readResponse(res, req, answers);
      } catch (error) {
        answers.give(res.held);
        throw error;
      }
      // An answer the operation keeps stays counted until it ends; a failure is garbage now.
      if (outcome.ok) answers.keep(res.held);
      else answers.give(res.held);
    } catch (err) {
      outcome = failure(err, req, deadline);
    }
    // A write answered 2xx was made, whatever became of its answer.
    if (!outcome.ok && req.write && status !== null && status >= 200 && status < 300)
      outcome = { ...outcome, error: madeWriteError(outcome.error, status) };
    if (!outcome.ok) noteUnauthenticated(op, req, outcome.error);
    report?.({
      method: req.info.method,
      path: req.info.path,
      route: req.route,
      status,
      ms: clock.now() - started,
      attempt,
      code: outcome.ok ? undefined : errorCode(outcome.error),
    });
    return outcome;
  }

  private slotsOf(budget: string): CallerSlots {
    let slots = this.slots.get(budget);
    if (!slots) this.slots.set(budget, (slots = { active: 0, queue: [] }));
    return slots;
  }

  private forgetIfIdle(budget: string, slots: CallerSlots): void {
    if (slots.active === 0 && slots.queue.length === 0 && this.slots.get(budget) === slots) this.slots.delete(budget);
  }
}

/** An open circuit's refusal as the attempt's outcome (no call made); anything else is thrown on. */
function circuitRefusal(req: Prepared, error: unknown): Outcome {
  if (error instanceof CircuitOpen) return { ok: false, error: circuitOpenError(req.info), retryable: false, circuitOpen: true };
  throw error;
}
