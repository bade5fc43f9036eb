/**
 * Opens a Server-Sent Events stream (a GET answered `text/event-stream`): through the circuits
 * (it fails fast while they are open), outside the concurrency limits (streams are long), with
 * its final status due within the headers timeout (1xx answers do not extend it), then no body
 * timeout but an idle timer (sse.ts). A non-2xx answer rejects with its mapped error, a 2xx of
 * another type than `text/event-stream` (or in a content coding) with UPSTREAM_ERROR.
 *
 * Streams are bounded apart: at most STREAMS_PER_CALLER open per caller (its budget key: RATE_LIMITED
 * past it) and STREAMS_TOTAL in all (UPSTREAM_UNAVAILABLE), on connections of their own (a pool of
 * STREAMS_TOTAL, `streamPool`, without the answers' size limit). Before, one token's subscriptions
 * took the calls' connections, which the limiter counted as free: other callers' calls queued in the pool
 * (a median of 1.8 s for a `viewer` read while one token ran 450 subscriptions a second).
 */

import type { Dispatcher } from 'undici';
import { CircuitOpen } from './circuit.js';
import type { Clock } from './clock.js';
import { circuitOpenError, errorCode, overloadError, restError, unavailableError, type ErrorCode } from './errors.js';
import type { Prepared } from './request.js';
import { connectionError, connectionHealth, statusError, systemCode } from './responses.js';
import { eventStream, type SseStream } from './sse.js';
import type { Transport, Who } from './transport.js';

export async function openStream(transport: Transport, req: Prepared, who: Who, signal: AbortSignal | undefined): Promise<SseStream> {
  const { streamPool: pool, clock, circuits, headersTimeout, streamIdleTimeout, report } = transport.parts;
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (signal?.aborted) throw unavailableError(req.info, 'request aborted');
  const refused = transport.takeStream(who.budget);
  if (refused) throw overloadError(req.info, refused, 'event streams');
  signal?.addEventListener('abort', abort, { once: true });
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    signal?.removeEventListener('abort', abort);
    transport.giveStream(who.budget);
  };
  const started = clock.now();
  const reportAttempt = (status: number | null, code?: ErrorCode) =>
    report?.({ ...req.info, route: req.route, status, ms: clock.now() - started, attempt: 1, code });
  let admission;
  try {
    admission = circuits.admit(req.route, who.budget);
  } catch (error) {
    release();
    if (error instanceof CircuitOpen) throw circuitOpenError(req.info);
    throw error;
  }
  // The final status within the headers timeout: undici restarts its own timer on every 1xx, so
  // an upstream answering `102 Processing` each second held the stream (and its place) for good.
  let late = false;
  const timer = clock.setTimeout(() => {
    late = true;
    controller.abort();
  }, headersTimeout);
  let res: Dispatcher.ResponseData;
  try {
    res = await pool.request({
      path: req.url,
      method: 'GET',
      headers: [...req.headers, 'cache-control', 'no-cache'],
      signal: controller.signal,
      headersTimeout,
      bodyTimeout: 0,
    });
  } catch (err) {
    release();
    if (late) {
      admission.done('route');
      const error = connectionError('UND_ERR_HEADERS_TIMEOUT', req);
      reportAttempt(null, errorCode(error));
      throw error;
    }
    if (controller.signal.aborted) {
      admission.done('neutral');
      throw unavailableError(req.info, 'request aborted');
    }
    const code = systemCode(err);
    const error = connectionError(code, req);
    admission.done(connectionHealth(code));
    reportAttempt(null, errorCode(error));
    throw error;
  } finally {
    clock.clearTimeout(timer);
  }
  admission.done(res.statusCode >= 500 ? 'route' : 'healthy');
  transport.parts.onAnswer?.(who, res.statusCode);
  if (res.statusCode < 200 || res.statusCode >= 300) {
    release();
    const error = statusError(res, req, await errorText(res.body, controller, clock, headersTimeout));
    reportAttempt(res.statusCode, errorCode(error));
    throw error;
  }
  // Closed unread (its connection with it), its place given back; the error a destroyed body emits is no one's.
  const drop = () => {
    release();
    res.body.on('error', () => undefined).destroy();
  };
  // A 2xx that is no event stream (a JSON body, a proxy's page) held no event as one: the
  // subscription completed as if the REST API had sent nothing, without an error. So did an event
  // stream in a content coding (a proxy's gzip, unasked: nothing is decoded), its bytes no line.
  const unexpected = !/^\s*text\/event-stream\b/i.test(String(res.headers['content-type'] ?? ''))
    ? 'not an event stream'
    : encoded(res.headers['content-encoding'])
      ? 'an event stream in a content coding'
      : undefined;
  if (unexpected) {
    drop();
    const error = restError('UPSTREAM_ERROR', `Upstream sent an unexpected body (${unexpected})`, {
      ...req.info,
      status: res.statusCode,
    });
    reportAttempt(res.statusCode, errorCode(error));
    throw error;
  }
  // A throw past here (its report) reached no one who could close the stream: it kept its place
  // (STREAMS_PER_CALLER such throws: the caller's every later stream RATE_LIMITED) and its connection.
  try {
    reportAttempt(res.statusCode);
    return eventStream(res.body, { controller, signal, idleTimeoutMs: streamIdleTimeout, upstream: req.info, onClose: release, clock });
  } catch (error) {
    drop();
    throw error;
  }
}

/** Whether a `Content-Encoding` names a coding besides `identity`. */
function encoded(value: string | string[] | undefined): boolean {
  return [value ?? []].flat().some((coding) => !/^\s*(identity)?\s*$/i.test(coding));
}

/** The most bytes of an error answer's body read for its message (cut at 500 characters anyway: errors.ts). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * A refused stream's body, for its message: at most MAX_ERROR_BODY_BYTES, within `ms` of its
 * status; '' (no message) past either, the connection closed. The streams' pool has neither a size
 * limit nor a body timeout: a 400 whose body never ended was read whole (the gateway's memory grew
 * by 1.4 GB in 15 s) and held its subscription for as long as it came.
 */
async function errorText(body: Dispatcher.ResponseData['body'], controller: AbortController, clock: Clock, ms: number): Promise<string> {
  const timer = clock.setTimeout(() => controller.abort(), ms);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_ERROR_BODY_BYTES) return '';
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch {
    return '';
  } finally {
    clock.clearTimeout(timer);
  }
}
