/**
 * A real `redis-server` for a test file: on a free loopback port, no persistence, stopped (and
 * restartable on the same port) by the test. `.ci/run` installs Debian's redis-server when missing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import { buildGateway, type Gateway, type GatewayOptions } from '../../src/gateway/app.js';
import type { RestCall } from '../../src/rest/index.js';
import type { GqlResult } from './gateway.js';

export interface TestRedis {
  url: string;
  port: number;
  /** A plain client for assertions (scan keys, read values). */
  client: Redis;
  /** Kills the server (the gateway sees Redis go away). */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the server: connections stay open, commands get no answer. */
  freeze(frozen: boolean): void;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--loglevel', 'warning'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('error', (error) =>
      reject(new Error(`redis-server could not start (${error.message}); install it (apt-get install redis-server, as .ci/run does)`)),
    );
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    // Ready once it answers PING.
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
    probe.on('error', () => {});
    probe
      .ping()
      .then(() => probe.quit())
      .then(() => resolve(child), reject);
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child = await launch(port);
  const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  // While the test has killed the server, the assertion client just waits for it to come back.
  client.on('error', () => {});
  const stop = async () => {
    client.disconnect();
    child.kill('SIGCONT');
    await kill(child);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    client,
    kill: () => kill(child),
    async restart() {
      child = await launch(port);
    },
    freeze: (frozen) => void child.kill(frozen ? 'SIGSTOP' : 'SIGCONT'),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Every key in the Redis, with its value(s) as text (strings, sets). */
export async function dumpRedis(client: Redis): Promise<Map<string, string>> {
  const all = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await client.type(key);
      const value = type === 'string' ? await client.get(key) : type === 'set' ? (await client.smembers(key)).join('\n') : `<${type}>`;
      all.set(key, value ?? '');
    }
  } while (cursor !== '0');
  return all;
}

export interface Replica {
  gateway: Gateway;
  /** REST attempts this replica made since the last `calls.splice(0)`. */
  calls: RestCall[];
  /** POSTs a GraphQL request body as `token` (none with `null`); answers status, headers and JSON. */
  post(body: Record<string, unknown>, token: string | null): Promise<{ status: number; headers: Headers; json: GqlResult }>;
  stop(): Promise<void>;
}

/**
 * The Redis waits of a gateway whose tests expect hits, generous so that a redis-server slowed by a
 * loaded machine never turns an expected hit into a miss: a request's wait (10 ms in production)
 * and the command timeout (250 ms): one reply later than that opens the breaker, and every
 * expected hit of the gateway's next cool-down (5 s) is a miss (at load 8 on Node 24, the next
 * eight tests of a file sharing one gateway failed).
 */
export const TESTS_REDIS = { waitMs: 1000, commandTimeoutMs: 10_000 };

/** A gateway over `upstreamUrl` (e.g. one replica of several sharing a Redis), its REST calls counted. */
export function startReplica(upstreamUrl: string, options: Omit<GatewayOptions, 'upstreamUrl' | 'onRestCall'>): Replica {
  const calls: RestCall[] = [];
  // Tests of these waits set their own.
  const redis = { ...TESTS_REDIS, ...options.redis };
  const gateway = buildGateway({ ...options, redis, upstreamUrl, onRestCall: (c) => calls.push(c) });
  return {
    gateway,
    calls,
    stop: () => gateway.stop(),
    post: postWith((init) => gateway.yoga.fetch('http://gateway.test/graphql', init)),
  };
}

/** The replica listening on a loopback port, its `post` sent there over real HTTP. */
export async function listening(replica: Replica): Promise<Replica> {
  const url = await replica.gateway.start();
  return { ...replica, post: postWith((init) => fetch(url, init)) };
}

/** A replica started (stopped by `track`), listening on a loopback port, and with its Redis ready. */
export async function readyReplica(
  track: ReturnType<typeof stopAfterEach>,
  upstreamUrl: string,
  options: Parameters<typeof startReplica>[1],
): Promise<Replica> {
  const replica = await listening(track(startReplica(upstreamUrl, options)));
  await waitFor(() => replica.gateway.redis!.isRedisReady(), 'Redis ready');
  return replica;
}

/** A Replica's `post`, sending with `send`. */
function postWith(send: (init: RequestInit) => Response | Promise<Response>): Replica['post'] {
  return async (body, token) => {
    const res = await send({
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, json: (await res.json()) as GqlResult };
  };
}

/** Registers an `afterEach` that stops, last first, what each test passed to the returned `track`. */
export function stopAfterEach(): <T extends { stop(): Promise<void> }>(started: T) => T {
  const started: Array<{ stop(): Promise<void> }> = [];
  afterEach(async () => {
    for (const s of started.splice(0).reverse()) await s.stop();
  });
  return (s) => (started.push(s), s);
}

/** Polls `condition` (generously: the machine is loaded) until it holds; fails after 20 s. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what = 'condition'): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met after 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
