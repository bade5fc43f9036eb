/**
 * A fake clock for the REST client's injectable `clock` (src/rest/clock.ts): time moves only when
 * a test says so, so retries, deadlines, cool-downs and windows are tested without sleeping and
 * without upper bounds on elapsed milliseconds. Only the code under test reads it: the HTTP
 * servers and undici keep the real timers (vitest's global fake timers would freeze them too).
 */
import type { Clock } from '../../src/rest/index.js';

interface Pending {
  at: number;
  fn: () => void;
  seq: number;
}

export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, firing the timers that fall due, in order. */
  advance(ms: number): void;
  /**
   * Waits for `promise`, firing each timer due within `horizonMs` as soon as the code under test
   * waits for it (a backoff, a Retry-After), while timers beyond it (deadlines) wait for `advance`.
   */
  settle<T>(promise: Promise<T>, horizonMs?: number): Promise<T>;
  /** The delay of every timer set so far, in order. */
  readonly delays: number[];
}

export function fakeClock(start = 1_000_000): FakeClock {
  let now = start;
  let seq = 0;
  const timers = new Set<Pending>();
  const delays: number[] = [];
  const due = (until: number) => [...timers].filter((t) => t.at <= until).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
  const clock: FakeClock = {
    now: () => now,
    setTimeout(fn, ms) {
      delays.push(ms);
      const timer = { at: now + Math.max(0, ms), fn, seq: seq++ };
      timers.add(timer);
      return timer;
    },
    clearTimeout(timer) {
      timers.delete(timer as Pending);
    },
    advance(ms) {
      const until = now + ms;
      for (let next = due(until); next; next = due(until)) {
        timers.delete(next);
        now = Math.max(now, next.at);
        next.fn();
      }
      now = until;
    },
    async settle(promise, horizonMs = 10_000) {
      let settled = false;
      const done = promise.finally(() => (settled = true));
      done.catch(() => undefined);
      while (!settled) {
        // Real I/O (the test server's answer) moves on between turns; due timers fire at once.
        await new Promise((resolve) => setImmediate(resolve));
        const next = due(now + horizonMs);
        if (next && !settled) clock.advance(next.at - now);
      }
      return done;
    },
    delays,
  };
  return clock;
}

/** Past this, `until` gives up: beyond vitest's test timeout (20 s), so only a test already failed sees it. */
const UNTIL_GIVES_UP_MS = 30_000;

/**
 * Waits (turn by turn of the event loop, no timer) until `condition` holds; the test's timeout
 * fails the test. The loop itself stops a little after (it throws): left turning, it went on
 * after its test had timed out and starved every later file of its worker.
 */
export async function until(condition: () => boolean): Promise<void> {
  const giveUpAt = Date.now() + UNTIL_GIVES_UP_MS;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error(`until: still false after ${UNTIL_GIVES_UP_MS} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * `promise` (an answer the code under test writes after a delay of `clock`) once it settled at
 * `ms` of the fake clock: it throws if it settled before (20 turns of the event loop after the
 * clock stood still, then after `ms - 1`), so a delay that is gone fails the test.
 */
export async function settlesAt<T>(clock: FakeClock, promise: Promise<T>, ms: number): Promise<T> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  const turns = async () => {
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  for (const step of [0, ms - 1]) {
    clock.advance(step);
    await turns();
    if (settled) throw new Error(`settlesAt: settled before ${ms} ms of the clock`);
  }
  clock.advance(1);
  return promise;
}
