/**
 * The response cache's stores (the Cache interface of @envelop/response-cache), each with access
 * generations: values that are part of result keys and that writes changing who may read what
 * replace (`bump`), so every result cached before such a write is out of reach at once, on every
 * replica, whatever types it holds. There are three kinds (useResponseCache.ts says which a key
 * takes and which write renews which):
 *
 * - the global generation, part of every key, renewed by a write whose effect on access is not
 *   limited to one user;
 * - a user's generation (by a hash of the user's id), part of the keys of that user's sessions once
 *   the gateway knows whose they are, renewed by a write that changes that user's access only;
 * - the unknown-user generation, part of the keys of sessions whose user is not known yet,
 *   renewed by every user's write (a session of any user may be among them).
 *
 * The Redis store is our own rather than @envelop/response-cache-redis: that one keeps the lookup
 * sets (type or object → results) as plain sets renewed by every new result and never pruned, and
 * invalidates with `SMEMBERS` + one `DEL` of everything (and `KEYS` for a type): a busy type's set
 * grows without bound and one ordinary write can exhaust the gateway's heap. Here:
 *
 * - a lookup set is a sorted set scored by each result's expiry time: adding to it first drops the
 *   results that have expired, and the set itself expires with its last result;
 * - invalidation pops a bounded batch at a time (`ZPOPMIN` + `UNLINK` in one script), so neither
 *   a command nor a reply ever holds more than `batch` results, and renews the global generation
 *   instead of draining a set of more than `DRAIN_ROUNDS` batches, so no write costs more steps;
 * - keys hold hashes only: `dg:rc:r:<hash>` results, `dg:rc:ts:<Type>` and `dg:rc:es:<hash>` lookup
 *   sets (named apart from the plain sets earlier versions kept under `dg:rc:t:` / `dg:rc:e:`, so
 *   a rolling deploy mixes no types), `dg:rc:g` the global generation, `dg:rc:g:n` the unknown-user
 *   one, `dg:rc:g:u:<hash of the user id>` a user's;
 * - a request reads the generations it needs with one `MGET`. Each is a random value that lives a
 *   day from its last renewal; a missing one (never made, expired, or deleted by a renewal that
 *   Redis, out of memory, could not write) is created with a fresh random value (`SET NX`, one
 *   more round trip, once a day per key), so a generation that expired and was made again never
 *   takes a value it had before and no result of before comes back.
 *   The same `MGET` reads the result keys of the generations this replica last saw (`seen`): when
 *   they are still the generations, the lookup's result came with them, in one round trip.
 *
 * A result is stored only if no object or type it holds was invalidated since its request looked
 * the cache up: each store counts invalidations (`invalidations`, read with the generations) and
 * marks each object and type invalidated with the count, so a read whose REST answer predates a
 * write, and that is stored after the write's invalidation (on any replica), is not kept. Without
 * that, the write's invalidation came before the result it should have forgotten, which was then
 * served until its TTL: the writer's own next read, on any replica, included.
 * In Redis the count is `dg:rc:n` and the marks `dg:rc:m:<lookup set's name>`, living
 * `INVALIDATION_MARK_MS`: a request whose lookup is older than that stores nothing.
 * A write that got no answer (a timeout, a reset) may still be made after its invalidation:
 * `unsettle` keeps what it names (or, with `EVERY_RESULT`, everything) from being stored for as
 * long, whatever the lookup's count (a mark `unsettled`, which an invalidation does not replace).
 *
 * Any Redis failure, or Redis down (or skipped by the handle's breaker), is a miss; so is a value
 * that is not a result as the gateway stores one (`storedResult`), and every lookup on a Redis
 * that refuses writes (a replica, a primary short of its replicas, `MISCONF`: a `PEXPIRE` of a key
 * that never exists, in the lookup's round trip), where no invalidation lands.
 * A renewal or an invalidation that could not be made (Redis down, frozen, or skipped) is made up for by a renewal
 * of the global generation: before this replica reads anything from Redis again, and as soon as
 * Redis answers again (tried every second while one is owed), so another replica, which may never
 * have seen the outage, does not serve what Redis kept from before the write for long. (A frozen
 * or partitioned Redis keeps its results; without this, they came back with it until their TTL.)
 * So is every new connection after a lost one: Redis may have lost acknowledged writes with it.
 * So is an invalidation after Redis evicted keys (`dg:rc:ev`, EVICTIONS_SCRIPT): a lookup set may be gone.
 */
import { createHash, randomBytes } from 'node:crypto';
import { getHeapStatistics } from 'node:v8';
import type { CacheEntityRecord } from '@envelop/response-cache';
import { createInMemoryCache, type Cache } from '@graphql-yoga/plugin-response-cache';
import type { ExecutionResult } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../log.js';
import type { RedisHandle } from '../redis.js';
import { jsonSize } from './jsonSize.js';

/** The generations a key is made of (see above): `user` and `unknown` only when asked for. */
export interface Generations {
  global: string;
  unknown?: string;
  user?: string;
}

/** What `generations` answers: also the invalidations counted so far, which a result's `set` names. */
export type GenerationsRead = Generations & { invalidations: number; prefetched?: Prefetched };

/** Whose generations: a user (a hash of its id), `unknown` (a session whose user is not known yet), or none but the global one. */
export type GenerationScope = { user: string } | 'unknown' | 'global';

/**
 * A lookup's result read in the same round trip as its generations (Redis): `value` is what the
 * first of the keys held (undefined: none held a result), read at the same instant as the
 * generations that made those keys.
 */
export interface Prefetched {
  value: ExecutionResult | undefined;
}

export interface GenerationalCache extends Cache {
  /**
   * The current generations of a scope: the global one, and for a user, its own and the
   * unknown-user one; for `unknown`, the unknown-user one. Undefined while the store cannot be used.
   * With `keysOf` (the result keys a lookup reads, primary first, for given generations), a store
   * that can also reads those keys for the generations it last saw in the same round trip, and
   * answers what they held as `prefetched` when the generations are still those.
   */
  generations(scope: GenerationScope, keysOf?: (generations: Generations) => string[]): Promise<GenerationsRead | undefined>;
  /**
   * Stores a result unless an object or type of `entities` was invalidated after `invalidations`
   * were counted (its request's lookup): see above.
   */
  set(id: string, data: ExecutionResult, entities: Iterable<CacheEntityRecord>, ttl: number, invalidations?: number): Promise<void> | void;
  /**
   * New generations: without users, the global one (every result cached so far is stale); with
   * users (hashes of their ids), theirs and the unknown-user one.
   */
  bump(users?: readonly string[]): Promise<void>;
  /** The first of `keys` that holds a result (the primary key first). */
  getFirst(keys: readonly string[]): Promise<ExecutionResult | undefined>;
  /**
   * A write that may still be made (no answer to it): no result holding any of `entities`
   * (`EVERY_RESULT`: no result at all) is stored for `INVALIDATION_MARK_MS`.
   */
  unsettle(entities: readonly CacheEntityRecord[]): Promise<void>;
}

/** For `unsettle`: every result, whatever it holds. */
export const EVERY_RESULT: CacheEntityRecord = { typename: '*' };

export const CACHE_PREFIX = 'dg:rc:';
const GENERATION_KEY = `${CACHE_PREFIX}g`;
const UNKNOWN_USER_KEY = `${CACHE_PREFIX}g:n`;
const INVALIDATIONS_KEY = `${CACHE_PREFIX}n`;
/** Redis's count of evicted keys when an invalidation last looked (see `EVICTIONS_SCRIPT`). */
const EVICTIONS_KEY = `${CACHE_PREFIX}ev`;
/** Never written: a lookup's write to it tells whether Redis takes writes (see `generations`). */
const WRITABLE_KEY = `${CACHE_PREFIX}w`;
const markKey = (lookupKey: string) => `${CACHE_PREFIX}m:${lookupKey.slice(CACHE_PREFIX.length)}`;
const userKey = (user: string) => `${CACHE_PREFIX}g:u:${user}`;
/** Users whose generation the in-process store keeps (the least recently renewed first out). */
const MEMORY_USERS = 10_000;
/** A generation is renewed at least daily (an expired one is replaced by a fresh random one). */
const GENERATION_TTL_MS = 86_400_000;
/** Results per step of an invalidation: the bound of one command and one reply. */
export const INVALIDATION_BATCH = 100;
/** Steps of one lookup set's invalidation before it renews the global generation instead (see `drain`). */
export const DRAIN_ROUNDS = 100;
/** How often a renewal owed since an outage is tried (see above). */
const BUMP_RETRY_MS = 1000;
/** Generations remembered to read results with them in one round trip (a user's each: the least recently read first out). */
const SEEN_GENERATIONS = 10_000;
/** Replicas' clocks may differ by this much: a lookup entry is dropped only this long after its result expired. */
const CLOCK_SKEW_MS = 5000;
/** How long an invalidation's marks live: a request whose lookup is older stores no result. */
export const INVALIDATION_MARK_MS = 60_000;
/** Objects and types whose last invalidation the in-process store remembers. */
const MEMORY_MARKS = 10_000;

/** A short, opaque digest for cache keys and validators (never a token or raw id in Redis). */
export const sha = (s: string) => createHash('sha256').update(s).digest('base64url');

/**
 * The largest result the process-memory store keeps, by default: its `max` results hold at most an
 * eighth of V8's heap limit (about 19 KiB each under `npm start`). Without it, 1,000 results of up
 * to `--max-response-bytes` (4 MiB) each could be kept: a caller could fill the heap with
 * distinct queries of large results, within every other bound.
 */
export function defaultEntryBytes(max: number): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 8 / max);
}

/**
 * Process memory: an LRU of `max` results of at most `entryBytes` each (as JSON; a larger one is
 * not kept, so its query runs again); the generations are numbers of one sequence, each
 * renewal the next, so no generation ever takes a value it had before. Users' generations are kept
 * for the last `MEMORY_USERS` users renewed; a user without one has the value the sequence had
 * when one was last dropped (0 before any), so dropping one never brings back its earlier value.
 */
export function memoryCache(max: number, entryBytes = defaultEntryBytes(max)): GenerationalCache {
  const inner = createInMemoryCache({ max });
  let sequence = 0;
  let global = 0;
  let unknown = 0;
  let dropped = 0;
  const users = new Map<string, number>();
  const userGeneration = (user: string) => String(users.get(user) ?? dropped);
  // The last invalidation of each object (`Type:id`) and type; one forgotten counts as the latest forgotten.
  let invalidations = 0;
  let forgotten = 0;
  const marks = new LRUCache<string, number>({
    max: MEMORY_MARKS,
    disposeAfter: (count, _key, reason) => void (reason === 'evict' && (forgotten = Math.max(forgotten, count))),
  });
  const markOf = ({ typename, id }: CacheEntityRecord) => (id == null ? typename : `${typename}:${id}`);
  const lastInvalidated = (e: CacheEntityRecord) =>
    Math.max(marks.get(e.typename) ?? forgotten, e.id == null ? 0 : (marks.get(markOf(e)) ?? forgotten));
  const unsettled = new LRUCache<string, true>({ max: MEMORY_MARKS, ttl: INVALIDATION_MARK_MS });
  const isUnsettled = (e: CacheEntityRecord) => unsettled.has(e.typename) || (e.id != null && unsettled.has(markOf(e)));
  return {
    get: (key) => inner.get(key),
    set(key, result, entities, ttl, since) {
      if (jsonSize(result, entryBytes) > entryBytes) return;
      const held = [...entities]; // an iterator, read once
      if (since !== undefined && held.some((e) => lastInvalidated(e) > since)) return;
      if (unsettled.has(EVERY_RESULT.typename) || held.some(isUnsettled)) return;
      return inner.set(key, result, held, ttl);
    },
    invalidate(entities) {
      const invalidated = [...entities];
      invalidations++;
      for (const e of invalidated) marks.set(markOf(e), invalidations);
      return inner.invalidate(invalidated);
    },
    async unsettle(entities) {
      for (const e of entities) unsettled.set(markOf(e), true);
    },
    async getFirst(keys) {
      for (const key of keys) {
        const result = await inner.get(key);
        if (result) return result;
      }
      return undefined;
    },
    async generations(scope) {
      if (scope === 'global') return { global: String(global), invalidations };
      if (scope === 'unknown') return { global: String(global), unknown: String(unknown), invalidations };
      return { global: String(global), unknown: String(unknown), user: userGeneration(scope.user), invalidations };
    },
    async bump(renewed) {
      if (!renewed) {
        global = ++sequence;
        return;
      }
      unknown = ++sequence;
      for (const user of renewed) {
        users.delete(user);
        if (users.size >= MEMORY_USERS) {
          users.delete(users.keys().next().value!);
          dropped = ++sequence;
        }
        users.set(user, ++sequence);
      }
    },
  };
}

// A lookup set's key holding another type (another program's value) indexes none of our results:
// it is dropped. Else every store of a result of its type failed, and every write of it owed a
// renewal, for as long as the value was there (it need not expire).
const NOT_A_LOOKUP_SET = (key: string) => `
local kind = redis.call('TYPE', ${key}).ok
if kind ~= 'zset' and kind ~= 'none' then redis.call('UNLINK', ${key}) end`;

// KEYS[1]: the result; KEYS[2..n+1]: its lookup sets, KEYS[n+2..]: their invalidation marks and
// EVERY_RESULT's. ARGV: JSON, ttl ms, expiry score, prune-before score, n, the invalidations counted
// at the lookup. Nothing is stored when a mark is newer than that count (or is not a count:
// `unsettled`, another program's value). Another program's value (neither, or of another type) is
// dropped as well: else it kept every result holding its type (or, at EVERY_RESULT's mark, every
// result) from being stored for as long as it was there (it need not expire). An `unsettled` mark with more
// than INVALIDATION_MARK_MS to live ends at that from now: Redis keeps an expiry as a time of its wall
// clock, and with that clock stepped back an hour, a write with no answer kept every result from
// being stored, on every replica, for 61 minutes. The result is stored last: a failure on the way leaves it
// unstored rather than unindexed. An entry past the prune-before score goes only if its result is
// gone: scores are replicas' wall clocks, and a replica stepped 2 hours forward dropped every live
// result of a lookup set, which a write then left in place (served, stale, for the rest of its
// ttl); a live one is scored again by its time left in Redis.
const SET_SCRIPT = `
local n = tonumber(ARGV[5])
local refused = false
for i = n + 2, #KEYS do
  local mark = redis.pcall('GET', KEYS[i])
  local count = type(mark) == 'string' and tonumber(mark)
  if mark and not count and mark ~= 'unsettled' then redis.call('UNLINK', KEYS[i]) end
  if mark == 'unsettled' and redis.call('PTTL', KEYS[i]) > ${INVALIDATION_MARK_MS} then redis.call('PEXPIRE', KEYS[i], ${INVALIDATION_MARK_MS}) end
  if mark and not (count and count <= tonumber(ARGV[6])) then refused = true end
end
if refused then return 0 end
local at = tonumber(ARGV[3]) - tonumber(ARGV[2])
for i = 2, n + 1 do${NOT_A_LOOKUP_SET('KEYS[i]')}
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[i], '-inf', ARGV[4])) do
    local left = redis.call('PTTL', old)
    if left < 0 then redis.call('ZREM', KEYS[i], old) else redis.call('ZADD', KEYS[i], at + left, old) end
  end
  redis.call('ZADD', KEYS[i], ARGV[3], KEYS[1])
  if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[2]) + ${CLOCK_SKEW_MS} then redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[2]) + ${CLOCK_SKEW_MS}) end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

// KEYS[1]: the invalidations count, KEYS[2..]: the marks of the lookup sets invalidated. ARGV: the
// marks' ttl ms, the count's. Counts one invalidation and marks each with the new count, but for an
// `unsettled` one (a count that is not one, or a mark of another type, another program's value, is
// replaced). A count Redis cannot increment is not one: another type, or a number that is no
// integer of 64 bits (\`1e3\`, \`12.5\`, 20 digits), which Lua's \`tonumber\` took for a count; every
// invalidation then failed, its results left to be forgotten by a global renewal made later.
const MARK_SCRIPT = `
local count = redis.pcall('INCR', KEYS[1])
if type(count) ~= 'number' then
  redis.call('DEL', KEYS[1])
  count = redis.call('INCR', KEYS[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
for i = 2, #KEYS do
  local kind = redis.call('TYPE', KEYS[i]).ok
  if kind ~= 'string' or redis.call('GET', KEYS[i]) ~= 'unsettled' then redis.call('SET', KEYS[i], count, 'PX', ARGV[1]) end
end
return count`;

/** A generation as `fresh()` makes one is 16 characters: a longer value (or none) is not one. */
const GENERATION_MAX_LENGTH = 64;
const isGeneration = (value: string | null | undefined): value is string => !!value && value.length <= GENERATION_MAX_LENGTH;

// KEYS: generations, ARGV[1]: their ttl ms, ARGV[1 + i]: a fresh random value for KEYS[i]. Creates
// the missing ones and answers every value. A key holding what is not a generation (another
// program's value: another type, an empty or long string) is renewed: else the cache stayed off
// for as long as it was there (a GET of another type fails), or every lookup read a value of
// megabytes.
const GENERATIONS_SCRIPT = `
local values = {}
for i = 1, #KEYS do
  local kind = redis.call('TYPE', KEYS[i]).ok
  local length = kind == 'string' and redis.call('STRLEN', KEYS[i]) or 0
  if kind == 'none' or (length > 0 and length <= ${GENERATION_MAX_LENGTH}) then
    redis.call('SET', KEYS[i], ARGV[i + 1], 'PX', ARGV[1], 'NX')
  else
    redis.call('SET', KEYS[i], ARGV[i + 1], 'PX', ARGV[1])
  end
  values[i] = redis.call('GET', KEYS[i])
end
return values`;

// KEYS: generations to renew; ARGV[1]: their ttl ms, ARGV[1 + i]: the new value of KEYS[i]. A
// generation that cannot be set is deleted instead, which renews it as well (the next lookup makes
// a fresh one, or misses while it cannot): a Redis full under \`noeviction\` refuses every SET
// with OOM but still deletes, and without this another replica served the results of before an
// access write until their TTL.
const RENEW_SCRIPT = `
for i = 1, #KEYS do
  local set = redis.pcall('SET', KEYS[i], ARGV[i + 1], 'PX', ARGV[1])
  if type(set) == 'table' and set.err then redis.call('DEL', KEYS[i]) end
end
return #KEYS`;

// KEYS[1]: the evictions count last seen, KEYS[2]: the global generation. ARGV: their ttl ms, a
// fresh generation. Redis short of memory evicts keys of its choice (maxmemory, any policy but
// `noeviction`): a lookup set among them, its results stayed while an invalidation found nothing
// to forget (under an LRU policy the first to go, stored once while its results are read on every
// hit): a renamed space's old title was served on every replica until its TTL. So an invalidation
// that finds Redis has evicted keys since the last one looked renews every result, after its
// drains. A Redis that does not tell (INFO refused) is trusted as before.
const EVICTIONS_SCRIPT = `
local info = redis.pcall('INFO', 'stats')
local evicted = type(info) == 'string' and string.match(info, 'evicted_keys:(%d+)')
if not evicted then return 0 end
local seen = redis.pcall('GET', KEYS[1])
redis.call('SET', KEYS[1], evicted, 'PX', ARGV[1])
if evicted == '0' or seen == evicted then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[1])
return 1`;

// KEYS[1]: a lookup set. Pops ARGV[1] results and deletes them; answers how many.
const POP_SCRIPT = `${NOT_A_LOOKUP_SET('KEYS[1]')}
local popped = redis.call('ZPOPMIN', KEYS[1], ARGV[1])
local keys = {}
for i = 1, #popped, 2 do keys[#keys + 1] = popped[i] end
if #keys > 0 then redis.call('UNLINK', unpack(keys)) end
return #keys`;

export interface RedisCacheOptions {
  log: Logger;
  /** Wall clock in ms, for the expiry scores (the Redis handle's clock). */
  now: () => number;
}

export function redisCache(redis: RedisHandle, options: RedisCacheOptions): GenerationalCache {
  const { client } = redis;
  const { log, now } = options;
  const lookupKey = ({ typename, id }: CacheEntityRecord) =>
    id == null ? `${CACHE_PREFIX}ts:${typename}` : `${CACHE_PREFIX}es:${sha(`${typename}:${id}`)}`;
  const failed = (what: string) => (error: Error) => {
    log.debug(`response cache: redis ${what} failed, bypassed`, { error: error.name });
    return undefined;
  };
  const up = () => redis.isRedisReady();
  // Invalidations are not skipped while Redis merely answers late (reads and stores are: `ask`).
  const upEvenIfSlow = () => redis.isRedisReady({ evenIfSlow: true });
  // A bump or an invalidation that could not be made is made up for by a global renewal (see above).
  let bumpPending = false;
  let retry: ReturnType<typeof setInterval> | undefined;
  const owed = (error?: Error) => {
    if (!bumpPending)
      log.warn('response cache: a renewal or invalidation could not reach Redis; every result is renewed once it answers', {
        error: error?.name ?? 'Redis skipped',
      });
    owe();
  };
  const owe = () => {
    bumpPending = true;
    retry ??= setInterval(() => {
      // Also what starts the handle's probe once its cool-down is over.
      if (!bumpPending) return stopRetry();
      if (redis.isRedisReady({ evenIfSlow: true })) void newGeneration().then(stopRetry, () => undefined);
    }, BUMP_RETRY_MS);
    retry.unref?.();
  };
  const stopRetry = () => {
    bumpPending = false;
    clearInterval(retry);
    retry = undefined;
  };
  // A new connection after a lost one may reach a Redis that lost writes it had acknowledged: one
  // restarted from its last snapshot, or a replica promoted before it had them. A renewal lost so
  // brought back the results of before it, a removed member's included, on every replica, until
  // their TTL. Every result is renewed before this replica reads again (the first connection of
  // the process is not one: a replica starting is no loss of Redis's).
  let connected = client.status === 'ready';
  client.on('ready', () => {
    if (connected) owe();
    connected = true;
  });
  const fresh = () => randomBytes(12).toString('base64url');
  /**
   * The generations last read, by key: a lookup reads its result keys for these in the same `MGET`
   * as the generations themselves. A value that changed since is a wrong guess, found out by that
   * `MGET` (it reads all its keys at one instant), and costs the lookup a second round trip.
   */
  const seen = new LRUCache<string, string>({ max: SEEN_GENERATIONS });
  const remember = (keys: readonly string[], values: readonly string[]) => keys.forEach((key, i) => seen.set(key, values[i]));
  const parsed = (texts: ReadonlyArray<string | null>): ExecutionResult | undefined => {
    for (const text of texts) {
      if (!text) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        continue; // not a result: the next key
      }
      const result = storedResult(value);
      if (result) return result;
    }
    return undefined;
  };
  // A plain SET (no script: what a Redis refusing scripts still runs), else a delete (RENEW_SCRIPT).
  const newGeneration = () => client.set(GENERATION_KEY, fresh(), 'PX', GENERATION_TTL_MS).catch(() => client.del(GENERATION_KEY));

  /**
   * Empties one lookup set and the results it names, a batch at a time. A set of more than
   * `DRAIN_ROUNDS` batches is not drained to its end: the global generation is renewed (every
   * result out of reach at once) and the set dropped, its results left to expire. A set holds the
   * live results of its type, as many as callers had stored within a TTL (a caller stored 750
   * distinct ones a second on one replica): drained whole, 200,000 of them held a write's response
   * 780 ms, and Redis, one batch after another.
   */
  async function drain(key: string) {
    for (let round = 0; round < DRAIN_ROUNDS; round++) {
      const popped = (await client.eval(POP_SCRIPT, 1, key, INVALIDATION_BATCH)) as number;
      if (popped < INVALIDATION_BATCH) return;
      if (!upEvenIfSlow()) return owed();
    }
    await newGeneration();
    await client.unlink(key);
  }

  return {
    async generations(scope, keysOf) {
      if (!up()) return undefined;
      const keys = [GENERATION_KEY];
      if (scope !== 'global') keys.push(UNKNOWN_USER_KEY);
      if (typeof scope === 'object') keys.push(userKey(scope.user));
      const named = ([global, unknown, user]: readonly string[]): Generations => ({ global, unknown, user });
      try {
        return await redis.ask(async () => {
          if (bumpPending) {
            await newGeneration();
            stopRetry();
          }
          const guess = keys.map((key) => seen.get(key));
          const results = keysOf && guess.every((v) => v !== undefined) ? keysOf(named(guess as string[])) : [];
          // With a write in the same round trip that Redis refuses while it refuses writes (a replica:
          // a primary a failover demoted, still reached; a primary short of `min-replicas-to-write`;
          // `MISCONF` after a failed snapshot): no invalidation or renewal lands on such a Redis, so
          // what it holds may be what a write on another replica made stale: nothing is read from it
          // (a miss). Another replica went on serving a removed member's results from one until
          // their TTL. Its key never exists: the write changes nothing, and is neither replicated
          // nor logged.
          const lookup = client.pipeline().mget(...keys, ...results, INVALIDATIONS_KEY);
          const [[error, mget] = [], [refused] = []] = (await lookup.pexpire(WRITABLE_KEY, 1).exec()) ?? [];
          if (error) throw error;
          if (refused) return undefined;
          const read = mget as Array<string | null>;
          const counted = read.pop();
          // None yet (or expired with every mark): 0. Not a count: -1, older than every mark.
          const invalidations = counted == null ? 0 : /^\d{1,15}$/.test(counted) ? Number(counted) : -1;
          let values = read.slice(0, keys.length);
          if (!values.every(isGeneration))
            values = (await client.eval(GENERATIONS_SCRIPT, keys.length, ...keys, GENERATION_TTL_MS, ...keys.map(fresh))) as Array<
              string | null
            >;
          if (!values.every(isGeneration)) return undefined;
          remember(keys, values as string[]);
          const generations = { ...named(values as string[]), invalidations };
          // The results were read under the generations guessed: theirs only if those are still current.
          if (!results.length || values.some((v, i) => v !== guess[i])) return generations;
          return { ...generations, prefetched: { value: parsed(read.slice(keys.length)) } };
        });
      } catch (error) {
        return failed('generations')(error as Error);
      }
    },
    async bump(users) {
      try {
        if (!users) await newGeneration();
        else {
          const keys = [UNKNOWN_USER_KEY, ...[...new Set(users)].map(userKey)];
          await client.eval(RENEW_SCRIPT, keys.length, ...keys, GENERATION_TTL_MS, ...keys.map(fresh));
        }
        if (!users) stopRetry();
      } catch (error) {
        // This replica reads no result from Redis before a renewal is made: a user's too, as the global one.
        owed(error as Error);
      }
    },
    async getFirst(keys) {
      if (!up()) return undefined;
      const texts = await redis.ask(() => client.mget(...keys)).catch(failed('get'));
      return parsed(texts ?? []);
    },
    async get(key) {
      if (!up()) return undefined;
      const text = await redis.ask(() => client.get(key)).catch(failed('get'));
      return parsed([text ?? null]);
    },
    async set(key, result, entities, ttl, since = -1) {
      if (!up() || !(ttl > 0) || !Number.isFinite(ttl)) return;
      const lookups = [
        ...new Set([...entities].flatMap((e) => (e.id == null ? [lookupKey(e)] : [lookupKey(e), lookupKey({ typename: e.typename })]))),
      ];
      const at = now();
      const args = [JSON.stringify(result), ttl, at + ttl, at - CLOCK_SKEW_MS, lookups.length, since];
      const marks = [...lookups, lookupKey(EVERY_RESULT)].map(markKey);
      await redis
        .ask(() => client.eval(SET_SCRIPT, 1 + lookups.length + marks.length, key, ...lookups, ...marks, ...args))
        .catch(failed('set'));
    },
    async unsettle(entities) {
      const marks = [...new Set(entities.map((e) => markKey(lookupKey(e))))];
      if (!marks.length) return;
      if (!upEvenIfSlow()) return owed();
      const pipeline = client.multi();
      for (const mark of marks) pipeline.set(mark, 'unsettled', 'PX', INVALIDATION_MARK_MS);
      // Not made: the global renewal owed is made before this replica reads again, and on Redis's return.
      await pipeline.exec().catch(owed);
    },
    async invalidate(entities) {
      const keys = new Set([...entities].map(lookupKey));
      if (!keys.size) return;
      if (!upEvenIfSlow()) return owed();
      // Marked before the results are forgotten: a result stored after the marks is refused, one
      // stored before them is in a lookup set when it is emptied.
      const marked = await client
        .eval(MARK_SCRIPT, 1 + keys.size, INVALIDATIONS_KEY, ...[...keys].map(markKey), INVALIDATION_MARK_MS, GENERATION_TTL_MS)
        .then(
          () => true,
          (error: Error) => (owed(error), false),
        );
      if (!marked) return;
      for (const key of keys) {
        if (!upEvenIfSlow()) return owed();
        await drain(key).catch(owed);
      }
      await client.eval(EVICTIONS_SCRIPT, 2, EVICTIONS_KEY, GENERATION_KEY, GENERATION_TTL_MS, fresh()).catch(owed);
    },
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** The validators the response-cache plugin adds to a result it stores (its key, the time it was stored). */
const STORED_HEADERS: ReadonlyArray<[name: string, shape: RegExp]> = [
  ['ETag', /^dg:rc:r:[\w-]+$/],
  ['Last-Modified', /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/],
];

/**
 * A result as the gateway stores one (its data, with no errors, and the plugin's validators), rebuilt
 * from a value read from Redis; undefined (a miss) for any other value: another program's, or one
 * of another shape. Redis's values reach no caller as they are: the plugin answers a stored
 * result's `extensions.http` as the response's status and headers (a value holding a status 302,
 * `Location` and `Set-Cookie` was answered so), and a JSON number or string as a result.
 */
function storedResult(value: unknown): ExecutionResult | undefined {
  if (!isRecord(value) || !isRecord(value.data) || value.errors !== undefined) return undefined;
  const stored = isRecord(value.extensions) && isRecord(value.extensions.http) ? value.extensions.http.headers : undefined;
  const headers: Record<string, string> = {};
  for (const [name, shape] of STORED_HEADERS) {
    const header = isRecord(stored) ? stored[name] : undefined;
    if (typeof header === 'string' && shape.test(header)) headers[name] = header;
  }
  return { data: value.data, ...(Object.keys(headers).length ? { extensions: { http: { headers } } } : {}) };
}
