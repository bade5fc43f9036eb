/**
 * The gateway's one Redis client (ioredis), shared by the response cache, the per-caller rate
 * limit and automatic persisted queries. A dead or slow Redis never hangs a request: commands fail
 * at once while disconnected (no offline queue) and after `commandTimeoutMs` otherwise, and every
 * user of the handle treats a failure as "Redis is down" (cache bypassed, rate limit per its
 * fail mode). Reconnects go on in the background with a capped backoff. Logs name the Redis host
 * and port only, never the URL (it may hold a password).
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';

export interface RedisOptions {
  /** `redis://[:password@]host:port[/db]` or `rediss://…` */
  url: string;
  log: Logger;
  /** A command not answered within this time fails (default 1000 ms). */
  commandTimeoutMs?: number;
  /** A connection attempt not established within this time fails (default 2000 ms). */
  connectTimeoutMs?: number;
}

export interface RedisHandle {
  readonly client: Redis;
  /** Connected and answering: what `/ready` reports (a replica without Redis still answers, degraded). */
  isRedisReady(): boolean;
  /** Quits (or disconnects, if Redis does not answer) and stops reconnecting. */
  close(): Promise<void>;
}

/** Longest wait between two reconnect attempts. */
const MAX_RECONNECT_DELAY_MS = 2000;

export function connectRedis(options: RedisOptions): RedisHandle {
  const { log } = options;
  // Loaded only when a Redis URL is configured (6.5 MiB and ~280 ms otherwise spent at every start).
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const client = new Redis(options.url, {
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(100 * attempt, MAX_RECONNECT_DELAY_MS),
    // The first connection is made at once, so the first request finds Redis ready.
    lazyConnect: false,
  });
  const where = `${client.options.host}:${client.options.port}`;
  let up = false;
  let downLogged = false;
  client.on('ready', () => {
    up = true;
    downLogged = false;
    log.info('redis: connected', { redis: where });
  });
  client.on('error', (error: Error & { code?: string }) => {
    // One line per outage, not one per reconnect attempt.
    if (downLogged) return;
    downLogged = true;
    log.warn('redis: unavailable, degrading (cache bypassed, rate limit per its fail mode)', {
      redis: where,
      error: error.code ?? error.name,
    });
  });
  client.on('close', () => {
    up = false;
  });
  return {
    client,
    isRedisReady: () => up && client.status === 'ready',
    async close() {
      up = false;
      if (client.status === 'ready') {
        await client.quit().catch(() => client.disconnect());
      } else {
        client.disconnect();
      }
    },
  };
}
