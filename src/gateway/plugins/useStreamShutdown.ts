/**
 * Ends open subscriptions cleanly when the gateway stops. `signal` (the context's `shutdown`)
 * aborts every subscription's upstream stream, so each completes and its transport sends
 * `complete`; `close()` waits for that and for the incremental deliveries (`@defer`, `@stream`)
 * still sending (bounded), then ends the event streams still open (a graphql-sse
 * single-connection stream outlives its operations), so their connections close instead of
 * hanging until a forced socket destroy.
 */
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { whenResponseDone, type NodeServerContext } from '../lib/httpBounds.js';

export interface StreamShutdown {
  plugin: Plugin;
  /** Aborted when the gateway stops. */
  signal: AbortSignal;
  /**
   * Aborts `signal`, waits up to `graceMs` for open subscriptions and incremental deliveries to
   * end, then ends open event streams.
   */
  close(graceMs?: number): Promise<void>;
  /** Event streams open now (tests). */
  open(): number;
}

/**
 * A stream's response with `body`, without the `Connection: keep-alive` Yoga and graphql-sse set
 * on their streams: it overrode a request's `Connection: close`, whose socket then stayed open
 * until the keep-alive timeout after the stream ended; without it node:http decides from the
 * request. (Filtered by hand: whatwg-node's Headers, made from an object of `Connection`, does not
 * find it to delete by its lower-case name.)
 */
function streamResponse(
  fetchAPI: { Response: typeof Response; Headers: typeof Headers },
  response: Response,
  body: ReadableStream<Uint8Array>,
) {
  const headers = new fetchAPI.Headers([...response.headers].filter(([name]) => name.toLowerCase() !== 'connection'));
  return new fetchAPI.Response(body, { status: response.status, statusText: response.statusText, headers });
}

export function useStreamShutdown(): StreamShutdown {
  const controller = new AbortController();
  const streams = new Set<() => void>();
  let active = 0;
  let onIdle: (() => void) | undefined;
  const ended = () => {
    active--;
    if (active === 0) onIdle?.();
  };

  const plugin: Plugin = {
    onSubscribe() {
      active++;
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        ended();
      };
      return {
        onSubscribeResult: ({ result }) => (isAsyncIterable(result) ? { onEnd: end } : end()),
        onSubscribeError: end,
      };
    },
    // A query's or mutation's incremental delivery: the stop waits for its last results (its REST
    // calls answered, or given up at the drain's grace) before ending its event stream. Not
    // counted, a `@defer` over SSE in flight at SIGTERM had its stream ended at once, its deferred
    // results and `complete` never sent (over multipart, not ended here, it got them).
    onExecute() {
      return {
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) return;
          active++;
          return { onEnd: ended };
        },
      };
    },
    // After Yoga's result processors (its plugins come first): a subscription's stream that no
    // processor takes (the client's Accept allows none: Yoga answers 406) is never read, so its
    // end hooks (this count, the metrics' open subscriptions) and its upstream stream would wait
    // for the gateway's stop. It is ended now.
    onResultProcess({ result, resultProcessor }) {
      if (!resultProcessor && isAsyncIterable(result)) void result[Symbol.asyncIterator]().return?.();
    },
    onResponse({ response, setResponse, fetchAPI, serverContext }) {
      // The header first: `body` makes a stream of a string body (every JSON result), for nothing.
      const type = response.headers.get('content-type');
      if (type?.startsWith('multipart/mixed') && response.body) return setResponse(streamResponse(fetchAPI, response, response.body));
      if (!type?.startsWith('text/event-stream') || !response.body) return;
      const { body, close } = closableBody(response.body, fetchAPI.ReadableStream, (c) => streams.delete(c));
      streams.add(close);
      // A stream whose client left is ended with its connection: the server adapter may never read
      // (nor cancel) the body of a response it can no longer write, which would keep it, and the
      // operation feeding it, until the gateway stops.
      const { req, res } = (serverContext ?? {}) as NodeServerContext;
      if (res) whenResponseDone(req, res, close);
      setResponse(streamResponse(fetchAPI, response, body));
    },
  };

  return {
    plugin,
    signal: controller.signal,
    open: () => streams.size,
    async close(graceMs = 2000) {
      controller.abort();
      if (active > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          onIdle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      // Let the last `complete` events reach the sockets before their streams end.
      await new Promise((resolve) => setImmediate(resolve));
      for (const close of [...streams]) close();
    },
  };
}

/** A pass-through copy of `source` (chunk by chunk, no buffering) that `close()` ends. */
function closableBody(
  source: ReadableStream<Uint8Array>,
  Stream: typeof ReadableStream,
  onFinish: (close: () => void) => void,
): { body: ReadableStream<Uint8Array>; close: () => void } {
  const reader = source.getReader();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let finished = false;
  const finish = () => {
    if (finished) return false;
    finished = true;
    onFinish(close);
    return true;
  };
  const close = () => {
    if (!finish()) return;
    reader.cancel().catch(() => undefined);
    // Undefined while nobody has started reading the body (the stream starts on its first read).
    controller?.close();
  };
  const body = new Stream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull(c) {
      try {
        const { done, value } = await reader.read();
        if (finished) return;
        if (!done) return c.enqueue(value);
        finish();
        c.close();
      } catch (error) {
        if (finish()) c.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return { body, close };
}
