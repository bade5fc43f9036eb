/** Server-Sent Events: writes events one by one, paced, and stops when the client goes away. */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AskStreamEnd, RequestContext } from '../context.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * Streams `events` (each sent as one `data:` line of JSON) with `services.askStreamDelayMs`
 * between two events. Events are produced lazily, so a client that disconnects stops the work;
 * `services.onAskStreamEnd` learns how the stream ended and how many events it wrote.
 */
export async function streamEvents(ctx: RequestContext, stream: AskStreamEnd['stream'], events: Iterable<unknown>) {
  const { res, signal, services } = ctx;
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  let written = 0;
  let reason: AskStreamEnd['reason'] = 'aborted';
  try {
    for (const event of events) {
      if (written > 0) await sleep(services.askStreamDelayMs, undefined, { signal });
      if (signal.aborted) throw signal.reason;
      const flushed = res.write(`data: ${JSON.stringify(event)}\n\n`);
      written++;
      if (!flushed) await once(res, 'drain', { signal });
    }
    reason = 'complete';
  } catch (err) {
    if (!signal.aborted) throw err;
  } finally {
    if (!res.destroyed) res.end();
    // A stopping server closes the connection rather than leave it idle under keep-alive.
    if (services.shutdown.aborted) res.socket?.end();
    services.onAskStreamEnd?.({ stream, reason, events: written });
  }
}
