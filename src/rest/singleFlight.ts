/**
 * Reads shared between the requests of one caller (one credential: callerKey.ts), never across
 * callers, never for writes:
 *
 * - single-flight: identical GETs (same URL: path and query) in flight at the same time share one
 *   upstream call; when the last request waiting for it goes away, the call is aborted;
 * - kept answers: a request registered when it arrived (`arrive`) also takes the answer of an
 *   identical GET that came back after that moment, kept while more than one request of the
 *   caller is open (at most RECENT_MAX answers of RECENT_MAX_CHARS each, RECENT_MAX_TOTAL_CHARS in
 *   all, RECENT_MAX_AGE_MS old),
 *   so requests that overlap share their reads even when one reaches its resolvers only after the
 *   other's call is back;
 * - a write of the caller (its start and its end) forgets both: a read after it starts afresh;
 * - a write of any other caller, once ended, keeps a read after it from taking the answer of a
 *   call started before that end: the other caller may read what it wrote once it is answered.
 */
import type { Clock } from './clock.js';
import type { Deadline } from './deadline.js';
import { unansweredError, unavailableError } from './errors.js';
import type { Prepared } from './request.js';

/** A request of one caller, open from its arrival until `close()`. */
export interface Arrival {
  /** The caller's key (callerKey of its Authorization). */
  readonly key: string;
  /** When it arrived (the REST client's clock). */
  readonly since: number;
  /** The request is over (its response closed); idempotent. */
  close(): void;
}

/** Most answers kept per caller, how old they may get, and the largest body kept. */
const RECENT_MAX = 500;
const RECENT_MAX_AGE_MS = 2_000;
const RECENT_MAX_CHARS = 1_000_000;
/** Characters of all the answers kept for one caller (500 answers of 1 MB would be half a gigabyte). */
const RECENT_MAX_TOTAL_CHARS = 4_000_000;

/** What is kept per caller while it has calls running or requests open. */
interface CallerReads {
  key: string;
  /** GETs in flight by URL: a read of the same URL joins them. */
  flights: Map<string, Flight>;
  /** Calls (reads and writes) started and not ended. */
  running: number;
  /** Open requests, each with its arrival, in the order they registered. */
  open: Map<object, number>;
  /** Answers of GETs that came back while more than one request was open, by URL, oldest first. */
  recent: Map<string, Answer>;
  /** Characters of the answers in `recent`. */
  recentChars: number;
  /** Cancels the timer that prunes the kept answers as they age (set while any is kept). */
  cancelExpiry?: () => void;
  /** Bumped by every write (start and end): an answer of a call started before it is not kept. */
  generation: number;
}

/** A GET's answer (frozen, so every taker may share it), when it came and when its call started. */
interface Answer {
  value: unknown;
  at: number;
  startedAt: number;
  /** The replica's count of ended writes when its call started. */
  writes: number;
  /** Length of its body as received (characters). */
  size: number;
}

/** One upstream call (all its attempts), shared by the GETs that joined it. */
interface Flight {
  promise: Promise<unknown>;
  /** When the call started (the clock's time). */
  startedAt: number;
  /** The replica's count of ended writes (`SharedReads.writesEnded`) when the call started. */
  writes: number;
  /** Joiners still waiting; when the last one leaves (its client went away), the call is aborted. */
  waiters: number;
  /** Aborts the call and lets no one join it any more. */
  abandon(): void;
  /** Once answered: the length of its body (characters). */
  size?: number;
}

/** Runs one upstream call under `deadline`. */
export type Run = (deadline: Deadline) => Promise<{ value: unknown; size: number }>;

export class SharedReads {
  private readonly callers = new Map<string, CallerReads>();
  /**
   * Writes of all callers ended so far: a call started before one ended may hold the state before
   * it, so a read after it takes no such call's answer. Each caller's own writes forget its reads
   * outright; another caller's (another user, or another token of the same user) did not: a read
   * sent after that caller was answered joined a call from before and showed the old title.
   */
  private writesEnded = 0;
  /** Every request's calls in flight, whoever its caller (`RestClient.leaveAll`). */
  readonly all = new AllLeaving();

  constructor(
    /** Off: every read is its own call (writes still run through here). */
    readonly enabled: boolean,
    private readonly clock: Clock,
    private readonly newDeadline: () => Deadline,
  ) {}

  /** Characters of the answers kept for all callers (tests). */
  keptChars(): number {
    let chars = 0;
    for (const state of this.callers.values()) chars += state.recentChars;
    return chars;
  }

  /** The time on the clock of `since` and of the calls' starts. */
  now(): number {
    return this.clock.now();
  }

  /** Registers a request of caller `key` as it arrives; undefined when sharing is off. */
  arrive(key: string): Arrival | undefined {
    if (!this.enabled) return undefined;
    // The caller's state stays while one of its requests is open.
    const state = this.state(key);
    const arrival: Arrival = {
      key,
      since: this.clock.now(),
      close: () => {
        if (!state.open.delete(arrival)) return;
        this.prune(state, this.clock.now());
        this.forgetIfIdle(state);
      },
    };
    state.open.set(arrival, arrival.since);
    return arrival;
  }

  /**
   * A GET of caller `key`: joins an identical one in flight, takes a kept answer, or runs. `taken`
   * hears the size of an answer this request takes without having fetched it (joined or kept):
   * each request that takes an answer works on it (its resolvers, its result), so the caller's
   * byte budget counts it once per request, not once per call; and when that answer's call
   * started, which may be before this request arrived.
   */
  read(
    key: string,
    req: Prepared,
    since: number | undefined,
    run: Run,
    caller: Leaving,
    taken?: (size: number, startedAt: number) => void,
  ): Promise<unknown> {
    const state = this.state(key);
    const flight = this.enabled ? state.flights.get(req.url) : undefined;
    const shared = flight?.writes === this.writesEnded ? flight : undefined;
    if (shared) {
      const joined = caller.join(shared, req);
      return taken ? joined.then((value) => (taken(shared.size ?? 0, shared.startedAt), value)) : joined;
    }
    const answer = since === undefined ? undefined : state.recent.get(req.url);
    if (answer && answer.at >= since! && answer.writes === this.writesEnded && this.clock.now() - answer.at <= RECENT_MAX_AGE_MS) {
      if (caller.aborted) return Promise.reject(unavailableError(req.info, 'request aborted'));
      taken?.(answer.size, answer.startedAt);
      return Promise.resolve(answer.value);
    }
    const started = this.start(state, req, run);
    if (this.enabled) state.flights.set(req.url, started);
    return caller.join(started, req);
  }

  /** A write of caller `key`: no read before it is shared with a read after it. */
  async write(key: string, req: Prepared, run: Run, caller: Leaving): Promise<unknown> {
    const state = this.state(key);
    forgetReads(state);
    try {
      return await caller.join(this.start(state, req, run), req);
    } finally {
      // A read sent by POST (`Organization.ask`) changes nothing another caller could read.
      if (req.write) this.writesEnded++;
      const now = this.callers.get(key);
      if (now) forgetReads(now);
    }
  }

  private state(key: string): CallerReads {
    let state = this.callers.get(key);
    if (!state)
      this.callers.set(
        key,
        (state = { key, flights: new Map(), running: 0, open: new Map(), recent: new Map(), recentChars: 0, generation: 0 }),
      );
    return state;
  }

  /** Starts one upstream call for `state`'s caller; it ends (and leaves `state`) on its own. */
  private start(state: CallerReads, req: Prepared, run: Run): Flight {
    const deadline = this.newDeadline();
    const generation = state.generation;
    const detach = () => {
      if (state.flights.get(req.url) === flight) state.flights.delete(req.url);
    };
    state.running++;
    const ended = () => {
      deadline.dispose();
      detach();
      state.running--;
      this.forgetIfIdle(state);
    };
    const startedAt = this.clock.now();
    const writes = this.writesEnded;
    const flight: Flight = {
      startedAt,
      writes,
      waiters: 0,
      promise: run(deadline).then(
        ({ value, size }) => {
          flight.size = size;
          ended();
          // Kept for the other open requests of this caller (none but this one: nobody else could take it).
          if (state.open.size > 1 && req.info.method === 'GET' && state.generation === generation && size <= RECENT_MAX_CHARS) {
            const at = this.clock.now();
            const replaced = state.recent.get(req.url);
            if (replaced) state.recentChars -= replaced.size;
            state.recent.delete(req.url);
            state.recent.set(req.url, { value, at, size, startedAt, writes });
            state.recentChars += size;
            this.prune(state, at);
            this.expireRecent(state);
          }
          return value;
        },
        (error: unknown) => {
          ended();
          throw error;
        },
      ),
      abandon() {
        detach();
        deadline.abort();
      },
    };
    // Its takers each get its failure through their own handlers (join); a flight abandoned before
    // anyone took it (its only caller had left when it joined) has none, and an unhandled rejection
    // ends the process: one anonymous request dropped right after it was sent did that.
    flight.promise.catch(() => undefined);
    return flight;
  }

  /** Drops the kept answers no open request can take any more (or too old), oldest first. */
  private prune(state: CallerReads, now: number): void {
    const oldest = state.open.values().next().value;
    if (oldest === undefined) return clearRecent(state);
    const floor = Math.max(oldest, now - RECENT_MAX_AGE_MS);
    for (const [url, answer] of state.recent) {
      if (answer.at >= floor && state.recent.size <= RECENT_MAX && state.recentChars <= RECENT_MAX_TOTAL_CHARS) break;
      state.recent.delete(url);
      state.recentChars -= answer.size;
    }
  }

  /**
   * Prunes the caller's kept answers when the oldest has outlived RECENT_MAX_AGE_MS, and again
   * for the next. Pruned only as its requests closed or answers came, an idle caller's answers
   * stayed for as long as another of its requests was open: six tokens each holding one idle
   * event stream kept 24 MB of parsed comments for good.
   */
  private expireRecent(state: CallerReads): void {
    if (state.cancelExpiry !== undefined) return;
    const oldest = state.recent.values().next().value;
    if (oldest === undefined) return;
    const timer = this.clock.setTimeout(
      () => {
        state.cancelExpiry = undefined;
        this.prune(state, this.clock.now());
        this.expireRecent(state);
      },
      Math.max(0, oldest.at + RECENT_MAX_AGE_MS - this.clock.now()) + 1,
    );
    (timer as { unref?: () => void }).unref?.();
    state.cancelExpiry = () => this.clock.clearTimeout(timer);
  }

  /** Drops a caller's state once nothing of it runs or is open. */
  private forgetIfIdle(state: CallerReads): void {
    if (state.running === 0 && state.open.size === 0 && this.callers.get(state.key) === state) this.callers.delete(state.key);
  }
}

function forgetReads(state: CallerReads): void {
  state.flights.clear();
  clearRecent(state);
  state.generation++;
}

function clearRecent(state: CallerReads): void {
  state.recent.clear();
  state.recentChars = 0;
  state.cancelExpiry?.();
  state.cancelExpiry = undefined;
}

/**
 * What tells the REST client that a caller's request is over (its client left): an AbortSignal,
 * or anything with its `aborted` and its `abort` event. The gateway's small POSTs pass one that
 * listens to the response instead (lib/plainPost.ts): an AbortController per request was about
 * a twentieth of a small query's CPU.
 */
export interface LeaveSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options: { once: true }): void;
}

/**
 * Every request's calls in flight, of all callers: left at once when the gateway stops with calls
 * still out after its drain grace (`RestClient.leaveAll`). Each operation then answers, its REST
 * calls `UPSTREAM_UNAVAILABLE` (a write's "may have been made"), where its socket was destroyed
 * unanswered: a client, or a load balancer, could not tell a write that was sent from one that
 * was not.
 */
export class AllLeaving {
  readonly waiting = new Set<() => void>();
  left = false;

  leave(): void {
    this.left = true;
    [...this.waiting].forEach((leave) => leave());
  }
}

/** Why a request's call was left: its client went, or the gateway stopped with the call out. */
const LEFT = 'request aborted';
const STOPPED = 'the gateway is stopping';

/**
 * The calls one request (one view of the client) waits for, left all at once when its signal
 * fires: one listener on the signal for all its calls (a request may run hundreds of them).
 */
export class Leaving {
  private readonly leaving = new Set<(reason: string) => void>();

  constructor(
    private readonly signal: LeaveSignal | undefined,
    private readonly all?: AllLeaving,
  ) {
    signal?.addEventListener('abort', () => this.leaving.forEach((leave) => leave(LEFT)), { once: true });
  }

  get aborted(): boolean {
    return this.signal?.aborted ?? false;
  }

  /** Waits for `flight`; when the signal fires first, rejects and leaves it (the last to leave aborts it). */
  join(flight: Flight, req: Prepared): Promise<unknown> {
    flight.waiters++;
    if (!this.signal) return flight.promise;
    const leave = () => {
      if (--flight.waiters === 0) flight.abandon();
    };
    // A write's call was started: it may be made all the same.
    const aborted = (reason: string) => unansweredError(req.info, reason, req.write);
    if (this.signal.aborted || this.all?.left) {
      leave();
      return Promise.reject(aborted(this.signal.aborted ? LEFT : STOPPED));
    }
    return new Promise((resolve, reject) => {
      const onAbort = (reason: string) => {
        this.leaving.delete(onAbort);
        this.all?.waiting.delete(stopped);
        leave();
        reject(aborted(reason));
      };
      const stopped = () => onAbort(STOPPED);
      this.leaving.add(onAbort);
      this.all?.waiting.add(stopped);
      flight.promise.then(
        (value) => {
          this.leaving.delete(onAbort);
          this.all?.waiting.delete(stopped);
          resolve(value);
        },
        (error: unknown) => {
          this.leaving.delete(onAbort);
          this.all?.waiting.delete(stopped);
          reject(error);
        },
      );
    });
  }
}
