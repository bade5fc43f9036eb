/**
 * Bounds concurrent upstream attempts per caller and in total, with two FIFO queues: a call first
 * takes one of its caller's `perCaller` slots (waiting in the caller's own queue), then one of the
 * `total` slots (waiting in the shared queue). Since `perCaller` < `total`, one caller's huge
 * query waits in its own queue while the others keep at least `total - perCaller` slots. Past
 * `queuePerCaller` waiting calls of one caller, or `queueTotal` in all, a call is refused at once.
 */
export interface ConcurrencyConfig {
  /** Upstream attempts in flight in total (the `concurrency` setting, also the pool's connections). */
  total: number;
  /** Upstream attempts in flight per caller (the `callerConcurrency` setting). */
  perCaller: number;
  /** Calls of one caller waiting for a slot before more are refused (the `queueLimit` setting). */
  queuePerCaller: number;
  /** Calls waiting for a slot in total before more are refused (default 10 × queuePerCaller). */
  queueTotal: number;
}

/** A caller's side of the limits (kept with the caller's other per-token state). */
export interface CallerSlots {
  active: number;
  queue: Waiter[];
}

interface Waiter {
  resolve(): void;
}

/** The queues are full: `scope` says whose. */
export class Overloaded extends Error {
  constructor(readonly scope: 'caller' | 'total') {
    super(`overloaded (${scope})`);
  }
}

/** What a waiting call may be aborted by: an AbortSignal-like EventEmitter (the call's deadline). */
export interface AbortEmitter {
  readonly aborted: boolean;
  once(event: 'abort', listener: () => void): unknown;
  removeListener(event: 'abort', listener: () => void): unknown;
}

/** The signal fired while the call waited for a slot. */
export class WaitAborted extends Error {}

export class Limiter {
  private active = 0;
  private waiting = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly config: ConcurrencyConfig) {}

  /**
   * Takes a caller slot and a total slot: at once (undefined) when both are free, else a promise
   * that resolves holding both. Throws `Overloaded` when the queue is full, rejects with
   * `WaitAborted` when `signal` fires first. Every successful acquire needs one `release`.
   */
  acquire(caller: CallerSlots, signal: AbortEmitter): Promise<void> | undefined {
    if (caller.active < this.config.perCaller && this.active < this.config.total) {
      caller.active++;
      this.active++;
      return undefined;
    }
    // The caller's own queue first: with no queue (`queuePerCaller` 0, the total 0 too), a caller's
    // call past its slots was refused as the gateway's (UPSTREAM_UNAVAILABLE), nobody else waiting.
    if (caller.active >= this.config.perCaller && caller.queue.length >= this.config.queuePerCaller) throw new Overloaded('caller');
    if (this.waiting >= this.config.queueTotal) throw new Overloaded('total');
    return this.acquireSlowly(caller, signal);
  }

  release(caller: CallerSlots): void {
    // A waiter that is woken inherits the slot, so the counts only drop when nobody waits.
    const next = this.queue.shift();
    if (next) next.resolve();
    else this.active--;
    const mine = caller.queue.shift();
    if (mine) mine.resolve();
    else caller.active--;
  }

  private async acquireSlowly(caller: CallerSlots, signal: AbortEmitter): Promise<void> {
    if (caller.active < this.config.perCaller) caller.active++;
    else await this.wait(caller.queue, signal);
    if (this.active < this.config.total) {
      this.active++;
      return;
    }
    try {
      await this.wait(this.queue, signal);
    } catch (error) {
      const mine = caller.queue.shift();
      if (mine) mine.resolve();
      else caller.active--;
      throw error;
    }
  }

  private wait(queue: Waiter[], signal: AbortEmitter): Promise<void> {
    if (signal.aborted) return Promise.reject(new WaitAborted());
    this.waiting++;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiting--;
        queue.splice(queue.indexOf(waiter), 1);
        reject(new WaitAborted());
      };
      const waiter: Waiter = {
        resolve: () => {
          this.waiting--;
          signal.removeListener('abort', onAbort);
          resolve();
        },
      };
      signal.once('abort', onAbort);
      queue.push(waiter);
    });
  }
}
