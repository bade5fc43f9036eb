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
 * a result that would pass it while others are being written, or pass its caller's share (a
 * quarter of it, at least one whole result) once half of it is held, is refused with
 * UPSTREAM_UNAVAILABLE ("try again later", `retryAfter: 1`, HTTP 503), never built into text.
 * Streamed results take their share part by part: each part (an incremental payload, a
 * subscription event) holds its bytes from when it is made until its response is done, as a whole
 * result does, or until nothing waits to be written to the response a few parts later (a stream's
 * writer reads ahead of what its client has read, so a part's bytes cannot be given back when the
 * next one is made). An incremental result's parts are within the response
 * bound together; the subscriptions' streams end with their REST stream. A part past the budget
 * ends an incremental result with that error, and replaces a subscription event. Before, a hundred
 * clients that never read a 3.9 MB deferred result held 3.7 MB each, past any bound. graphql-sse
 * takes every event of a stream as it comes, read or not: its queues are bounded in
 * useGraphQLSSE.ts.
 * A mutation's result is not refused whole (madeWrites): its writes are made.
 */
import { getOperationAST, GraphQLError, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { resultsHeapBytes } from '../../config.js';
import { BytesInFlight } from '../../rest/index.js';
import { whenResponseDone, type NodeServerContext } from '../lib/httpBounds.js';
import { callerBudget } from '../lib/callerHash.js';
import { responseBytesError } from '../lib/limitError.js';
import { jsonSize } from '../lib/jsonSize.js';
import { writtenLength } from '../lib/writtenAs.js';

/**
 * Bytes of results being written at once, across requests, by default a quarter of V8's heap
 * limit: while a result is serialized its JSON text is on the heap, so many results within the
 * bound, written at the same moment, could still exhaust it (80 of 3.8 MB did under `npm start`).
 */
export function defaultResponseBytesInFlight(maxResponseBytes: number): number {
  return Math.max(maxResponseBytes, resultsHeapBytes());
}

type Part = { result: ExecutionResult; setResult(r: ExecutionResult): void };

/**
 * Parts of a streamed result its writer may have taken and not yet written to the response: the
 * streams between the result and node:http (Yoga's event stream, useStreamShutdown.ts's, the
 * response's body) each read one chunk ahead, and an event is two chunks. Kept counted, with room.
 */
const READ_AHEAD_PARTS = 8;

/** An operation's context as this bound reads it: node:http's request and response (when over HTTP) and the Fetch request. */
type OperationContext = NodeServerContext & { request?: Request };

/** Whose share a streamed result's parts take: its request's caller ('' when the context has no request). */
const callerOf = (context: OperationContext | undefined) => (context?.request ? callerBudget(context.request) : '');

/**
 * Each result's size as measured before it was written (its refusal's, 0, for a refused one), for
 * every gateway of the process: result objects are each a request's own.
 */
const sizes = new WeakMap<object, number>();

/** The size of a result written over HTTP, as this bound measured it (undefined for one it did not see). */
export function measuredSize(result: unknown): number | undefined {
  return typeof result === 'object' && result !== null ? sizes.get(result) : undefined;
}

/** Results of mutations, whose writes are made (madeWrites). */
const mutationResults = new WeakSet<object>();

/**
 * What a mutation's result too large to send (or past the budget) becomes: its writes are made, so
 * a refusal of it all (`data: null`) read as a failed write, and a client that retried it wrote it
 * twice (30 aliases of createSpace echoing a 150 KB clientMutationId made 30 spaces, answered
 * `data: null` and BAD_USER_INPUT). Each root field keeps its own errors (its write failed); one
 * with a payload gets null and `error` at its path, saying that its write was made.
 */
function madeWrites(result: ExecutionResult, error: GraphQLError): ExecutionResult {
  const errors = (result.errors ?? []).filter((e) => e.path?.length === 1);
  // Keyed by the caller's aliases: no prototype, so `__proto__: createSpace(…)` is a key like any other
  // (on `{}` its null set the prototype, and the field was left out of the answer).
  const data: Record<string, null> = Object.create(null);
  for (const [key, value] of Object.entries(result.data ?? {})) {
    data[key] = null;
    if (value !== null)
      errors.push(
        new GraphQLError(`The write was made; its payload is left out. ${error.message}`, { path: [key], extensions: error.extensions }),
      );
  }
  return { data, errors };
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
    // The refusal is made only for a result over the bound (a GraphQLError captures a stack).
    const bounded =
      size <= maxResponseBytes ? result : mutationResults.has(result) ? madeWrites(result, refusal()) : { data: null, errors: [refusal()] };
    sizes.set(bounded, bounded === result ? size : 0);
    return bounded;
  };
  // One budget for all results, each caller (its budget key: lib/callerHash.ts) with its share, as
  // for REST answers (src/rest/bytesInFlight.ts): a result is held until its client has read it,
  // and one token holding a dozen responses it never read (3.6 MB each, a few bytes a second of
  // its own) had every other caller's large result refused (503) for as long as it kept them open.
  // A share is never less than one whole result: all the parts of one stream fit it.
  const inFlight = new BytesInFlight(inFlightBudget, Math.max(maxResponseBytes, Math.floor(inFlightBudget / 4)));
  /** Holds `size` bytes of the budget until the response is written (its socket done), or refuses. */
  const admit = (result: ExecutionResult, node: NodeServerContext, caller: string): ExecutionResult => {
    const size = sizes.get(result) ?? 0;
    if (size === 0) return result;
    const { req, res } = node;
    const refused = (): ExecutionResult => {
      if (!mutationResults.has(result)) return { data: null, errors: [busy()] };
      // Not "try again": its writes are made (the result says which); a few hundred bytes, not counted.
      const made = madeWrites(result, new GraphQLError(busy().message, { extensions: { code: 'UPSTREAM_UNAVAILABLE' } }));
      sizes.set(made, 0);
      return made;
    };
    if (res) return inFlight.takeUntil(caller, size, (release) => whenResponseDone(req, res, release)) ? result : refused();
    // No response to wait for (another transport): held until the next turn of the event loop.
    if (!inFlight.take(caller, size)) return refused();
    setImmediate(() => inFlight.give(caller, size));
    return result;
  };
  /**
   * The in-flight share of one streamed response's parts: each part's bytes are held until the
   * response is done (see above), or until its client has read it: when a part is made and nothing
   * waits to be written to the response (`writableLength` 0), every part made before the last
   * READ_AHEAD_PARTS is in the socket, and their bytes are given back. Held until the response was
   * done, a subscription's events added up for as long as it lived: one whose client read each
   * event at once had its events replaced by UPSTREAM_UNAVAILABLE after 74 MB (45 s of a fast REST
   * stream), and four such streams held the whole budget from every other caller. False when the
   * budget cannot take a part.
   */
  const partsOf = (context: OperationContext | undefined) => {
    const caller = callerOf(context);
    const res = context?.res;
    let held = 0;
    /** Sizes of the last parts made (those the writer may not have written yet), oldest first. */
    const recent: number[] = [];
    /** Bytes of the parts made before them. */
    let older = 0;
    let done = false;
    if (res)
      whenResponseDone(context.req, res, () => {
        done = true;
        if (held) inFlight.give(caller, held);
        held = 0;
      });
    return (size: number): boolean => {
      if (done || size === 0) return true;
      if (older > 0 && res!.writableLength === 0) {
        inFlight.give(caller, older);
        held -= older;
        older = 0;
      }
      if (!inFlight.take(caller, size)) return false;
      if (!res) {
        setImmediate(() => inFlight.give(caller, size)); // no response to wait for
        return true;
      }
      held += size;
      recent.push(size);
      if (recent.length > READ_AHEAD_PARTS) older += recent.shift()!;
      return true;
    };
  };
  /** A subscription's events one by one, each bounded and admitted. */
  const eachEvent = (context: OperationContext | undefined) => {
    const admitPart = partsOf(context);
    return ({ result, setResult }: Part) => {
      const bounded = bound(result);
      if (!admitPart(sizes.get(bounded) ?? 0)) return setResult({ data: null, errors: [busy()] });
      if (bounded !== result) setResult(bounded);
    };
  };
  /**
   * An incremental result's parts together, as the parts of a result that ends at the part that
   * passes a bound (with its error and `hasNext: false`). The executor's later parts are dropped:
   * they were sent as `{"hasNext": false}` after it, one each, and the response stayed open until
   * the last of them (a REST call's whole deadline). A mutation's first part that passes a bound
   * is its result's `madeWrites` (its writes are made): it was the refusal alone, without `data`,
   * and a client that retried wrote everything twice; a later part's refusal does not say "try again".
   */
  const allParts = (parts: AsyncIterable<ExecutionResult>, context: OperationContext | undefined, mutation: boolean) => {
    const admitPart = partsOf(context);
    let total = 0;
    let first = true;
    return endingAt(parts, (part) => {
      const size = jsonSize(part, maxResponseBytes - total);
      total += size;
      const initial = first;
      first = false;
      if (total <= maxResponseBytes && admitPart(size)) return undefined;
      const error =
        total > maxResponseBytes
          ? refusal()
          : mutation
            ? new GraphQLError(busy().message, { extensions: { code: 'UPSTREAM_UNAVAILABLE' } })
            : busy();
      if (initial && mutation) return { ...madeWrites(part, error), hasNext: false } as ExecutionResult;
      return { errors: [error], hasNext: false } as ExecutionResult;
    });
  };
  return {
    // At the source, for every transport (HTTP, SSE, graphql-sse).
    onExecute: ({ args }) => ({
      onExecuteDone: ({ result, setResult }) => {
        const mutation = getOperationAST(args.document, args.operationName)?.operation === 'mutation';
        if (isAsyncIterable(result)) return setResult(allParts(result, args.contextValue as OperationContext, mutation) as never);
        if (mutation) mutationResults.add(result);
        const bounded = bound(result);
        if (bounded !== result) setResult(bounded);
      },
    }),
    onSubscribe: ({ args }) => ({
      onSubscribeResult: ({ result, setResult }) => {
        if (isAsyncIterable(result)) return { onNext: eachEvent(args.contextValue as OperationContext) as never };
        const bounded = bound(result as ExecutionResult);
        if (bounded !== result) setResult(bounded);
      },
    }),
    // Before serializing: what did not come from execution here (a response-cache hit) is
    // measured, and each result holds its bytes of the in-flight budget while it is written.
    onResultProcess({ request, result, setResult, serverContext }) {
      const node = serverContext as NodeServerContext;
      const caller = callerBudget(request);
      if (Array.isArray(result)) setResult(result.map((r) => admit(bound(r), node, caller)));
      else if (!isAsyncIterable(result)) setResult(admit(bound(result as ExecutionResult), node, caller));
    },
  };
}

/**
 * `parts` as they come until `last` gives the part that ends them (sent with its own `hasNext`),
 * after which the executor's iterator is returned (its later parts are dropped). Returning this
 * iterator returns the executor's at once, even while a part is awaited (a client that left).
 */
function endingAt(
  parts: AsyncIterable<ExecutionResult>,
  last: (part: ExecutionResult) => ExecutionResult | undefined,
): AsyncIterableIterator<ExecutionResult> {
  const source = parts[Symbol.asyncIterator]();
  let ended = false;
  const done = (): IteratorResult<ExecutionResult> => ({ done: true, value: undefined });
  const end = async (): Promise<IteratorResult<ExecutionResult>> => {
    if (!ended) {
      ended = true;
      await source.return?.();
    }
    return done();
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (ended) return done();
      const step = await source.next();
      if (step.done || ended) return step.done ? step : done();
      const final = last(step.value);
      if (final === undefined) return step;
      // Not awaited (the final part goes out now); the executor's iterator failing to return has
      // no one to tell, and unhandled it would end the process.
      end().catch(() => {});
      return { done: false, value: final };
    },
    return: end,
    async throw(error: unknown) {
      ended = true;
      if (source.throw) return source.throw(error);
      throw error;
    },
  };
}
