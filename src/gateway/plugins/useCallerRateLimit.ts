/**
 * Per-caller rate limit: at most `limit` operations per window (a minute) per token (a hash of
 * it), and at most `anonymousLimit` per client address for work without an accepted token: no
 * token, a token the REST API rejected, and (besides its own count) a token it has not accepted
 * yet, so fresh junk tokens share their address's budget (src/rest/callerKey.ts). Counted in
 * Redis across replicas (an atomic INCR + PEXPIRE fixed window) or in process. Over the limit the operation gets RATE_LIMITED with `extensions.retryAfter`
 * (seconds) and HTTP 429 with `Retry-After`, before parsing, the cache or any REST call.
 *
 * Not @envelop/rate-limiter: it limits fields marked by a `@rateLimit` directive (per field and
 * resolver call), while this limit is per operation and caller whatever the fields, and must
 * answer before the response cache (a cached answer counts too) and before any resolver runs.
 *
 * While Redis is down, `failMode` decides: `open` counts in this replica's memory alone (each
 * replica then allows the limit, the operations Redis counted in the window included: the replica
 * counts every operation it lets through: a bound still, where operations went through uncounted and a
 * Redis slow after a start let 300 anonymous operations of one address through; and a bound Redis
 * losing its counts does not lift), `closed`
 * refuses them with RATE_LIMITED (retry after a second). *
 * A caller found over its limit is refused at once, for the rest of its window, before its body
 * is read and parsed (10 anonymous loops of the introspection query were refused ~1,500 times in
 * 5 s, each after reading and parsing its body, 1.5–2.5 ms of the event loop): by the HTTP server
 * itself (`refuseOnArrival`, before Yoga builds a Request: about a tenth of the cost), else in
 * `onRequest`; the server's refusal is written after a second (REFUSAL_DELAY_MS), and ends the
 * connection of a body over 4 KiB unread (httpBounds.ts: else Node reads and drops it). Such a refusal
 * is not counted (the window is over already); a request under the limit is counted once, at its
 * parameters. The refusal is this replica's memory of its own count, bounded like
 * the local counter: a count only grows within its window, so it holds across replicas too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { GraphQLError } from 'graphql';
import { DEFAULTS, type Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { countInWindow, type RedisHandle } from '../redis.js';
import { systemClock, type CallerIdentity, type Clock } from '../../rest/index.js';
import { callerIdentity } from '../lib/callerHash.js';
import { errorBody, errorResponse } from '../lib/errorResponse.js';
import { closeWhenAnswered, largeBody } from '../lib/httpBounds.js';
import { requestPath } from '../lib/requestPath.js';

export type RateLimitFailMode = Config['callerRateLimitFailMode'];

export interface CallerRateLimitOptions {
  /** Operations per window and token (0: no limit). */
  limit: number;
  /** Operations per window and client address for callers without an accepted token (0: no limit). */
  anonymousLimit?: number;
  /** Window length in ms (default a minute). */
  windowMs?: number;
  /** Counts across replicas; in process without it. */
  redis?: RedisHandle;
  /** What to do while Redis is unavailable (default `open`). */
  failMode?: RateLimitFailMode;
  log: Logger;
  /** Times the refusals on arrival wait (default the process's; tests pass a fake one). */
  clock?: Clock;
  /** Most windows counted in process at once (default MAX_LOCAL_WINDOWS; tests pass a small one). */
  maxLocalWindows?: number;
}

interface Count {
  count: number;
  /** ms until the window ends. */
  resetMs: number;
}

const PER_ADDRESS = 'per client address without an accepted token';

/**
 * How long a refusal on arrival waits before it is written (at most the `Retry-After` it gives). A
 * client that ignores `Retry-After` and sends again as soon as it is answered (ten anonymous loops
 * of the introspection query were refused 20,000 times in 5 s, about 2 s of the event loop) gets
 * one refusal a second per connection instead; a client that honours it waits longer anyway. The
 * connections held meanwhile count against `--max-connections` like any other.
 */
const REFUSAL_DELAY_MS = 1_000;

/** Most callers known over their limit the process keeps (the oldest goes first). */
const MAX_LOCAL_CALLERS = 10_000;

/** Most windows the in-process counter holds (about 150 bytes each: 15 MB). */
export const MAX_LOCAL_WINDOWS = 100_000;

/** The rate limit's plugin, and its refusal of callers known over their limit as their requests arrive. */
export interface CallerRateLimit extends Plugin {
  /**
   * Answers 429 (the body and `Retry-After` the plugin's own refusal has) when the request is for
   * an operation and its caller is known over its limit; true when it did. For node:http's
   * request listener, before the request reaches Yoga; `identify` gives the caller's identity as
   * the caller-identity plugin would (lib/callerHash.ts).
   */
  refuseOnArrival(req: IncomingMessage, res: ServerResponse, identify: (req: IncomingMessage) => CallerIdentity): boolean;
}

export function useCallerRateLimit(options: CallerRateLimitOptions & { endpoint?: string }): CallerRateLimit {
  const windowMs = options.windowMs ?? 60_000;
  const failMode = options.failMode ?? DEFAULTS.callerRateLimitFailMode;
  const { redis, log } = options;
  const local = new Map<string, { count: number; endsAt: number }>();
  // Keys found over their limit, when their window ends (on `clock`), and the refusal's
  // message: not the error itself, which holds its stack (about 2 KB: 10,000 addresses over the
  // anonymous limit kept 22 MB, where the windows' 150 bytes each were counted).
  const over = new Map<string, { until: number; message: string }>();
  const endpoint = options.endpoint ?? '/graphql';
  // The windows and the refusals kept read this monotonic clock, not the wall clock: stepped
  // back 10 minutes (NTP, a resumed VM), it had a caller over its limit refused for 11
  // (Retry-After: 659), whatever Redis counted; stepped forward, it ended every window at once.
  const clock = options.clock ?? systemClock;

  const maxWindows = options.maxLocalWindows ?? MAX_LOCAL_WINDOWS;

  // Windows in the order they end (a new one goes last: all last `windowMs`), so the ended ones
  // are dropped from the front, a few at a time; past `maxWindows`, the one that ends first goes
  // too (its caller starts a new window). They were scanned whole for ended ones at every count
  // past 10,000: anonymous operations from 40,000 addresses behind a proxy within a minute took
  // 800 µs each instead of 100, and the windows grew with the request rate.
  const countLocally = (key: string): Count => {
    const now = clock.now();
    for (const [k, w] of local) {
      if (w.endsAt > now && local.size < maxWindows) break;
      local.delete(k);
    }
    let window = local.get(key);
    if (!window || window.endsAt <= now) {
      local.delete(key);
      local.set(key, (window = { count: 0, endsAt: now + windowMs }));
    }
    window.count++;
    return { count: window.count, resetMs: window.endsAt - now };
  };

  const countInRedis = async (key: string): Promise<Count | null> => {
    if (!redis!.isRedisReady()) return null;
    try {
      const [count, resetMs] = await countInWindow(redis!, `dg:rl:${key}`, windowMs);
      return { count, resetMs };
    } catch (error) {
      log.debug('rate limit: redis failed', { error: (error as Error).name, failMode });
      return null;
    }
  };

  /**
   * Counts one operation against `key`; the error when that was over `limit`. The replica's own
   * count counts every operation it let through, those Redis counted too: else, with Redis slow
   * for a moment (a request waits 10 ms for it, then counts in the replica), a caller had the limit
   * in Redis and again in each replica (a burst of 60 operations split over two replicas, limit
   * 20: 46 went through). So fail-open allows the limit per replica, counted or not in Redis.
   */
  const countAgainst = async (key: string, limit: number, what: string): Promise<GraphQLError | undefined> => {
    const inRedis = redis ? await countInRedis(key) : null;
    const inReplica = !redis || failMode === 'open' ? countLocally(key) : null;
    // Redis may lose counts (evicted under `maxmemory`: `volatile-ttl` takes these minute-long keys
    // first; flushed; restarted without persistence): the replica's own count, higher, is kept.
    // Else each loss gave the caller the limit again, and a count evicted before each operation no limit at all.
    const counted = inRedis && inReplica && inReplica.count > inRedis.count ? inReplica : (inRedis ?? inReplica);
    if (!counted) return rateLimited('Rate limit unavailable, retry later', 1);
    if (counted.count <= limit) return undefined;
    const error = rateLimited(
      `Rate limit exceeded: at most ${limit} operations per minute ${what}`,
      Math.max(1, Math.ceil(counted.resetMs / 1000)),
    );
    remember(key, counted.resetMs, error.message);
    return error;
  };

  const remember = (key: string, resetMs: number, message: string) => {
    const now = clock.now();
    if (over.size >= MAX_LOCAL_CALLERS) for (const [k, o] of over) if (o.until <= now) over.delete(k);
    if (over.size >= MAX_LOCAL_CALLERS) over.delete(over.keys().next().value!);
    over.set(key, { until: now + resetMs, message });
  };

  /** The refusal of a key known over its limit, with the seconds left of its window; undefined otherwise. */
  const knownOver = (key: string): Refusal | undefined => {
    const o = over.get(key);
    if (!o) return undefined;
    const left = o.until - clock.now();
    if (left <= 0) return void over.delete(key);
    return { message: o.message, extensions: { code: 'RATE_LIMITED', retryAfter: Math.max(1, Math.ceil(left / 1000)) } };
  };

  /** The refusal of a request for an operation whose caller (its budget, or its address) is known over its limit. */
  const refusalOf = (method: string, url: string, identity: () => CallerIdentity): Refusal | undefined => {
    if (!over.size || requestPath(url) !== endpoint || (method === 'GET' && !url.includes('?'))) return undefined;
    const { budget, address, proven } = identity();
    return knownOver(budget) ?? (budget !== address && !proven ? knownOver(address) : undefined);
  };

  /**
   * The error that refuses this request's operation, if any. A caller counts against its budget
   * (its token, or its client address); a token not proven yet counts against its address too.
   * Undefined at once when nothing is counted (a proven token without a per-token limit): an
   * async hook makes Envelop's whole hook chain wait a turn, on every request.
   */
  const check = (request: Request): Promise<GraphQLError | undefined> | undefined => {
    const { budget, address, proven } = callerIdentity(request);
    const anonymous = options.anonymousLimit ?? 0;
    const own = budget === address ? anonymous : options.limit;
    const alsoAddress = budget !== address && !proven && anonymous > 0;
    if (own <= 0 && !alsoAddress) return undefined;
    return (async () => {
      const refused = own > 0 ? await countAgainst(budget, own, budget === address ? PER_ADDRESS : 'per token') : undefined;
      return refused || !alsoAddress ? refused : countAgainst(address, anonymous, PER_ADDRESS);
    })();
  };

  /**
   * `refusalOf` for a request target as node:http gives it (a path, or a whole URL), read as Yoga
   * would read it. A target that does not parse as a URL (`//`, which node:http accepts) is not
   * refused here: Yoga answers it (a 404).
   */
  const refusalOnArrival = (method: string, target: string, identity: () => CallerIdentity): Refusal | undefined => {
    let href: string;
    try {
      href = new URL(target, 'http://localhost').href;
    } catch {
      return undefined;
    }
    return refusalOf(method, href, identity);
  };

  // Operations that skip Yoga's params step (graphql-sse's own endpoint) are checked at execution.
  const checked = new WeakSet<Request>();
  const checkAtExecution = (context: { request?: Request }, stop: (result: { data: null; errors: GraphQLError[] }) => void) => {
    if (!context.request || checked.has(context.request)) return undefined;
    return check(context.request)?.then((error) => {
      if (error) stop({ data: null, errors: [error] });
    });
  };

  return {
    refuseOnArrival(req, res, identify) {
      if (!over.size) return false;
      const refusal = refusalOnArrival(req.method ?? 'GET', req.url ?? '/', () => identify(req));
      if (!refusal) return false;
      const body = errorBody(refusal);
      // A large body is not read: the refusal ends the connection (httpBounds.ts).
      const close = largeBody(req);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(429, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          'retry-after': String(refusal.extensions.retryAfter),
          ...(close ? { connection: 'close' } : {}),
        });
        res.end(body);
        if (close) closeWhenAnswered(req, res);
      };
      const timer = clock.setTimeout(send, Math.min(REFUSAL_DELAY_MS, refusal.extensions.retryAfter * 1000));
      res.once('close', () => clock.clearTimeout(timer));
      return true;
    },
    // Only requests for an operation (those counted at their parameters, below), not GraphiQL or /health.
    onRequest({ request, endResponse, fetchAPI }) {
      const refusal = refusalOf(request.method, request.url, () => callerIdentity(request));
      if (!refusal) return;
      endResponse(errorResponse(fetchAPI.Response, 429, refusal, { 'Retry-After': String(refusal.extensions.retryAfter) }));
    },
    onParams({ request }) {
      checked.add(request);
      return check(request)?.then((error) => {
        if (error) throw error;
      });
    },
    onExecute: ({ args, setResultAndStopExecution }) =>
      checkAtExecution(args.contextValue as { request?: Request }, setResultAndStopExecution),
    onSubscribe: ({ args, setResultAndStopExecution }) =>
      checkAtExecution(args.contextValue as { request?: Request }, setResultAndStopExecution),
  };
}

/** A refusal of a caller known over its limit, as its JSON body says it. */
interface Refusal {
  message: string;
  extensions: { code: 'RATE_LIMITED'; retryAfter: number };
}

function rateLimited(message: string, retryAfter: number): GraphQLError {
  return createGraphQLError(message, {
    extensions: { code: 'RATE_LIMITED', retryAfter, http: { status: 429, headers: { 'Retry-After': String(retryAfter) } } },
  });
}
