/**
 * A retry budget per upstream, as Finagle's `RetryBudget` (and gRPC's retry throttling) keep one:
 * every call deposits `percent` % of a token, every retry withdraws a whole one, and deposits
 * expire after `ttlMs`; a floor of `minPerSecond` retries per second lets a quiet gateway retry
 * too. So retries are at most `percent` % of recent calls plus the floor, and an upstream that
 * fails everything sees at most that much extra load.
 */
export interface RetryBudgetConfig {
  /** Retries allowed per 100 calls (the `retryBudgetPercent` setting). */
  percent: number;
  /** Retries always allowed per second, whatever the traffic (default 10, as Finagle). */
  minPerSecond: number;
  /** How long a call's deposit counts (default 10000 ms). */
  ttlMs: number;
}

/** The floor and window; the share comes from the `retryBudgetPercent` setting (src/config.ts). */
export const DEFAULT_RETRY_BUDGET: Omit<RetryBudgetConfig, 'percent'> = { minPerSecond: 10, ttlMs: 10_000 };

const SLOTS = 10;

export class RetryBudget {
  /** Deposits and withdrawals in SLOTS time slots of ttlMs / SLOTS each, as a ring, in hundredths of a retry (exact sums). */
  private readonly deposits = new Float64Array(SLOTS);
  private readonly withdrawals = new Float64Array(SLOTS);
  private readonly slotMs: number;
  private slot = 0;
  private slotEnds = 0;

  constructor(
    private readonly config: RetryBudgetConfig,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.slotMs = Math.max(1, config.ttlMs / SLOTS);
  }

  /** A call (not a retry) is made. */
  deposit(): void {
    this.advance();
    this.deposits[this.slot] += this.config.percent;
  }

  /** True (and the retry is counted) when the budget allows one more retry now. */
  tryWithdraw(): boolean {
    this.advance();
    if (this.balance() < 1) return false;
    this.withdrawals[this.slot] += 100;
    return true;
  }

  /** Retries allowed now. */
  balance(): number {
    this.advance();
    let deposits = 0;
    let withdrawals = 0;
    for (let i = 0; i < SLOTS; i++) {
      deposits += this.deposits[i];
      withdrawals += this.withdrawals[i];
    }
    return (deposits - withdrawals) / 100 + (this.config.minPerSecond * this.config.ttlMs) / 1000;
  }

  /** Moves to the slot of now, clearing the slots that expired on the way. */
  private advance(): void {
    const now = this.now();
    if (now < this.slotEnds) return;
    const passed = this.slotEnds === 0 ? SLOTS : Math.floor((now - this.slotEnds) / this.slotMs) + 1;
    for (let i = 0; i < Math.min(SLOTS, passed); i++) {
      this.slot = (this.slot + 1) % SLOTS;
      this.deposits[this.slot] = 0;
      this.withdrawals[this.slot] = 0;
    }
    // The slots stay on their grid: a slot started at `now` (the first call after the last one
    // ended) lasted up to twice slotMs when calls were sparse, and kept deposits up to 2 × ttlMs.
    this.slotEnds = this.slotEnds === 0 ? now + this.slotMs : this.slotEnds + passed * this.slotMs;
  }
}
