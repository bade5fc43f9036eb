/**
 * Refuses a result larger than `maxResponseBytes` before it is serialized: the REST loader makes
 * one call per object, but each occurrence of the object in the result (an id repeated in
 * `nodes(ids:)` or `_entities`, aliases of one lookup) is written out again, so 100 × one 950 KB
 * comment at cost 101 would answer 95 MB. The result holds each REST string once, by reference;
 * its serialized size is counted by one walk over its values (string lengths, no serializing), which
 * stops as soon as the bound is passed. Over it, the whole result becomes BAD_USER_INPUT
 * `maxResponseBytes: …` (`data: null`). A streamed result (@defer/@stream) counts all its parts and ends
 * with the error at the part that passes the bound (later parts are empty); a subscription bounds
 * each event. Checked where results are made, so every transport (graphql-sse too) is bounded,
 * and once more before serializing for results that were not executed (response-cache hits).
 * Results written over HTTP also share a budget of bytes in flight (defaultResponseBytesInFlight):
 * a result that would pass it while others are being written is refused with
 * UPSTREAM_UNAVAILABLE ("try again later", `retryAfter: 1`, HTTP 503), never built into text.
 */
import { getHeapStatistics } from 'node:v8';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { BytesInFlight } from '../../rest/index.js';
import { whenResponseDone, type NodeServerContext } from '../lib/httpBounds.js';
import { responseBytesError } from '../lib/limitError.js';
import { jsonSize } from '../lib/jsonSize.js';
import { writtenLength } from '../lib/writtenAs.js';

/**
 * Bytes of results being written at once, across requests, by default a quarter of V8's heap
 * limit: while a result is serialized its JSON text is on the heap, so many results within the
 * bound, written at the same moment, could still exhaust it (80 of 3.8 MB did under `npm start`).
 */
export function defaultResponseBytesInFlight(maxResponseBytes: number): number {
  return Math.max(maxResponseBytes, Math.floor(getHeapStatistics().heap_size_limit / 4));
}

/**
 * Each result's size as measured before it was written (its refusal's, 0, for a refused one), for
 * every gateway of the process: result objects are each a request's own.
 */
const sizes = new WeakMap<object, number>();

/** The size of a result written over HTTP, as this bound measured it (undefined for one it did not see). */
export function measuredSize(result: unknown): number | undefined {
  return typeof result === 'object' && result !== null ? sizes.get(result) : undefined;
}

export function useMaxResponseBytes(maxResponseBytes: number, inFlightBudget = defaultResponseBytesInFlight(maxResponseBytes)): Plugin {
  const refusal = () => responseBytesError(maxResponseBytes);
  const busy = () =>
    new GraphQLError('The gateway is writing too many large results at once; try again shortly.', {
      extensions: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1, http: { status: 503, headers: { 'Retry-After': '1' } } },
    });
  const bound = (result: ExecutionResult): ExecutionResult => {
    if (sizes.has(result)) return result;
    // A result written as a text made once (a kept introspection answer) is that text's length.
    const size = writtenLength(result) ?? jsonSize(result, maxResponseBytes);
    // `data: null`: the operation ran (and graphql-sse takes a result without `data` for arguments).
    const bounded = size > maxResponseBytes ? { data: null, errors: [refusal()] } : result;
    sizes.set(bounded, bounded === result ? size : 0);
    return bounded;
  };
  // One budget for all results (no caller's share: `perCaller` is the whole budget).
  const inFlight = new BytesInFlight(inFlightBudget, inFlightBudget);
  /** Holds `size` bytes of the budget until the response is written (its socket done), or refuses. */
  const admit = (result: ExecutionResult, node: NodeServerContext): ExecutionResult => {
    const size = sizes.get(result) ?? 0;
    if (size === 0) return result;
    const { req, res } = node;
    if (res)
      return inFlight.takeUntil('', size, (release) => whenResponseDone(req, res, release)) ? result : { data: null, errors: [busy()] };
    // No response to wait for (another transport): held until the next turn of the event loop.
    if (!inFlight.take('', size)) return { data: null, errors: [busy()] };
    setImmediate(() => inFlight.give('', size));
    return result;
  };
  /** A subscription's events one by one. */
  const eachEvent = ({ result, setResult }: { result: ExecutionResult; setResult(r: ExecutionResult): void }) => {
    const bounded = bound(result);
    if (bounded !== result) setResult(bounded);
  };
  /** An incremental result's parts together: the part that passes the bound ends it, later parts are empty. */
  const allParts = () => {
    let total = 0;
    return ({ result, setResult }: { result: ExecutionResult; setResult(r: ExecutionResult): void }) => {
      if (total > maxResponseBytes) return setResult({ hasNext: false } as ExecutionResult);
      total += jsonSize(result, maxResponseBytes - total);
      if (total > maxResponseBytes) setResult({ errors: [refusal()], hasNext: false } as ExecutionResult);
    };
  };
  return {
    // At the source, for every transport (HTTP, SSE, graphql-sse).
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (isAsyncIterable(result)) return { onNext: allParts() as never };
        const bounded = bound(result);
        if (bounded !== result) setResult(bounded);
      },
    }),
    onSubscribe: () => ({
      onSubscribeResult: ({ result, setResult }) => {
        if (isAsyncIterable(result)) return { onNext: eachEvent as never };
        const bounded = bound(result as ExecutionResult);
        if (bounded !== result) setResult(bounded);
      },
    }),
    // Before serializing: what did not come from execution here (a response-cache hit) is
    // measured, and each result holds its bytes of the in-flight budget while it is written.
    onResultProcess({ result, setResult, serverContext }) {
      const node = serverContext as NodeServerContext;
      if (Array.isArray(result)) setResult(result.map((r) => admit(bound(r), node)));
      else if (!isAsyncIterable(result)) setResult(admit(bound(result as ExecutionResult), node));
    },
  };
}
