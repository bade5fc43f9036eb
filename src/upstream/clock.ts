/** The embedded upstream reads time only through a Clock, so tests can move it forward. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * A clock that moves only when told to, plus `tickMs` on each reading (default 1 ms), so that
 * things created one after another have distinct, ordered timestamps.
 */
export class ManualClock implements Clock {
  private t: number;
  constructor(
    start: Date | string = '2026-01-01T00:00:00.000Z',
    private readonly tickMs = 1,
  ) {
    this.t = new Date(start).getTime();
  }
  now(): Date {
    const d = new Date(this.t);
    this.t += this.tickMs;
    return d;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  advanceDays(days: number): void {
    this.advance(days * 24 * 60 * 60 * 1000);
  }
}
