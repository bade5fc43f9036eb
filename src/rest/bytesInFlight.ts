/**
 * A budget of bytes held at once, across callers, each caller with a share of it (`BytesInFlight`):
 * one rule for the three things the gateway holds while it works on a request, REST answers (here),
 * request bodies (src/gateway/lib/requestBytesInFlight.ts) and results being written
 * (src/gateway/plugins/useMaxResponseBytes.ts). Something that would pass the budget while others
 * are held is refused; so is one that would pass its caller's share (a quarter of the budget)
 * while the caller holds others, once half the budget is held: one caller cannot fill the budget,
 * and other callers go on. One thing alone is always admitted.
 *
 * REST answers are held across callers: their bytes as they come (an answer that announced
 * 19.9 MB and sent a byte a second held them all from its headers, and every other caller's reads
 * were refused for its 30 s deadline; one whose announced length could not be held now is still
 * refused at its headers, unread) until the operation that read it is over (`AnswerAccount.end`;
 * without an operation, until its text is parsed). An answer's chunks, then its text, then its
 * parsed objects are on the heap, and an operation keeps what it read until it ends: list pages of
 * 30 MB (34 comments of 900 KB, selected by `id` alone, so the response-bytes bound does not see
 * them), a dozen at once from a token holder, exhausted `npm start`'s heap. Once its text is in,
 * an answer of 64 KiB or more holds what its parse builds instead (jsonShape.ts, responses.ts): up
 * to twenty times its text for small values. An answer that would pass the budget while others
 * are held is not read: its exchange is aborted and the call fails with UPSTREAM_UNAVAILABLE
 * (`retryAfter: 1`). So is one that would pass its caller's share (a quarter of the budget) while
 * the caller holds others, once half the budget is held: one caller cannot fill the budget, and
 * other callers' reads go on. One answer alone is always admitted, up to the pool's largest
 * answer (at most the budget).
 */
import { getHeapStatistics } from 'node:v8';

/** The default budget: an eighth of V8's heap limit (about 19 MiB under `npm start`). */
export function defaultAnswerBytesInFlight(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 8);
}

export class BytesInFlight {
  private held = 0;
  /** Bytes held per caller (budget key), while it holds any. */
  private readonly byCaller = new Map<string, number>();

  /** `perCaller`: a caller's share, the most it may hold once half the budget is held (default a quarter of the budget). */
  constructor(
    readonly budget: number,
    readonly perCaller = Math.floor(budget / 4),
  ) {}

  /**
   * Takes `bytes` more for an answer of `caller` that took `already` so far (its earlier chunks);
   * false (nothing taken) when they would pass the budget while other answers are held, or, once
   * half the budget is held, the caller's share while it holds others: a caller alone may use
   * half the budget, and the other half stays for callers under their share.
   */
  take(caller: string, bytes: number, already = 0): boolean {
    if (!this.fits(caller, bytes, already)) return false;
    this.held += bytes;
    this.byCaller.set(caller, (this.byCaller.get(caller) ?? 0) + bytes);
    return true;
  }

  /** Whether `take` would take them now (nothing is taken). */
  fits(caller: string, bytes: number, already = 0): boolean {
    const mine = this.byCaller.get(caller) ?? 0;
    const others = this.held - already;
    const after = this.held + bytes;
    if (others > 0 && after > this.budget) return false;
    return !(mine - already > 0 && mine + bytes > this.perCaller && after > this.budget / 2);
  }

  /** Gives back bytes `caller` took. */
  give(caller: string, bytes: number): void {
    this.held -= bytes;
    const left = (this.byCaller.get(caller) ?? 0) - bytes;
    if (left > 0) this.byCaller.set(caller, left);
    else this.byCaller.delete(caller);
  }

  /**
   * Takes `bytes` for `caller` until `until` calls the release it is given (a response written or
   * closed, its connection gone); false (nothing taken) when the budget refuses them.
   */
  takeUntil(caller: string, bytes: number, until: (release: () => void) => void): boolean {
    if (!this.take(caller, bytes)) return false;
    let held = true;
    until(() => {
      if (held) this.give(caller, bytes);
      held = false;
    });
    return true;
  }

  /**
   * The most one operation may hold of its own answers, whoever else holds any: past its caller's
   * share once half the budget is held, and past the budget, it is refused even alone (half the
   * budget by default, about 9.5 MiB under `npm start`).
   */
  get operationLimit(): number {
    return Math.min(this.budget, Math.max(this.perCaller, Math.floor(this.budget / 2)));
  }

  /** Bytes held now, in all or by one caller (tests, metrics). */
  inFlight(caller?: string): number {
    return caller === undefined ? this.held : (this.byCaller.get(caller) ?? 0);
  }

  /** The account of one caller's view: until `end()` when `untilEnd`, else each answer only until it is parsed. */
  account(caller: string, untilEnd: boolean): AnswerAccount {
    return new AnswerAccount(this, caller, untilEnd);
  }
}

/**
 * The answers one view of the REST client reads (an operation's): each takes its bytes as it
 * comes (`take`, exchange.ts) and, once parsed, is kept until `end()`, or given back at once for
 * a view that is not an operation's and after `end()`.
 */
export class AnswerAccount {
  /** Bytes of parsed answers kept until `end()`. */
  private held = 0;
  /** Bytes taken and not given back: the answers being read, and those kept. */
  private taken = 0;
  private ended: boolean;

  constructor(
    private readonly budget: BytesInFlight,
    readonly caller: string,
    untilEnd: boolean,
  ) {
    this.ended = !untilEnd;
  }

  /** The most one answer may take: the budget (one alone is always admitted, up to it). */
  get largest(): number {
    return this.budget.budget;
  }

  take(bytes: number, already = 0): boolean {
    if (!this.budget.take(this.caller, bytes, already)) return false;
    this.taken += bytes;
    return true;
  }

  /** Whether `take` would take them now (nothing is taken). */
  fits(bytes: number, already = 0): boolean {
    return this.budget.fits(this.caller, bytes, already);
  }

  give(bytes: number): void {
    this.budget.give(this.caller, bytes);
    this.taken -= bytes;
  }

  /**
   * Why `bytes` more for an answer that took `already` were refused: `limit` when the operation's
   * own answers would pass `operationLimit` (asking again cannot help: its code is
   * BAD_USER_INPUT), else `busy` (others hold the budget: asking again shortly may).
   */
  refusal(bytes: number, already = 0): AnswerBytesBusy {
    const own = this.taken + bytes;
    const limit = this.budget.operationLimit;
    return new AnswerBytesBusy(!this.ended && this.taken - already > 0 && own > limit ? limit : undefined);
  }

  /** An answer taking `bytes` was parsed. */
  keep(bytes: number): void {
    if (this.ended) this.give(bytes);
    else this.held += bytes;
  }

  /** Gives back what the view held; idempotent. */
  end(): void {
    this.give(this.held);
    this.held = 0;
    this.ended = true;
  }
}

/**
 * An exchange aborted because its answer would pass the budget; with `operationLimit` when the
 * operation's own answers would pass what one operation may hold (it would be refused again).
 */
export class AnswerBytesBusy extends Error {
  constructor(readonly operationLimit?: number) {
    super('REST answers in flight over the budget');
  }
}
