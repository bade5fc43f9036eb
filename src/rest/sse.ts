/**
 * Server-Sent Events parsing as the WHATWG spec describes it ("Interpreting an event stream"):
 * lines end in CRLF, LF or CR (also split across chunks), `data:` lines join with "\n", `event:`
 * names the type (default `message`), `id:` sets the last event id (kept for later events),
 * lines starting with `:` are comments (heartbeats), a blank line dispatches, an event without
 * data is dropped, and an unterminated event at the end of the stream is discarded.
 * `eventStream` wraps an upstream response body: idle timeout, abort on close, error mapping.
 * One event (its lines so far, and a line not ended yet) holds at most MAX_EVENT_CHARS: a stream
 * that never ends a line or an event would otherwise grow the buffer for as long as it runs.
 */
import { systemClock, type Clock } from './clock.js';
import { restError, unavailableError, RestError, type UpstreamInfo } from './errors.js';

/** The most characters one event may hold (1 Mi: GitBook's events are deltas of a few hundred). */
export const MAX_EVENT_CHARS = 1024 * 1024;

/** An event (or a line) that passed MAX_EVENT_CHARS. */
export class EventTooLarge extends Error {
  constructor() {
    super(`event stream: an event longer than ${MAX_EVENT_CHARS} characters`);
  }
}

export interface SseEvent {
  event: string;
  data: string;
  /** The last event id the stream set (it carries over to later events), if any. */
  id?: string;
}

const LF = 0x0a;
const CR = 0x0d;
/** Pieces of a line not ended yet kept apart before they are joined (a 1 MiB line in 1-byte pieces: 1,024 joins). */
const MAX_PIECES = 1024;

/**
 * Incremental parser: feed text with `push`, get the events completed so far. Each character is
 * read once: a line not ended yet is kept in the pieces it came in, joined when it ends (it was
 * one string, scanned again from its start at each push: a 1 MiB line in 16-byte pieces cost
 * 82 s of CPU).
 */
export class SseParser {
  /** The line not ended yet, in pieces, and its characters. */
  private pending: string[] = [];
  private pendingChars = 0;
  private pendingCR = false;
  private started = false;
  private data: string[] = [];
  /** Characters of `data` (the current event's lines). */
  private dataChars = 0;
  private event = '';
  private lastId: string | undefined;

  push(text: string): SseEvent[] {
    if (!this.started && text.length) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    // A CR that ended the previous chunk already ended its line; drop a LF that follows it.
    if (this.pendingCR && text.startsWith('\n')) text = text.slice(1);
    this.pendingCR = false;
    const out: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch !== LF && ch !== CR) continue;
      const line = this.ended(text.slice(start, i));
      if (ch === CR) {
        if (i + 1 === text.length) this.pendingCR = true;
        else if (text.charCodeAt(i + 1) === LF) i++;
      }
      start = i + 1;
      const event = this.line(line);
      if (event) out.push(event);
    }
    if (start < text.length) {
      this.pending.push(start ? text.slice(start) : text);
      this.pendingChars += text.length - start;
      // Pieces of a byte each would cost an array slot and a string apiece: joined now and then.
      if (this.pending.length >= MAX_PIECES) this.pending = [this.pending.join('')];
    }
    if (this.pendingChars + this.dataChars > MAX_EVENT_CHARS) throw new EventTooLarge();
    return out;
  }

  /** The line that `last` ends: the pieces before it, and it. */
  private ended(last: string): string {
    if (!this.pending.length) return last;
    this.pending.push(last);
    const line = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    return line;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.data.push(value);
      this.dataChars += value.length + 1;
      if (this.dataChars > MAX_EVENT_CHARS) throw new EventTooLarge();
    } else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.lastId = value;
    // `retry` and unknown fields are ignored: reconnection is the caller's decision.
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const data = this.data;
    const event = this.event || 'message';
    this.data = [];
    this.dataChars = 0;
    this.event = '';
    if (!data.length) return undefined;
    const out: SseEvent = { event, data: data.join('\n') };
    if (this.lastId !== undefined) out.id = this.lastId;
    return out;
  }
}

/** Parses a byte (or text) stream into events; multi-byte characters may be split across chunks. */
export async function* parseSse(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    yield* parser.push(text);
  }
  yield* parser.push(decoder.decode());
}

/**
 * Events of one upstream stream. `return()` (a `break` out of `for await`) aborts the request.
 * Hand-built rather than a Repeater: `return()` must abort the request and release even before the
 * first `next()`, and a Repeater never pulled never runs its executor (its cleanup).
 */
export interface SseStream extends AsyncIterableIterator<SseEvent> {
  return(): Promise<IteratorResult<SseEvent, undefined>>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface EventStreamOptions {
  /** Aborting it ends the upstream request (and its connection). */
  controller: AbortController;
  /** The consumer's signal: when it fires the stream ends quietly. */
  signal?: AbortSignal;
  /** Error when no byte arrives for this long; 0 disables. */
  idleTimeoutMs: number;
  upstream: Omit<UpstreamInfo, 'status'>;
  /** Called once when the stream is over, whatever the reason. */
  onClose?: () => void;
  /** The idle timer's clock (default the process's). */
  clock?: Clock;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

export function eventStream(body: AsyncIterable<Uint8Array>, options: EventStreamOptions): SseStream {
  const { controller, signal, idleTimeoutMs, upstream } = options;
  let idle = false;
  let closed = false;
  const events = parseSse(
    watchIdle(body, idleTimeoutMs, options.clock ?? systemClock, () => {
      idle = true;
      controller.abort();
    }),
  );
  const close = () => {
    if (closed) return;
    closed = true;
    controller.abort();
    options.onClose?.();
  };
  const stream: SseStream = {
    async next() {
      if (closed) return DONE;
      try {
        const result = await events.next();
        if (result.done) close();
        return result;
      } catch (error) {
        const stopped = (closed || signal?.aborted) && !idle;
        close();
        if (stopped) return DONE;
        if (error instanceof EventTooLarge)
          throw restError('UPSTREAM_ERROR', 'Upstream event stream: an event too large', { ...upstream, status: null });
        throw streamError(idle, idleTimeoutMs, upstream);
      }
    },
    async return() {
      close();
      return DONE;
    },
    async [Symbol.asyncDispose]() {
      close();
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return stream;
}

/** Passes chunks through; the timer runs only while waiting for the upstream, not for the consumer. */
async function* watchIdle(body: AsyncIterable<Uint8Array>, ms: number, clock: Clock, onIdle: () => void): AsyncGenerator<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]();
  for (;;) {
    const timer = ms > 0 ? clock.setTimeout(onIdle, ms) : undefined;
    let result: IteratorResult<Uint8Array>;
    try {
      result = await chunks.next();
    } finally {
      if (timer !== undefined) clock.clearTimeout(timer);
    }
    if (result.done) return;
    yield result.value;
  }
}

function streamError(idle: boolean, idleTimeoutMs: number, upstream: Omit<UpstreamInfo, 'status'>): RestError {
  const reason = idle ? `no event stream data for ${idleTimeoutMs} ms` : 'event stream interrupted';
  return unavailableError(upstream, reason);
}
