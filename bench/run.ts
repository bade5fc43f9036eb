/**
 * `npm run bench`: the embedded upstream (in-memory, generated data, an artificial latency per
 * response, in its own thread) and the gateway on loopback ports; then, from one run:
 *  (a) REST calls per query against the minimum (one per distinct resource or page);
 *  (b) the nested query's latency against its critical path (dependency depth × upstream latency);
 *  (c) throughput of the gateway against a REST client fetching the same data itself.
 * Medians and ratios, since shared machines are noisy. Bounded (< 60 s), self-stopping.
 * Settings: BENCH_LATENCY_MS (10), BENCH_CLIENTS (8), BENCH_SECONDS (4 per throughput mode).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { buildGateway } from '../src/gateway/app.js';
import type { RestCall } from '../src/rest/index.js';
import type { Seeded, Shape } from './seed.js';
import { NESTED, NESTED_TWICE, NODE, WALK, concurrently, countReplies, gqlClient, oneByOne, restClient, restNested, type Gql } from './workloads.js';

const SHAPE: Shape = { spaces: 4, changeRequests: 4, comments: 3, replies: 2 };
const LATENCY_MS = setting('BENCH_LATENCY_MS', 10);
const CLIENTS = setting('BENCH_CLIENTS', 8);
const SECONDS = setting('BENCH_SECONDS', 4);
const LATENCY_RUNS = 15;
/** organization → spaces → change requests → comments → replies: each level waits for the one above. */
const NESTED_DEPTH = 5;

function setting(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}: must be a non-negative number`);
  return value;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function timed(f: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await f();
  return performance.now() - started;
}

/** `clients` loops running `once` until `seconds` pass; completed runs per second. */
async function throughput(clients: number, seconds: number, once: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  const end = started + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        await once();
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

/** The upstream in a worker thread (TypeScript through tsx's loader). */
async function startUpstreamWorker(): Promise<{ url: string; seeded: Seeded; stop(): Promise<void> }> {
  const script = new URL('./upstreamWorker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const worker = new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(script)}); })`, {
    eval: true,
    workerData: { shape: SHAPE, latencyMs: LATENCY_MS },
  });
  const ready = await new Promise<{ url: string; seeded: Seeded }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    ...ready,
    async stop() {
      const stopped = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      await Promise.race([stopped, new Promise((r) => setTimeout(r, 3000))]);
      await worker.terminate();
    },
  };
}

interface Bench {
  gql: Gql;
  rest: ReturnType<typeof restClient>;
  seeded: Seeded;
  /** REST calls the gateway has made so far. */
  gatewayCalls(): number;
  /** [start, end] of each REST call the gateway made since the last call of this function. */
  takeIntervals(): Array<[number, number]>;
  nestedGql(): Promise<any>;
  nestedRest(): Promise<any>;
}

async function main() {
  const started = performance.now();
  const upstream = await startUpstreamWorker();
  const setupSeconds = (performance.now() - started) / 1000;
  const { seeded } = upstream;
  let gatewayCalls = 0;
  let intervals: Array<[number, number]> = [];
  const onRestCall = (call: RestCall) => {
    gatewayCalls++;
    const end = performance.now();
    intervals.push([end - call.ms, end]);
  };
  const gateway = buildGateway({ upstreamUrl: upstream.url, onRestCall });
  const { gql, close: closeGql } = gqlClient(await gateway.start(), seeded.token);
  const rest = restClient(upstream.url, seeded.token);
  const b: Bench = {
    gql,
    rest,
    seeded,
    gatewayCalls: () => gatewayCalls,
    takeIntervals: () => intervals.splice(0),
    nestedGql: () => gql(NESTED, { org: seeded.organizationId }),
    nestedRest: () => restNested(rest.get, seeded.organizationId, concurrently),
  };
  try {
    await checkAndWarm(b);
    const calls = await measureCalls(b);
    const latency = await measureLatency(b);
    const rates = await measureThroughput(b);
    print({ calls, ...latency, rates, nestedMinimum: calls[0][2] });
    console.log(`setup (upstream thread, seeding) ${setupSeconds.toFixed(1)} s, whole run ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await closeGql();
    await rest.close();
    await gateway.stop();
    await upstream.stop();
  }
}

/** Both workloads see the same, seeded data; and their code paths are warm. */
async function checkAndWarm(b: Bench) {
  const [viaGql, viaRest] = [await b.nestedGql(), await b.nestedRest()];
  const replies = SHAPE.spaces * SHAPE.changeRequests * SHAPE.comments * SHAPE.replies;
  if (countReplies(viaGql.organization) !== replies || countReplies(viaRest) !== replies) throw new Error('bench: the workloads do not see the seeded data');
  for (let i = 0; i < 3; i++) await Promise.all([b.nestedGql(), b.nestedRest()]);
}

/** (a) REST calls the gateway makes per query, and the minimum (one per distinct resource or page). */
async function measureCalls(b: Bench): Promise<Array<[string, number, number]>> {
  const callsOf = async (f: () => Promise<unknown>) => {
    const before = b.gatewayCalls();
    await f();
    return b.gatewayCalls() - before;
  };
  const restBefore = b.rest.calls();
  const viaGql = await b.nestedGql();
  await b.nestedRest();
  const minimum = b.rest.calls() - restBefore; // the REST client fetches each list page once
  const org = { org: b.seeded.organizationId };
  let pages = 0;
  const walk = async () => {
    let after: string | undefined;
    do {
      const { spaces } = (await b.gql(WALK, { ...org, after })).organization;
      pages++;
      after = spaces.pageInfo.hasNextPage ? spaces.pageInfo.endCursor : undefined;
    } while (after);
  };
  const changeRequestId = viaGql.organization.spaces.nodes[0].changeRequests.nodes[0].id;
  const calls: Array<[string, number, number]> = [
    ['nested org → spaces → CRs → comments → replies', await callsOf(b.nestedGql), minimum],
    ['the same twice in one request (aliases)', await callsOf(() => b.gql(NESTED_TWICE, org)), minimum],
    ['node(id) change request + its comments', await callsOf(() => b.gql(NODE, { id: changeRequestId })), 2],
  ];
  const walkCalls = await callsOf(walk);
  calls.push([`paginated walk, ${pages} requests (organization + 1 page each)`, walkCalls, pages * 2]);
  return calls;
}

/**
 * (b) Medians, measured interleaved (so that load changes hit all alike): the nested query through
 * the gateway, the part of it with no REST call in flight (the gateway's own time), one REST
 * round trip, and the REST client's nested fetch.
 */
async function measureLatency(b: Bench) {
  const nested: number[] = [];
  const own: number[] = [];
  const rtt: number[] = [];
  const restNested: number[] = [];
  for (let i = 0; i < LATENCY_RUNS; i++) {
    b.takeIntervals();
    const started = performance.now();
    await b.nestedGql();
    const ms = performance.now() - started;
    nested.push(ms);
    own.push(ms - covered(b.takeIntervals(), started));
    rtt.push(await timed(() => b.rest.get(`/orgs/${b.seeded.organizationId}`)));
    restNested.push(await timed(b.nestedRest));
  }
  return { nestedMs: median(nested), ownMs: median(own), rttMs: median(rtt), restNestedMs: median(restNested) };
}

/** Milliseconds after `from` during which at least one of the intervals was open. */
function covered(intervals: Array<[number, number]>, from: number): number {
  let total = 0;
  let reached = from;
  for (const [start, end] of intervals.sort((x, y) => x[0] - y[0])) {
    if (end <= reached) continue;
    total += end - Math.max(start, reached);
    reached = end;
  }
  return total;
}

/** (c) Completed nested fetches per second, for each way of fetching. */
async function measureThroughput(b: Bench): Promise<Array<[string, number]>> {
  const rates: Array<[string, number]> = [];
  for (const [name, once] of modes(b)) {
    await throughput(CLIENTS, Math.min(0.5, SECONDS / 5), once); // warm-up
    rates.push([name, await throughput(CLIENTS, SECONDS, once)]);
  }
  return rates;
}

function modes(b: Bench): Array<[string, () => Promise<unknown>]> {
  return [
    ['GraphQL gateway, nested query', b.nestedGql],
    ['REST client, calls of a level concurrent', b.nestedRest],
    ['REST client, calls one by one', () => restNested(b.rest.get, b.seeded.organizationId, oneByOne)],
  ];
}

async function sequence(n: number, f: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await f());
  return out;
}

function print(r: { calls: Array<[string, number, number]>; nestedMs: number; ownMs: number; rttMs: number; restNestedMs: number; rates: Array<[string, number]>; nestedMinimum: number }) {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const row = (label: string, ...cells: Array<string | number>) => console.log(`  ${label.padEnd(56)}${cells.map((c) => pad(c, 12)).join('')}`);
  const f1 = (x: number) => x.toFixed(1);
  const f2 = (x: number) => x.toFixed(2);
  const { spaces, changeRequests, comments, replies } = SHAPE;
  console.log(
    `docs-graph bench: upstream latency ${LATENCY_MS} ms/response, ${availableParallelism()} CPUs, data ${spaces} spaces × ${changeRequests} change requests × ${comments} comments × ${replies} replies`,
  );
  console.log('(a) REST calls per query');
  row('', 'calls', 'minimum', 'ratio');
  for (const [label, n, min] of r.calls) row(label, n, min, f2(n / min));
  const critical = NESTED_DEPTH * LATENCY_MS;
  const measured = NESTED_DEPTH * r.rttMs;
  console.log(`(b) latency of the nested query (median of ${LATENCY_RUNS}, ms)`);
  row('', 'ms', 'path ms', 'ratio');
  row(`gateway vs ${NESTED_DEPTH} levels × ${LATENCY_MS} ms latency`, f1(r.nestedMs), f1(critical), f2(r.nestedMs / critical));
  row(`gateway vs ${NESTED_DEPTH} levels × measured REST round trip ${f1(r.rttMs)} ms`, f1(r.nestedMs), f1(measured), f2(r.nestedMs / measured));
  row('gateway time with no REST call in flight (its own share)', f1(r.ownMs), '', f2(r.ownMs / r.nestedMs));
  row(`REST client, levels concurrent (4 levels: org ∥ spaces)`, f1(r.restNestedMs), f1(4 * r.rttMs), f2(r.restNestedMs / (4 * r.rttMs)));
  row('gateway vs that REST client', f1(r.nestedMs), f1(r.restNestedMs), f2(r.nestedMs / r.restNestedMs));
  console.log(`(c) throughput, ${CLIENTS} concurrent clients × ${SECONDS} s each, same data per request`);
  row('', 'req/s', 'REST/s', 'gw ÷ this');
  const gateway = r.rates[0][1];
  r.rates.forEach(([mode, rate], i) => {
    const perRequest = i === 0 ? r.calls[0][1] : r.nestedMinimum;
    row(mode, f1(rate), Math.round(rate * perRequest), f2(gateway / rate));
  });
}

const guard = setTimeout(() => {
  console.error('bench: still running after 60 s, stopping');
  process.exit(1);
}, 60_000);
guard.unref();

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
