/**
 * The deadline of one REST call (all its attempts and the waits between them). Aborting it
 * (the time ran out, or every caller that waited for the call left) aborts the request in flight.
 * It is its own abort signal: the exchange (exchange.ts) and the limiter's queue listen on an
 * EventEmitter with `aborted`, which costs far less per call than an AbortController and its
 * EventTarget.
 */
import { EventEmitter } from 'node:events';
import type { Clock, Timer } from './clock.js';
import { unavailableError, type UpstreamInfo } from './errors.js';

export class Deadline extends EventEmitter {
  private readonly timer: Timer;
  private readonly ends: number;
  aborted = false;
  expired = false;
  /** Aborted because every caller left, not because the time ran out. */
  abandoned = false;

  constructor(
    private readonly ms: number,
    private readonly clock: Clock,
  ) {
    super();
    this.ends = clock.now() + ms;
    this.timer = clock.setTimeout(() => {
      // Aborted first (every caller left): the call did not run out of time, and its failure is
      // no timeout of its route (responses.ts), whenever it comes.
      if (this.aborted) return;
      this.expired = true;
      this.fire();
    }, ms);
  }

  /** What the exchange and the limiter listen on. */
  get signal(): Deadline {
    return this;
  }

  abort(): void {
    if (this.aborted) return;
    this.abandoned = true;
    this.fire();
  }

  remaining(): number {
    return this.ends - this.clock.now();
  }

  reason(): string {
    return this.expired ? `no answer within the ${this.ms} ms deadline` : 'request aborted';
  }

  /** Waits `ms` (a backoff), or rejects with UPSTREAM_UNAVAILABLE as soon as the deadline is aborted. */
  sleep(ms: number, info: Omit<UpstreamInfo, 'status'>): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.clock.clearTimeout(timer);
        reject(unavailableError(info, this.reason()));
      };
      const timer = this.clock.setTimeout(() => {
        this.removeListener('abort', onAbort);
        resolve();
      }, ms);
      if (this.aborted) onAbort();
      else this.once('abort', onAbort);
    });
  }

  dispose(): void {
    this.clock.clearTimeout(this.timer);
  }

  private fire(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}
