/**
 * The gateway's one Redis client (ioredis), shared by the response cache, the per-caller rate
 * limit and automatic persisted queries. Redis is optional when it fails: every user of the handle
 * asks `isRedisReady()` first and treats a failure as "Redis is down" (cache miss, rate limit per
 * its fail mode, APQ from process memory).
 *
 * - Disconnected: commands fail at once (no offline queue); reconnects go on in the background
 *   with a capped backoff.
 * - Connected but not answering (a frozen or overloaded Redis): a command fails after
 *   `commandTimeoutMs`, and that first timeout opens a breaker in the handle: the commands still
 *   waiting fail at once, and Redis is skipped (`isRedisReady()` false, any command refused
 *   without being sent) for `coolDownMs`. Then one PING probes it; its answer closes the breaker,
 *   its timeout opens it for another cool-down, on a new connection. A frozen Redis so costs one
 *   timeout per outage, not one per request or per command.
 * - On a request's path (`ask`: cache reads and writes, the rate limit's count, APQ lookups), a
 *   request waits at most `waitMs` for Redis's answer, then goes on without it (a cache miss, the
 *   rate limit's fail mode, APQ from process memory) while the command runs on to its own timeout.
 *   Such an overdue command marks Redis slow: skipped by `ask` and `isRedisReady()` until it
 *   settles, its answer clearing the mark and its timeout opening the breaker. So the requests in
 *   flight when Redis freezes wait `waitMs` (10 ms), not the command timeout (250 ms), and a Redis
 *   slow for a moment costs no cool-down.
 *
 * One warning per outage, one info line when Redis is back and has stayed up for a cool-down.
 * Logs name the Redis host and port only, never the URL (it may hold a password).
 */
import { createRequire } from 'node:module';
import type { Command as RedisCommand, Redis } from 'ioredis';
import type { Logger } from '../log.js';

export interface RedisOptions {
  /** `redis://[:password@]host:port[/db]` or `rediss://…` */
  url: string;
  log: Logger;
  /**
   * A command not answered within this time fails and opens the breaker (default 250 ms: Redis answers
   * in well under a millisecond on a LAN, and the requests in flight when it freezes wait this long).
   */
  commandTimeoutMs?: number;
  /** A connection attempt not established within this time fails (default 2000 ms). */
  connectTimeoutMs?: number;
  /**
   * How long a request waits for a command sent by `ask` before going on without its answer
   * (default 10 ms: Redis answers in well under a millisecond; see above).
   */
  waitMs?: number;
  /** How long Redis is skipped after a timeout before one probe asks again (default 5000 ms). */
  coolDownMs?: number;
  /**
   * Most bytes Redis may send for one reply (default 64 MiB; the gateway's: twice its largest
   * result, and a MiB): past it the connection is dropped and a new one made. ioredis has no bound
   * of its own and holds a reply whole (and three times its size to join it) before it is parsed:
   * a Redis (or what stands in front of it) that declared a 500 MB value grew the gateway to 1.6 GB.
   */
  maxReplyBytes?: number;
  /** The handle's clock, ms since the epoch (default `Date.now`; tests move it by hand): breaker
   * cool-downs and the response cache's expiry times. Unset, cool-downs read `performance.now`
   * instead (see connectRedis). */
  now?: () => number;
}

export interface RedisHandle {
  readonly client: Redis;
  /** The handle's clock (ms since the epoch). */
  readonly now: () => number;
  /**
   * Connected, answering and not skipped by the breaker: use Redis now (else treat it as down).
   * Also false while a command is overdue (slow), unless `evenIfSlow` (invalidations, which must
   * not be skipped while Redis merely answers late).
   */
  isRedisReady(options?: { evenIfSlow?: boolean }): boolean;
  /**
   * Sends `command` (one or more commands) for a request: refused at once while Redis is not ready
   * or slow; the request waits at most `waitMs` for the answer (see above).
   */
  ask<T>(command: () => Promise<T>): Promise<T>;
  /** The breaker's state: `open` while Redis is skipped, `probing` while a probe is out. */
  breaker(): { open: boolean; probing: boolean };
  /** Quits (or disconnects, if Redis does not answer) and stops reconnecting. */
  close(): Promise<void>;
}

/** Redis's errors that say it cannot serve any such command now, not that the command was wrong (the code in group 1). */
const REFUSAL =
  /^(NOAUTH|WRONGPASS|NOPERM|LOADING|READONLY|MISCONF|OOM|NOREPLICAS|MASTERDOWN|BUSY|CLUSTERDOWN|TRYAGAIN)\b|^ERR max number of clients/;
/** ioredis's error for a command not answered within `commandTimeout`. */
const TIMED_OUT = 'Command timed out';
export const DEFAULT_MAX_REPLY_BYTES = 64 * 1024 * 1024;
/** Longest wait between two reconnect attempts. */
const MAX_RECONNECT_DELAY_MS = 2000;
export const DEFAULT_REDIS_COOL_DOWN_MS = 5000;

// KEYS[1]: a counter, ARGV[1]: its window (ms). Counts one, in one atomic round trip; the first count
// of a window starts its expiry. A key holding what is not one of our counts (another program's
// value: another type, text, a number with no expiry) starts a window too: else its caller went
// uncounted or was refused, or could not register, for as long as the value was there. A window
// with more than its length left ends at its length from now, its count kept: Redis keeps an
// expiry as a time of its wall clock, and with that clock stepped back an hour (NTP, a resumed VM)
// a caller over its limit was refused for 61 minutes (Retry-After: 3660).
const WINDOW_SCRIPT = `
local n = redis.pcall('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if type(n) ~= 'number' or left < 0 then redis.call('SET', KEYS[1], 1, 'PX', ARGV[1]); n = 1
elseif left > tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;

/**
 * Counts one against `key` in a fixed window of `windowMs` (the per-caller rate limit, the APQ
 * quota), for a request (`ask`): the count so far in the window and the ms until it ends.
 */
export function countInWindow(redis: RedisHandle, key: string, windowMs: number): Promise<[count: number, resetMs: number]> {
  return redis.ask(() => redis.client.eval(WINDOW_SCRIPT, 1, key, windowMs)) as Promise<[number, number]>;
}
/**
 * Most values (strings, numbers, arrays…) one reply may hold: past it the connection is dropped and a
 * new one made. The gateway's largest reply holds a few (an `MGET` of its generations and results);
 * the parser makes an object of each before the reply ends, and a 8.4 MB reply of 1.4 million
 * empty strings (within `maxReplyBytes`) ran a 128 MB heap out (the process aborted).
 */
export const MAX_REPLY_VALUES = 100_000;

/**
 * Counts the values of RESP replies as their bytes come, without reading them: one per header line
 * (`*2`, `$5`, `:1`, `+OK`…), a bulk string's payload skipped by its declared length.
 */
function respValues(): (chunk: Buffer) => number {
  // Payload bytes (and their CRLF) still to skip; the start of the header line being read.
  let skip = 0;
  let header = '';
  return (chunk) => {
    let values = 0;
    let at = 0;
    while (at < chunk.length) {
      if (skip > 0) {
        const skipped = Math.min(skip, chunk.length - at);
        skip -= skipped;
        at += skipped;
        continue;
      }
      const end = chunk.indexOf(10, at);
      // Its type and length are all a header line is read for.
      header = (header + chunk.toString('latin1', at, Math.min(end < 0 ? chunk.length : end, at + 24))).slice(0, 24);
      if (end < 0) break;
      at = end + 1;
      values++;
      const length = header[0] === '$' ? Number.parseInt(header.slice(1), 10) : -1;
      skip = length >= 0 ? length + 2 : 0;
      header = '';
    }
    return values;
  };
}

const SKIPPED = 'Redis skipped (breaker open)';
const SLOW = 'Redis slow (not answered in time, the request goes on without it)';

export function connectRedis(options: RedisOptions): RedisHandle {
  const { log } = options;
  // Loaded only when a Redis URL is configured (6.5 MiB and ~280 ms otherwise spent at every start).
  const { Redis, Command } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const commandTimeoutMs = options.commandTimeoutMs ?? 250;
  const client = new Redis(options.url, {
    commandTimeout: commandTimeoutMs,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(100 * attempt, MAX_RECONNECT_DELAY_MS),
    // The first connection is made at once, so the first request finds Redis ready.
    lazyConnect: false,
  });
  const where = `${client.options.host}:${client.options.port}`;
  const coolDownMs = options.coolDownMs ?? DEFAULT_REDIS_COOL_DOWN_MS;
  const outage = outageLog(log, where, coolDownMs);
  const now = options.now ?? Date.now;
  const breaker = createBreaker({
    coolDownMs,
    // Monotonic: with the wall clock stepped back 10 minutes while the breaker was open, Redis
    // stayed skipped for 10 minutes after it answered again (`/ready` 503 with --redis-required).
    now: options.now ?? (() => performance.now()),
    // A probe unanswered a cool-down after the first timeout: that connection is given up for a new
    // one. A connection nothing answers on any more (a proxy or firewall that dropped it without a
    // reset, a peer that stopped reading) stays open, and its probes, queued behind what it never
    // answered, timed out on it forever: Redis was skipped until the gateway restarted.
    probe: () =>
      send(new Command('ping', [])).catch((error: Error) => {
        if (error.message === TIMED_OUT) client.disconnect(true);
        throw error;
      }),
    onOpen: () => outage.down(`not answering within ${commandTimeoutMs} ms, skipped for a cool-down`),
    onClose: () => outage.up(),
  });

  // Every command (pipelines and scripts included) goes through sendCommand: the breaker refuses
  // them while open, and the first timeout opens it and releases the commands still waiting.
  const send = client.sendCommand.bind(client) as (command: RedisCommand, stream?: unknown) => Promise<unknown>;
  const waiting = new Set<RedisCommand>();
  // Bytes and values received since Redis last finished a reply (see `maxReplyBytes`,
  // MAX_REPLY_VALUES), counted on each connection.
  const maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  let unreplied = 0;
  let unrepliedValues = 0;
  const replied = () => {
    unreplied = 0;
    unrepliedValues = 0;
  };
  client.on('connect', () => {
    replied();
    const stream = client.stream;
    const valuesIn = respValues();
    /** Drops the connection (ioredis reconnects as after a reset): destroyed, not ended, nothing more is read into the parser. */
    const drop = (why: string) => {
      outage.down(`${why}, reconnecting`);
      stream.destroy();
      return true;
    };
    // Each chunk is looked at before ioredis's parser reads it, in the socket's `data` event, where
    // what the parser throws was uncaught: a reply of 5,000 nested arrays (20 KB: no Redis answers
    // our commands so, a proxy or what else stands on its port may) overflowed its recursion and
    // took the process down. Such a reply is a broken connection, as one past its bytes or values.
    const emit = stream.emit.bind(stream) as (event: string | symbol, ...args: unknown[]) => boolean;
    stream.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event !== 'data' || stream.destroyed) return emit(event, ...args);
      const chunk = args[0] as Buffer;
      unreplied += chunk.length;
      if (unreplied > maxReplyBytes) return drop(`a reply over ${maxReplyBytes} bytes`);
      // Counted before the parser reads them: it makes an object of each.
      unrepliedValues += valuesIn(chunk);
      if (unrepliedValues > MAX_REPLY_VALUES) return drop(`a reply of over ${MAX_REPLY_VALUES} values`);
      try {
        return emit(event, ...args);
      } catch {
        return drop('a reply that cannot be read');
      }
    }) as typeof stream.emit;
  });
  // Redis refusing commands on a live connection (REFUSAL: a replica or a primary short of its
  // replicas refusing writes, a password changed, a dataset loading, out of memory): each command
  // is a miss or the rate limit's fail mode, as when Redis is down, and the same outage's warning
  // (there was only a debug line per command), then a line once commands succeed again.
  let refusing = false;
  // The URL's database refused (`/16` where Redis has 16, 0 to 15): ioredis only emits the SELECT's
  // error and goes on with the connection, on database 0. The gateway took it as ready and kept its
  // cache, rate limits and APQ in database 0 (another program's, maybe), `/ready` saying `ok`. Such
  // a connection is never used: Redis is down for the gateway until a connection selects it.
  let unselected = false;
  client.on('connect', () => (unselected = false));
  client.sendCommand = ((command: RedisCommand, stream?: unknown) => {
    // A reply parsed (a value, or Redis's error: not a timeout's), whatever became of its command.
    const { resolve, reject } = command;
    command.resolve = (value) => {
      replied();
      if (refusing) {
        refusing = false;
        outage.up();
      }
      resolve(value);
    };
    command.reject = (error) => {
      if (error.name === 'ReplyError') {
        replied();
        if (command.name === 'select' && client.status !== 'ready') {
          unselected = true;
          outage.down(`cannot select database ${String(command.args[0])}`, errorCode(error));
        }
        const refusal = client.status === 'ready' ? REFUSAL.exec(error.message) : null;
        if (refusal) {
          refusing = true;
          outage.down('refusing commands', refusal[1] ?? 'ERR max number of clients');
        }
      }
      reject(error);
    };
    // Handshake commands of a (re)connection are not the breaker's business.
    if (client.status !== 'ready') return send(command, stream);
    if (breaker.isOpen()) {
      command.reject(new Error(SKIPPED));
      return command.promise;
    }
    waiting.add(command);
    const settled = () => void waiting.delete(command);
    send(command, stream).then(settled, (error: Error) => {
      settled();
      if (error.message !== TIMED_OUT || breaker.isOpen()) return;
      breaker.open();
      for (const c of waiting) c.reject(new Error(SKIPPED));
      waiting.clear();
    });
    return command.promise;
  }) as Redis['sendCommand'];

  let up = false;
  // The overdue answer that marks Redis slow (see above).
  let overdue: Promise<unknown> | undefined;
  const waitMs = options.waitMs ?? 10;
  const ready = (evenIfSlow = false) => up && client.status === 'ready' && !breaker.isOpen() && (evenIfSlow || overdue === undefined);
  const ask = <T>(command: () => Promise<T>): Promise<T> => {
    if (!ready()) return Promise.reject(new Error(SKIPPED));
    let answer: Promise<T>;
    try {
      answer = command();
    } catch (error) {
      // Building the command threw (its arguments): a rejection, as a command's own failure is.
      return Promise.reject(error as Error);
    }
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      // Fired late (a busy event loop), it still lets an answer already received be read first.
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (settled) return;
            if (overdue === undefined) {
              const clear = () => void (overdue === answer && (overdue = undefined));
              (overdue = answer).then(clear, clear);
            }
            reject(new Error(SLOW));
          }),
        waitMs,
      );
      answer.then(
        (value) => {
          settled = true;
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          settled = true;
          clearTimeout(timer);
          reject(error as Error);
        },
      );
    });
  };

  client.on('ready', () => {
    if (unselected) return;
    up = true;
    breaker.reset();
    outage.up();
  });
  // One line per outage, not one per reconnect attempt.
  client.on('error', (error: Error & { code?: string }) => outage.down('unavailable', errorCode(error)));
  client.on('close', () => {
    up = false;
  });
  return {
    client,
    now,
    isRedisReady: (options) => ready(options?.evenIfSlow),
    ask,
    breaker: () => ({ open: breaker.isOpen(), probing: breaker.probing() }),
    async close() {
      up = false;
      outage.stop();
      if (client.status === 'ready' && !breaker.isOpen()) {
        await client.quit().catch(() => client.disconnect());
      } else {
        client.disconnect();
      }
    },
  };
}

/**
 * What went wrong, for the log: a socket's code (`ECONNREFUSED`), or the first word of Redis's own
 * answer (`WRONGPASS`, `NOAUTH`, `NOPERM`, `LOADING`: a wrong password is told from a Redis that
 * is down), never the rest of a message, which may quote a command.
 */
function errorCode(error: Error & { code?: string }): string {
  return error.code ?? (error.name === 'ReplyError' ? /^[A-Z]{2,20}(?= |$)/.exec(error.message)?.[0] : undefined) ?? error.name;
}

/**
 * One warning when Redis goes, one info line when it is back. An outage ends once Redis has stayed
 * up for `settleMs` (a cool-down): a Redis whose connections drop as soon as they are used (a
 * proxy or load balancer in front of it cutting them) was one outage and one recovery per
 * reconnection, a warning and an info line every 100 ms.
 */
function outageLog(log: Logger, where: string, settleMs: number) {
  let down = false;
  let wasUp = false;
  let settling: ReturnType<typeof setTimeout> | undefined;
  const settled = () => {
    clearTimeout(settling);
    settling = undefined;
  };
  return {
    down(what: string, error?: string) {
      settled();
      if (down) return;
      down = true;
      log.warn(`redis: ${what}, degrading (cache bypassed, rate limit per its fail mode, APQ in process memory)`, {
        redis: where,
        ...(error ? { error } : {}),
      });
    },
    up() {
      if (!down) {
        if (!wasUp) log.info('redis: connected', { redis: where });
        wasUp = true;
        return;
      }
      if (settling) return;
      settling = setTimeout(() => {
        settling = undefined;
        down = false;
        wasUp = true;
        log.info('redis: answering again', { redis: where });
      }, settleMs);
      settling.unref?.();
    },
    /** The handle is closed: no line after it. */
    stop: settled,
  };
}

interface BreakerOptions {
  coolDownMs: number;
  now: () => number;
  /** Asks Redis once; resolving closes the breaker, rejecting opens it for another cool-down. */
  probe: () => Promise<unknown>;
  onOpen: () => void;
  onClose: () => void;
}

/** Closed → (a timeout) open → (cool-down passed, asked) one probe → closed, or open again. */
function createBreaker(options: BreakerOptions) {
  let openedAt: number | undefined;
  let probing = false;
  const open = () => {
    openedAt = options.now();
    options.onOpen();
  };
  return {
    open,
    /** True while Redis is skipped; once the cool-down has passed, the first call starts a probe. */
    isOpen(): boolean {
      if (openedAt === undefined) return false;
      if (!probing && options.now() - openedAt >= options.coolDownMs) {
        probing = true;
        options.probe().then(
          () => {
            probing = false;
            if (openedAt === undefined) return;
            openedAt = undefined;
            options.onClose();
          },
          () => {
            probing = false;
            if (openedAt !== undefined) openedAt = options.now();
          },
        );
      }
      return true;
    },
    probing: () => probing,
    /** A fresh connection answered its handshake: Redis is back. */
    reset() {
      openedAt = undefined;
    },
  };
}
