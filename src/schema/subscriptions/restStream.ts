/**
 * A subscription's source stream read from a REST Server-Sent Events stream (through src/rest, with
 * the caller's token): one payload per event, passed on as it arrives, and the subscription
 * completes when the REST stream ends. Every failure (invalid arguments, a refused stream such as
 * 401/404, an upstream gone or stalled mid-stream, an unreadable event) becomes one last payload
 * holding the error; `resolveEvent` throws it, so every transport sends it as an error result
 * (`data: null`, `errors[0].extensions.code`) before completing, instead of failing the request.
 * Ending the subscription (client gone, early dispose, gateway shutdown through `ctx.shutdown`)
 * aborts the REST request at once.
 */
import { GraphQLError } from 'graphql';
import type { GatewayContext } from '../context.js';
import { errorCode, restError, type Query, type SseEvent, type SseStream } from '../../rest/index.js';

/** Maps an event's parsed JSON to a payload; undefined skips the event. */
export type EventReader<T> = (json: any) => T | undefined;

/** The REST stream to open; it may throw (BAD_USER_INPUT) after checking the arguments. */
export type StreamRequest = () => { path: string; query?: Query };

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/** Opens the REST stream at once; the first `next()` waits for it. */
export function restSubscription<T>(ctx: GatewayContext, request: StreamRequest, read: EventReader<T>): AsyncIterableIterator<T | GraphQLError> {
  let path = '';
  let opening: Promise<SseStream>;
  try {
    const target = request();
    path = target.path;
    opening = ctx.caller.stream(target.path, target.query, AbortSignal.any([ctx.signal, ctx.shutdown]));
  } catch (error) {
    opening = Promise.reject(error);
  }
  opening.catch(() => undefined); // reported by the first `next()`
  return payloads(opening, read, path, ctx.shutdown);
}

/** The subscription field's `resolve`: a payload, or the error that ended the stream. */
export function resolveEvent<T>(payload: T | GraphQLError): T {
  if (payload instanceof GraphQLError) throw payload;
  return payload;
}

function payloads<T>(
  opening: Promise<SseStream>,
  read: EventReader<T>,
  path: string,
  shutdown: AbortSignal,
): AsyncIterableIterator<T | GraphQLError> {
  let stream: SseStream | undefined;
  let over = false;
  const fail = async (error: unknown): Promise<IteratorYieldResult<GraphQLError>> => {
    over = true;
    await stream?.return();
    return { done: false, value: errorCode(error) ? (error as GraphQLError) : streamError(path, 'Upstream event stream failed', null) };
  };
  const nextEvent = async (): Promise<IteratorResult<T | GraphQLError, undefined>> => {
    while (!over && stream) {
      let result: IteratorResult<SseEvent>;
      try {
        result = await stream.next();
      } catch (error) {
        return fail(error);
      }
      if (result.done) break;
      if (result.value.event !== 'message') continue;
      let value: T | undefined;
      try {
        value = read(JSON.parse(result.value.data));
      } catch {
        return fail(streamError(path, 'Upstream sent an unreadable event', 200));
      }
      if (value !== undefined) return { done: false, value };
    }
    over = true;
    return DONE;
  };
  return {
    async next() {
      if (over) return DONE;
      if (!stream) {
        try {
          stream = await opening;
        } catch (error) {
          if (!shutdown.aborted) return fail(error);
          over = true; // the gateway stopped while the stream was opening: complete with no error
          return DONE;
        }
        if (over) await stream.return(); // ended while opening
      }
      return nextEvent();
    },
    async return() {
      over = true;
      if (stream) await stream.return();
      else opening.then((s) => s.return(), () => undefined);
      return DONE;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

function streamError(path: string, message: string, status: number | null): GraphQLError {
  return restError('UPSTREAM_ERROR', message, { status, method: 'GET', path });
}
