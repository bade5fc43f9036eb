/**
 * Time as the REST client sees it: a monotonic `now()` in ms and timers. Everything time-dependent
 * in src/rest (deadlines, retry backoff, the circuit's cool-down, the retry budget's window, the
 * kept answers' age, a stream's idle timer) reads this clock, so a test drives it with fake timers
 * (test/helpers/clock.ts) instead of sleeping.
 */
export type Timer = unknown;

export interface Clock {
  /** Milliseconds on a monotonic scale (performance.now()). */
  now(): number;
  setTimeout(fn: () => void, ms: number): Timer;
  clearTimeout(timer: Timer): void;
}

/** The process's clock. Globals are looked up at each call, so vitest's fake timers apply too. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};
