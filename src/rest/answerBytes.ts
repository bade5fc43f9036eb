/**
 * Bytes of REST answers held at once, across callers: from the moment an answer's headers announce
 * its length (or, without a `Content-Length`, as its chunks come) until the operation that read it
 * is over (`OperationAnswers.end`; without an operation, until its text is parsed). An answer's
 * chunks, then its text, then its parsed objects are on the heap, and an operation keeps what it
 * read until it ends: list pages of 30 MB (34 comments of 900 KB, selected by `id` alone, so the
 * response-bytes bound does not see them), a dozen at once from a token holder, exhausted `npm
 * start`'s heap. An answer that would pass the budget while others are held is not read: its
 * exchange is aborted and the call fails with UPSTREAM_UNAVAILABLE (`retryAfter: 1`). One answer
 * alone is always admitted, up to the pool's largest answer (at most the budget).
 */
import { getHeapStatistics } from 'node:v8';

/** The default budget: an eighth of V8's heap limit (about 19 MiB under `npm start`). */
export function defaultAnswerBytesInFlight(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 8);
}

export class AnswerBytes {
  private held = 0;

  constructor(readonly budget: number) {}

  /** Takes `bytes` of the budget; false (nothing taken) when they would pass it while others are held. */
  take(bytes: number): boolean {
    if (this.held > 0 && this.held + bytes > this.budget) return false;
    this.held += bytes;
    return true;
  }

  /** Gives back bytes taken. */
  give(bytes: number): void {
    this.held -= bytes;
  }

  /** Bytes held now (tests, metrics). */
  get inFlight(): number {
    return this.held;
  }
}

/** An exchange aborted because its answer would pass the budget. */
export class AnswerBytesBusy extends Error {
  constructor() {
    super('REST answers in flight over the budget');
  }
}

/** Who keeps an answer's bytes of the budget once it is parsed; without one they are given back then. */
export interface AnswerHolder {
  keep(bytes: number): void;
}

/** The answers of one operation: held until `end()` (its execution is over); after it, given back at once. */
export class OperationAnswers implements AnswerHolder {
  private held = 0;
  private ended = false;

  constructor(private readonly budget: AnswerBytes) {}

  keep(bytes: number): void {
    if (this.ended) this.budget.give(bytes);
    else this.held += bytes;
  }

  /** Gives back what the operation held; idempotent. */
  end(): void {
    this.budget.give(this.held);
    this.held = 0;
    this.ended = true;
  }
}
