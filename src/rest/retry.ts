/**
 * When a GET is tried again: on 429/502/503/504 and connection failures, after a capped
 * exponential backoff with full jitter, or after the upstream's `Retry-After` (up to a cap). The
 * loop itself is in transport.ts; the retry budget (retryBudget.ts) bounds how many retries run.
 */
export interface RetryConfig {
  /** Attempts per GET, first included (the `retries` setting + 1: the retry budget, not this, bounds the extra load). Writes always get exactly one. */
  maxAttempts: number;
  /** Backoff before retry n is random in [0, baseDelayMs * 2^(n-1)] ("full jitter"; default 100). */
  baseDelayMs: number;
  /** Cap of the computed backoff (default 2000). */
  maxDelayMs: number;
  /** A `Retry-After` longer than this fails at once instead of waiting (default 5000). */
  maxRetryAfterMs: number;
}

/** The backoff; the attempts come from the `retries` setting (src/config.ts). */
export const DEFAULT_BACKOFF: Omit<RetryConfig, 'maxAttempts'> = { baseDelayMs: 100, maxDelayMs: 2000, maxRetryAfterMs: 5000 };

/** Statuses a GET is retried on. */
export const RETRY_STATUSES = new Set([429, 502, 503, 504]);

/** Connection-level failures GETs may retry: the request never reached a handler, or the socket broke. */
export const RETRYABLE_ERRORS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Capped exponential backoff with "full jitter" (AWS architecture blog): random in [0, cap). */
export function backoff(retry: RetryConfig, attempt: number, random: () => number = Math.random): number {
  return random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
}

/** `Retry-After` in ms: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Not delay-seconds, but a number all the same: read as seconds, a fraction rounded up, a
  // negative one as none. V8's Date.parse read `0.001` as a date in 2000, so "retry now".
  if (/^[+-]?\d+(\.\d+)?$/.test(trimmed)) return Math.max(0, Math.ceil(Number(trimmed))) * 1000;
  // An HTTP date names its day and month; anything else is unreadable.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
