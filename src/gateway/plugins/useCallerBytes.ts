/**
 * The REST client's byte budget per caller (src/rest/byteBudget.ts) for the large results the
 * gateway serves without a REST call: a kept introspection answer (414 KB for the full query) or a
 * response-cache hit counts against its caller as a large REST answer does, and an operation of a
 * caller in debt waits for its share before it runs (holding nothing but its request), or is
 * refused with RATE_LIMITED when it would wait MAX_WAIT_MS or more (or its REST calls' deadline),
 * or when the caller has MAX_WAITING_OPERATIONS waiting already. One token looping on the full
 * introspection query was served from the kept answer 1,000 times in 5 s (414 MB written), the
 * gateway and its client filling both cores, though each answer cost the gateway only 1.4 ms: the
 * bound is on bytes over time, whatever each one costs.
 *
 * Placed after the response-bytes bound (useRequestBounds), whose measure of each result it reuses.
 * Results that ran count nothing here: their large parts came from the REST API, whose answers the
 * REST client counts; except those that select `_service`, whose SDL (some 135 KB, printed once)
 * comes from memory as a kept introspection answer does: 20 aliases of it, 2.8 MB a result, were
 * served 53 MB a second to one token, uncounted. Event streams (graphql-sse) skip the wait: their
 * events are bounded per event.
 */
import { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { ByteBudgets, Clock } from '../../rest/index.js';
import { rootFieldNames } from '../../schema/lib/rootFields.js';
import { callerBudget } from '../lib/callerHash.js';
import { operationVerdict } from '../lib/operationVerdict.js';
import { leaveSignalOf } from '../lib/plainPost.js';
import { servedFromCache } from '../lib/servedFromCache.js';
import { measuredSize } from './useMaxResponseBytes.js';

/** The longest an operation waits for its caller's share before it is refused (or its REST calls' deadline, if shorter). */
const MAX_WAIT_MS = 10_000;
/**
 * Operations of one caller waiting at once (with its REST calls waiting): each holds its request,
 * parsed body included (up to `--max-body-bytes`), so a caller in debt may not park hundreds.
 */
const MAX_WAITING_OPERATIONS = 8;

const refusal = (waitMs: number) =>
  new GraphQLError('This caller was served more large results lately than its share (callerBytesPerSecond), retry later', {
    extensions: { code: 'RATE_LIMITED', retryAfter: Math.max(1, Math.ceil(waitMs / 1000)), http: { status: 429 } },
  });

const selectsService = operationVerdict((operation, fragments) => rootFieldNames(operation, fragments).has('_service'));

/** `callDeadlineMs`: the REST client's deadline for a call (a REST call waiting for its share is refused past it too). */
export function useCallerBytes(bytes: ByteBudgets, clock: Clock, callDeadlineMs = 30_000): Plugin {
  const maxWaitMs = Math.min(MAX_WAIT_MS, callDeadlineMs);
  /** Requests whose operation selects `_service`. */
  const printsSdl = new WeakSet<Request>();
  /**
   * Counts a result served without a REST call against its caller, when it is large: its size as
   * the response-bytes bound measured it (this plugin comes after it, so it is not walked again).
   */
  const charge = (result: unknown, request: Request) => {
    if (!servedFromCache(result) && !printsSdl.has(request)) return;
    const size = measuredSize(result) ?? 0;
    if (size >= bytes.large) bytes.charge(callerBudget(request), size);
  };
  return {
    onParams({ request }) {
      if (!bytes.enabled) return;
      const budget = callerBudget(request);
      const wait = bytes.waitMs(budget);
      if (wait <= 0) return;
      // A client that left, or leaves, stops its wait (and its operation, which nobody would read):
      // counted waiting until its wait was over, eight that left had the caller's next operation refused.
      const left = leaveSignalOf(request);
      if (wait >= maxWaitMs || left.aborted || !bytes.enter(budget, MAX_WAITING_OPERATIONS)) throw refusal(wait);
      return new Promise<void>((resolve, reject) => {
        const timer = clock.setTimeout(resolve, wait);
        left.addEventListener(
          'abort',
          () => {
            clock.clearTimeout(timer);
            reject(refusal(wait));
          },
          { once: true },
        );
      }).finally(() => bytes.leave(budget));
    },
    onExecute({ args }) {
      const { request } = args.contextValue as { request?: Request };
      if (bytes.enabled && request && selectsService(args.document, args.operationName)) printsSdl.add(request);
    },
    onResultProcess({ result, request }) {
      if (!bytes.enabled || isAsyncIterable(result)) return;
      for (const one of Array.isArray(result) ? result : [result]) charge(one, request);
    },
  };
}
