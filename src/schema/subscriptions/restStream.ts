/**
 * A subscription's source stream read from a REST Server-Sent Events stream (through src/rest, with
 * the caller's token): one payload per event, passed on as it arrives, and the subscription
 * completes when the REST stream ends. Every failure (invalid arguments, a refused stream such as
 * 401/404, an upstream gone or stalled mid-stream, an unreadable event) becomes one last payload
 * holding the error; `resolveEvent` throws it, so every transport sends it as an error result
 * (`data: null`, `errors[0].extensions.code`) before completing, instead of failing the request.
 * Ending the subscription (client gone, early dispose, gateway shutdown through `ctx.shutdown`)
 * aborts the REST request at once; a shutdown's last payload is `UPSTREAM_UNAVAILABLE` "the gateway
 * is stopping".
 */
import { Repeater } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { errorCode, restError, RestError, unavailableError, type Query } from '../../rest/index.js';
import { abortWith } from '../../shutdown.js';

/** Maps an event's parsed JSON to a payload; undefined skips the event. `any`: each reader names
 * the event shape it expects (`{type, answer}`), unchecked, as a JSON.parse result is. */
export type EventReader<T> = (json: any) => T | undefined;

/** The REST stream to open; it may throw (BAD_USER_INPUT) after checking the arguments. */
export type StreamRequest = () => { path: string; query?: Query };

/** Opens the REST stream on the first `next()`; each `push` waits for the consumer (no read-ahead). */
export function restSubscription<T>(ctx: GatewayContext, request: StreamRequest, read: EventReader<T>): Repeater<T | RestError> {
  return new Repeater(async (push, stop) => {
    // `return()` (client gone, dispose) stops the Repeater, and so does the gateway stopping: end
    // the request (abortWith: AbortSignal.any left 50 bytes in the gateway's signal per subscription).
    // The client leaving ends it too: linked the same way, not by `AbortSignal.any`, which Node
    // 24.22 refuses for the request's signal (whatwg-node's stand-in, an AbortSignal in name only):
    // every subscription then failed UPSTREAM_ERROR before its REST stream was asked for.
    const ended = new AbortController();
    const unlink = abortWith(ended, ctx.shutdown);
    const unlinkClient = abortWith(ended, ctx.clientSignal());
    void stop.then(() => {
      unlink();
      unlinkClient();
      ended.abort();
    });
    let path = '';
    let failure: RestError | undefined;
    try {
      const target = request();
      path = target.path;
      for await (const { event, data } of await ctx.caller.stream(path, target.query, ended.signal)) {
        const value = event === 'message' ? readEvent(read, data, path) : undefined;
        if (value !== undefined) await push(value);
      }
    } catch (error) {
      failure = errorCode(error) ? (error as RestError) : streamError(path, 'Upstream event stream failed', null);
    }
    // The gateway stopping (`ctx.shutdown`) cut the REST stream (ended or failed it): said as the
    // last result, since a `complete` alone told the client its answer was whole (an ask's answer
    // cut mid-sentence).
    if (ctx.shutdown.aborted) failure = unavailableError({ method: 'GET', path }, 'the gateway is stopping');
    if (failure) await push(failure);
    stop();
  });
}

/** The subscription field's `resolve`: a payload, or the error that ended the stream. */
export function resolveEvent<T>(payload: T | RestError): T {
  if (payload instanceof RestError) throw payload;
  return payload;
}

function readEvent<T>(read: EventReader<T>, data: string, path: string): T | undefined {
  try {
    return read(JSON.parse(data));
  } catch {
    throw streamError(path, 'Upstream sent an unreadable event', 200);
  }
}

function streamError(path: string, message: string, status: number | null): RestError {
  return restError('UPSTREAM_ERROR', message, { status, method: 'GET', path });
}
