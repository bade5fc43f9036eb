/**
 * The bytes of large REST answers (`large` bytes or more each) each caller makes this process
 * fetch, over time: a token bucket per budget key (transport.ts `Who.budget`: a known token's key,
 * else the client address's). A caller may fetch `burst` such bytes at once and `rate` bytes a
 * second after that. Smaller answers are not counted: their cost is per call (bounded by the
 * concurrency limits), and one token of a server-side app may well read a few MB a second of them
 * (the bench's one-resource load: 3,200 answers of 636 bytes a second). A large answer costs per
 * byte, mostly in garbage collection: V8 parses a JSON text of 100 KB or more straight into the
 * old generation, which only a full collection frees. An answer is counted when it has come (its
 * size is not known before), so a caller goes into debt, and its next call waits until the debt is
 * paid; a wait that would outlast the call's deadline is refused at once (RATE_LIMITED with
 * `retryAfter`), as is a call past `maxWaiting` of the caller's waiting ones. An answer one call
 * brought to several of the caller's requests (singleFlight.ts) counts once per request: each
 * works on it.
 *
 * Why: a large object costs the REST API, and the gateway (reading, parsing, collecting the
 * garbage), far more than a small one: one 900 KB comment read twice at a time, over and over
 * (through 30 aliases, or 100 repeated ids that the response-bytes bound refuses only after the
 * read), kept both cores of a 2-core machine busy and another caller's p99 at 4–6 × its own. The
 * bound is in bytes, whatever the query, so varying the query does not step around it. It is
 * per replica: it bounds this process's work.
 */
import type { Clock } from './clock.js';

export interface ByteBudgetConfig {
  /** Bytes a second per caller (0: no bound). */
  rate: number;
  /** Bytes a caller may fetch at once (its bucket's size). */
  burst: number;
  /** The size from which an answer is counted. */
  large: number;
  /** Calls of one caller waiting for their share at once; more are refused (the `queueLimit` setting). */
  maxWaiting: number;
}

/** A caller's bucket: the bytes it may still fetch (negative: its debt) as of `at`. */
interface Bucket {
  bytes: number;
  at: number;
  /** Calls of the caller waiting for their share now. */
  waiting: number;
}

/** Callers tracked before the full buckets are dropped (a full bucket is no bucket). */
const PRUNE_AT = 10_000;
/** Callers tracked at most: past it, those tracked longest are dropped, their debt with them. */
const MAX_CALLERS = 50_000;

export class ByteBudgets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly config: ByteBudgetConfig,
    private readonly clock: Clock,
  ) {}

  get enabled(): boolean {
    return this.config.rate > 0;
  }

  /** The size from which an answer is counted. */
  get large(): number {
    return this.config.large;
  }

  /** How long (ms) caller `key` must wait before its next call: 0 unless it is in debt. */
  waitMs(key: string): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return 0;
    const bytes = this.available(bucket, this.clock.now());
    if (bytes >= this.config.burst && bucket.waiting === 0) this.buckets.delete(key);
    return bytes >= 0 ? 0 : Math.ceil((-bytes / this.config.rate) * 1000);
  }

  /** Counts a call of caller `key` (in debt) as waiting; false when it has `max` (default `maxWaiting`) waiting already. */
  enter(key: string, max = this.config.maxWaiting): boolean {
    const bucket = this.buckets.get(key);
    if (!bucket) return true;
    if (bucket.waiting >= Math.min(max, this.config.maxWaiting)) return false;
    bucket.waiting++;
    return true;
  }

  /** A call `enter` counted is done waiting. */
  leave(key: string): void {
    const bucket = this.buckets.get(key);
    if (bucket && bucket.waiting > 0) bucket.waiting--;
  }

  /** Counts an answer of `bytes` against caller `key`. */
  charge(key: string, bytes: number): void {
    if (!this.enabled || bytes < this.config.large) return;
    const now = this.clock.now();
    const bucket = this.buckets.get(key);
    if (bucket) {
      bucket.bytes = this.available(bucket, now) - bytes;
      bucket.at = now;
      return;
    }
    this.buckets.set(key, { bytes: this.config.burst - bytes, at: now, waiting: 0 });
    if (this.buckets.size > PRUNE_AT) this.prune(now);
  }

  /** The caller's bytes at `now`: what it had, refilled at `rate`, at most `burst`. */
  private available(bucket: Bucket, now: number): number {
    return Math.min(this.config.burst, bucket.bytes + ((now - bucket.at) * this.config.rate) / 1000);
  }

  private prune(now: number): void {
    for (const [key, bucket] of this.buckets)
      if (bucket.waiting === 0 && this.available(bucket, now) >= this.config.burst) this.buckets.delete(key);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= MAX_CALLERS) break;
      this.buckets.delete(key);
    }
  }
}
