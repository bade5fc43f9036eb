/**
 * One HTTP exchange of a JSON call through undici's `dispatch`, its body collected as text: what
 * `pool.request()` then `body.text()` do, without the Readable stream, the handler and promise
 * per body read and the signal plumbing they cost per call (undici's documentation points to
 * `dispatch` for hot paths). The pool's timeouts and response size limit apply as for `request`;
 * aborting `signal` aborts the exchange. Event streams keep `pool.request` (stream.ts).
 */
import { errors, type Dispatcher } from 'undici';
import type { AnswerAccount } from './bytesInFlight.js';
import type { Clock, Timer } from './clock.js';
import type { AbortEmitter } from './limiter.js';

/** An answer: its status, the headers the client reads (`READ_HEADERS`, the first value of each) and its body. */
export interface Exchanged {
  statusCode: number;
  headers: { 'content-type'?: string; 'retry-after'?: string; 'content-length'?: string; date?: string };
  /** The body as UTF-8 text (a byte order mark dropped); '' when `keep` declined it. */
  text: string;
  /** Bytes of body received (read whether kept or not). */
  bytes: number;
  /** Bytes of `hold` this answer took (raised to what its parse builds: responses.ts): the caller keeps them (its operation's) or gives them back once the text is parsed. */
  held: number;
}

export interface ExchangeOptions {
  /** Whether the body of an answer with this status is wanted (else it is read and dropped). */
  keep(status: number): boolean;
  /** Called once the status is known, before the body is read. */
  onStatus?(status: number): void;
  /**
   * The caller's account of answer bytes held at once (bytesInFlight.ts): a kept body takes its
   * bytes as they come, and one whose announced length it could not hold now is refused at its
   * headers; a refusal aborts the exchange (AnswerBytesBusy). What was taken is given back here
   * on failure, by the caller otherwise.
   */
  hold?: Pick<AnswerAccount, 'take' | 'fits' | 'give' | 'refusal'>;
  /**
   * The final status is due within `ms` of the request's sending, whatever 1xx answers came
   * before it: undici restarts its own headers timer on each, so an upstream answering
   * `102 Processing` every 200 ms held a call until its deadline (30 s, twice the headers
   * timeout), and one that flooded 1xx answers spent a core on parsing them meanwhile.
   */
  headersTimeout?: { ms: number; clock: Clock };
}

/** Sends `request` on `dispatcher`; resolves with the whole answer, rejects as `request` would. */
export function exchange(
  dispatcher: Dispatcher,
  request: Dispatcher.DispatchOptions,
  signal: AbortEmitter,
  options: ExchangeOptions,
): Promise<Exchanged> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    let headers: Exchanged['headers'] = {};
    let chunks: Buffer[] | undefined;
    let bytes = 0;
    let held = 0;
    const { hold } = options;
    let abort: ((reason?: Error) => void) | undefined;
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      abort?.(new Error('aborted'));
    };
    signal.once('abort', onAbort);
    const { headersTimeout } = options;
    /** When the request was sent; the headers timer, set at the first 1xx only (no timer per call otherwise). */
    let sentAt = 0;
    let headersTimer: Timer | undefined;
    const stopHeadersTimer = () => {
      if (headersTimer !== undefined) headersTimeout!.clock.clearTimeout(headersTimer);
      headersTimer = undefined;
    };
    const settle = () => {
      stopHeadersTimer();
      signal.removeListener('abort', onAbort);
    };
    /** Takes `n` bytes of the budget, or aborts the exchange. */
    const take = (n: number): boolean => {
      if (hold!.take(n, held)) return ((held += n), true);
      abort?.(hold!.refusal(n, held));
      return false;
    };
    const handler: Dispatcher.DispatchHandlers = {
      onConnect(abortRequest) {
        abort = abortRequest;
        if (aborted) abortRequest(new Error('aborted'));
        if (headersTimeout) sentAt = headersTimeout.clock.now();
      },
      onHeaders(status, rawHeaders) {
        // An interim answer is no answer: its status, headers and length are not the call's.
        if (status < 200) {
          if (headersTimeout && headersTimer === undefined) {
            const { ms, clock } = headersTimeout;
            headersTimer = clock.setTimeout(() => abort?.(new errors.HeadersTimeoutError()), ms - (clock.now() - sentAt));
          }
          return true;
        }
        stopHeadersTimer();
        statusCode = status;
        headers = headerRecord(rawHeaders);
        if (options.keep(status)) chunks = [];
        options.onStatus?.(status);
        // An announced length that could not be held beside what others hold now is refused
        // unread; otherwise nothing is taken yet: an answer that announces much and trickles
        // held the whole budget from every other caller until its deadline.
        const announced = Number(headers['content-length']) || 0;
        if (hold && chunks && announced > 0 && !hold.fits(announced)) {
          abort?.(hold.refusal(announced));
          return false;
        }
        return true;
      },
      onData(chunk) {
        bytes += chunk.length;
        if (!chunks) return true;
        if (hold && !take(chunk.length)) return false;
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        settle();
        resolve({ statusCode, headers, text: chunks ? decode(chunks) : '', bytes, held });
      },
      onError(error) {
        settle();
        if (held) hold!.give(held);
        held = 0;
        reject(error);
      },
    };
    dispatcher.dispatch(request, handler);
  });
}

/** The response headers the REST client reads (responses.ts); the others are not decoded. */
// `date`: the upstream's clock, which a `Retry-After` date is read against (responses.ts).
const READ_HEADERS: readonly string[] = ['content-type', 'retry-after', 'content-length', 'date'];
const READ_LENGTHS = new Set(READ_HEADERS.map((name) => name.length));

/** undici's raw headers (name, value, name, value…): the first value of each of READ_HEADERS. */
function headerRecord(raw: Buffer[] | string[] | null): Exchanged['headers'] {
  const headers: Record<string, string> = {};
  if (!raw) return headers;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!READ_LENGTHS.has(raw[i].length)) continue;
    const name = raw[i].toString().toLowerCase();
    if (READ_HEADERS.includes(name)) headers[name] ??= raw[i + 1].toString();
  }
  return headers;
}

/** The body as UTF-8, as undici's `body.text()` decodes it (a leading byte order mark dropped). */
function decode(chunks: Buffer[]): string {
  const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  const bom = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  return body.toString('utf8', bom ? 3 : 0);
}
