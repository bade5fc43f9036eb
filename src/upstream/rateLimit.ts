import { HttpError } from './errors.js';

export interface RateLimit {
  /** Requests allowed per window and key. */
  limit: number;
  windowMs: number;
}

/** Fixed-window limiter per key (the calling user, or the address of an anonymous call): past the limit, 429 with Retry-After. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  /** `now`: ms on a monotonic scale (see server.ts). */
  constructor(
    private readonly config: RateLimit,
    private readonly now: () => number,
  ) {}

  take(key: string): void {
    const now = this.now();
    // Windows in the order they started (a new one goes last), so the ended ones go from the
    // front: each anonymous client address's window was kept for good (8,000 addresses: 1 MB).
    for (const [k, w] of this.windows) {
      if (now - w.start < this.config.windowMs) break;
      this.windows.delete(k);
    }
    let w = this.windows.get(key);
    if (!w) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    if (w.count > this.config.limit) {
      const retryAfter = Math.max(1, Math.ceil((w.start + this.config.windowMs - now) / 1000));
      throw new HttpError(429, 'Too many requests, retry later', { 'retry-after': String(retryAfter) });
    }
  }
}
