/**
 * The response cache's stores (the Cache interface of @envelop/response-cache), each with an
 * access generation: a value that is part of every result key and that writes changing who may
 * read what replace (`bump`), so every result cached before such a write is out of reach at once,
 * on every replica, whatever types it holds.
 *
 * The Redis store is our own rather than @envelop/response-cache-redis: that one keeps the lookup
 * sets (type or object → results) as plain sets renewed by every new result and never pruned, and
 * invalidates with `SMEMBERS` + one `DEL` of everything (and `KEYS` for a type): a busy type's set
 * grows without bound and one ordinary write can exhaust the gateway's heap. Here:
 *
 * - a lookup set is a sorted set scored by each result's expiry time: adding to it first drops the
 *   results that have expired, and the set itself expires with its last result;
 * - invalidation pops a bounded batch at a time (`ZPOPMIN` + `UNLINK` in one script), so neither
 *   a command nor a reply ever holds more than `batch` results;
 * - keys hold hashes only: `dg:rc:r:<hash>` results, `dg:rc:ts:<Type>` and `dg:rc:es:<hash>` lookup
 *   sets (named apart from the plain sets earlier versions kept under `dg:rc:t:` / `dg:rc:e:`, so
 *   a rolling deploy mixes no types), `dg:rc:g` the generation (random, so an expired one is never
 *   reused).
 *
 * Any Redis failure, or Redis down (or skipped by the handle's breaker), is a miss.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { CacheEntityRecord } from '@envelop/response-cache';
import { createInMemoryCache, type Cache } from '@graphql-yoga/plugin-response-cache';
import type { ExecutionResult } from 'graphql';
import type { Logger } from '../../log.js';
import type { RedisHandle } from '../redis.js';

export interface GenerationalCache extends Cache {
  /** The current access generation (part of every key); undefined while the store cannot be used. */
  generation(): Promise<string | undefined>;
  /** A new generation: every result cached so far is stale. */
  bump(): Promise<void>;
}

export const CACHE_PREFIX = 'dg:rc:';
const GENERATION_KEY = `${CACHE_PREFIX}g`;
/** A generation is renewed at least daily (an expired one is replaced by a fresh random one). */
const GENERATION_TTL_MS = 86_400_000;
/** Results per step of an invalidation: the bound of one command and one reply. */
export const INVALIDATION_BATCH = 100;
/** Replicas' clocks may differ by this much: a lookup entry is dropped only this long after its result expired. */
const CLOCK_SKEW_MS = 5000;

/** A short, opaque digest for cache keys and validators (never a token or raw id in Redis). */
export const sha = (s: string) => createHash('sha256').update(s).digest('base64url');

/** Process memory: an LRU of `max` results, the generation a counter. */
export function memoryCache(max: number): GenerationalCache {
  const inner = createInMemoryCache({ max });
  let generation = 0;
  return {
    get: (key) => inner.get(key),
    set: (...args) => inner.set(...args),
    invalidate: (entities) => inner.invalidate(entities),
    generation: async () => String(generation),
    async bump() {
      generation += 1;
    },
  };
}

// KEYS[1]: the result; KEYS[2..]: its lookup sets. ARGV: JSON, ttl ms, expiry score, prune-before score.
// The result is stored last: a failure on the way leaves it unstored rather than unindexed.
const SET_SCRIPT = `
for i = 2, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[4])
  redis.call('ZADD', KEYS[i], ARGV[3], KEYS[1])
  if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[2]) + ${CLOCK_SKEW_MS} then redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[2]) + ${CLOCK_SKEW_MS}) end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])`;

// KEYS[1]: a lookup set. Pops ARGV[1] results and deletes them; answers how many.
const POP_SCRIPT = `
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
  // A bump that failed (Redis down or skipped) is made again before Redis serves results again.
  let bumpPending = false;
  const newGeneration = () => client.set(GENERATION_KEY, randomBytes(12).toString('base64url'), 'PX', GENERATION_TTL_MS);

  /** Empties one lookup set and the results it names, a batch at a time. */
  async function drain(key: string) {
    // A set holds at most the live results; the cap only stops a loop fed as fast as it drains.
    for (let round = 0; round < 100_000; round++) {
      const popped = (await client.eval(POP_SCRIPT, 1, key, INVALIDATION_BATCH)) as number;
      if (popped < INVALIDATION_BATCH || !upEvenIfSlow()) return;
    }
  }

  return {
    async generation() {
      if (!up()) return undefined;
      try {
        return await redis.ask(async () => {
          if (bumpPending) {
            await newGeneration();
            bumpPending = false;
          }
          const current = await client.get(GENERATION_KEY);
          if (current) return current;
          await client.set(GENERATION_KEY, randomBytes(12).toString('base64url'), 'PX', GENERATION_TTL_MS, 'NX');
          return (await client.get(GENERATION_KEY)) ?? undefined;
        });
      } catch (error) {
        return failed('generation')(error as Error);
      }
    },
    async bump() {
      try {
        await newGeneration();
        bumpPending = false;
      } catch (error) {
        // This replica reads no result from Redis before the bump is made.
        bumpPending = true;
        log.warn('response cache: access generation not renewed while Redis is unavailable; renewed once it is back', {
          error: (error as Error).name,
        });
      }
    },
    async get(key) {
      if (!up()) return undefined;
      const text = await redis.ask(() => client.get(key)).catch(failed('get'));
      if (!text) return undefined;
      try {
        return JSON.parse(text) as ExecutionResult;
      } catch {
        return undefined;
      }
    },
    async set(key, result, entities, ttl) {
      if (!up() || !(ttl > 0) || !Number.isFinite(ttl)) return;
      const lookups = [
        ...new Set([...entities].flatMap((e) => (e.id == null ? [lookupKey(e)] : [lookupKey(e), lookupKey({ typename: e.typename })]))),
      ];
      const at = now();
      await redis
        .ask(() => client.eval(SET_SCRIPT, 1 + lookups.length, key, ...lookups, JSON.stringify(result), ttl, at + ttl, at - CLOCK_SKEW_MS))
        .catch(failed('set'));
    },
    async invalidate(entities) {
      if (!upEvenIfSlow()) return;
      const keys = new Set([...entities].map(lookupKey));
      for (const key of keys) {
        if (!upEvenIfSlow()) return;
        await drain(key).catch(failed('invalidate'));
      }
    },
  };
}
