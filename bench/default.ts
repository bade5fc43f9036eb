/**
 * The default bench (issue 12): in one run, against the embedded upstream on loopback (its own
 * thread), a plain node:http proxy hop to it and the gateway (each in its own child process):
 *  (a) one-resource query throughput at 10 and 50 connections, as a ratio to the proxy hop, and the
 *      CPU time per request of each process: the same space every request (concurrent identical
 *      reads of one token share a call) and varied (a space drawn at random from over 200 per
 *      request, so concurrent requests rarely share a read, as in real traffic);
 *  (a') the nested query cold: the first COLD nested queries of a freshly started gateway that has
 *      served only one-resource queries, against the REST floor;
 *  (b) REST calls of the nested query against the minimum, and their dependency depth;
 *  (c) its p50 latency with `latencyMs` injected per REST call, against the REST floor;
 *  beside (a') and (c), in the same interleaved runs, the floor behind one HTTP hop (the floor's
 *  calls made by a process of its own, bench/floor.mjs --serve, for each request of the client):
 *  the least a gateway in its own process adds, waking up for the request and for its answer;
 *  (d) a burst of identical nested queries from one token, and from two;
 *  (e) the gateway's RSS right after start and its peak (VmHWM) under this load.
 * Beside the varied cells, in the same rounds: the least a server of this stack costs for the same
 * query (bench/bare.mjs: graphql-yoga with one resolver and nothing else, and graphql-js's `execute`
 * over node:http), so the gateway's ratio reads against what its framework alone takes; and, when
 * BENCH_GENERIC_GATEWAY names a directory bench/genericGateway.mjs made, the generic OpenAPI gateway
 * issue 21 compares with (Hive Gateway), on the same query and upstream.
 */
import {
  lightLoad,
  distinct,
  depth,
  f1,
  f2,
  graphqlRequest,
  load,
  machine,
  median,
  mib,
  restRequest,
  setting,
  startBare,
  startGateway,
  startGeneric,
  startHopFloor,
  startProxy,
  startUpstream,
  table,
  timed,
  writeSection,
  type Child,
  type Once,
  type UpstreamThread,
} from './lib.js';
import type { RecordedCall } from './upstreamWorker.js';
import { GENERIC_ONE_RESOURCE, NESTED, NESTED_DEPTH, NESTED_MINIMUM, ONE_RESOURCE, gqlClient, restClient, restFloor } from './workloads.js';

const LATENCY_MS = setting('BENCH_LATENCY_MS', 20);
const SECONDS = setting('BENCH_SECONDS', 2);
const ROUNDS = setting('BENCH_ROUNDS', 3);
const LATENCY_RUNS = setting('BENCH_LATENCY_RUNS', 31);
/** Nested queries (and REST floors) run before the latency is measured, WARMUP_AT_ONCE at a time: a warm gateway, as in production. */
const LATENCY_WARMUP = setting('BENCH_LATENCY_WARMUP', 2000);
const WARMUP_AT_ONCE = 25;
const BURST = 20;
const CONNECTIONS = [10, 50];
/** Nested queries measured on a fresh gateway, before any warm-up. */
const COLD = 20;
/** Spaces with no content besides the seeded ones: the varied workload draws from all of them. */
const PLAIN_SPACES = 200;
/** A directory bench/genericGateway.mjs made: the generic gateway joins the varied cells. */
const GENERIC_DIR = process.env.BENCH_GENERIC_GATEWAY;
const GENERIC_WARM_S = setting('BENCH_GENERIC_WARM_S', 30);
const WORKLOADS = ['same', 'varied'] as const;
type Workload = (typeof WORKLOADS)[number];

export async function runDefault(): Promise<void> {
  const started = performance.now();
  const host = `${machine()}; light load: ${await lightLoad(LATENCY_MS)}`;
  const upstream = await startUpstream(
    { spaces: 6, changeRequests: 4, comments: 0, replies: 0, callers: 1, plainSpaces: PLAIN_SPACES },
    LATENCY_MS,
  );
  const children: Child[] = [];
  try {
    // The gateway under throughput load talks to the upstream with no added latency; a second one
    // to the port that adds latency, for call counts and latencies.
    const gateway = await startGateway(['--upstream-url', upstream.url]);
    children.push(gateway);
    await new Promise((r) => setTimeout(r, 500));
    const afterStart = gateway.memory();
    const slowGateway = await startGateway(['--upstream-url', upstream.slowUrl]);
    children.push(slowGateway);
    const proxy = await startProxy(upstream.url);
    children.push(proxy);
    const bare: Bare = { yoga: await startBare(upstream.url, 'yoga'), graphql: await startBare(upstream.url, 'graphql') };
    children.push(bare.yoga, bare.graphql);
    if (GENERIC_DIR) children.push((bare.generic = await startGeneric(GENERIC_DIR, upstream.url)));

    const rates = await throughputs(upstream, gateway, proxy, bare);
    const hopFloor = await startHopFloor(upstream.slowUrl);
    children.push(hopFloor);
    const cold = await nestedCold(upstream, slowGateway, hopFloor);
    const calls = await nestedCalls(upstream, slowGateway);
    const latency = await nestedLatency(upstream, slowGateway, hopFloor);
    const bursts = await burst(upstream, slowGateway);
    const peak = gateway.memory();
    const body = report({
      host,
      rates,
      cold,
      calls,
      latency,
      bursts,
      afterStart,
      peak,
      slowPeak: slowGateway.memory().hwm,
      seconds: (performance.now() - started) / 1000,
    });
    console.log(body);
    writeSection('default', body);
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await upstream.stop();
  }
}

type Sample = {
  rate: number;
  errors: number;
  cpuMs: number;
  /** REST calls per request (the gateway's, from its /metrics). */ restCalls: number;
};
/** The bare servers (bench/bare.mjs) and the generic gateway run the varied workload only. */
type Target = 'direct' | 'proxy' | 'gateway' | 'yoga' | 'graphql' | 'generic';
type Rates = Record<
  Workload,
  Record<number, Record<'direct' | 'proxy' | 'gateway', Sample> & Partial<Record<'yoga' | 'graphql' | 'generic', Sample>>>
>;
/** The bare servers, and the generic gateway when BENCH_GENERIC_GATEWAY names its directory. */
type Bare = Record<'yoga' | 'graphql', Child> & { generic?: Child };

/** A space id per request: always the first seeded one (`same`), or one drawn at random (`varied`). */
function spacePicker(upstream: UpstreamThread, workload: Workload): () => string {
  const { spaceIds, allSpaceIds } = upstream.seeded;
  return workload === 'same' ? () => spaceIds[0] : () => allSpaceIds[Math.floor(Math.random() * allSpaceIds.length)];
}

/**
 * (a) Interleaved rounds (so load changes hit all alike); the median rate of each target, and the
 * CPU time its process spent per request (robust to a shared machine's load; none for the upstream),
 * from /proc/<pid>/stat before and after each cell.
 */
async function throughputs(upstream: UpstreamThread, gateway: Child, proxy: Child, bare: Bare): Promise<Rates> {
  const { token } = upstream.seeded;
  const restBase = new URL(upstream.url).pathname;
  const targets = (workload: Workload): Partial<Record<Target, [string, Once, Child | null]>> => {
    const space = spacePicker(upstream, workload);
    const query = graphqlRequest('/graphql', token, ONE_RESOURCE, () => ({ space: space() }));
    return {
      direct: [new URL(upstream.url).origin, restRequest(() => `${restBase}/spaces/${space()}`, token), null],
      proxy: [new URL(proxy.url).origin, restRequest(() => `${restBase}/spaces/${space()}`, token), proxy],
      gateway: [new URL(gateway.url).origin, query, gateway],
      ...(workload === 'varied'
        ? {
            yoga: [new URL(bare.yoga.url).origin, query, bare.yoga],
            graphql: [new URL(bare.graphql.url).origin, query, bare.graphql],
            ...(bare.generic && {
              generic: [
                new URL(bare.generic.url).origin,
                graphqlRequest('/graphql', token, GENERIC_ONE_RESOURCE, () => ({ space: space() })),
                bare.generic,
              ],
            }),
          }
        : {}),
    };
  };
  for (const [origin, once] of Object.values(targets('varied')) as Array<[string, Once, Child | null]>) await load(origin, 10, 1, once); // warm-up (JIT, pools)
  // The generic gateway's CPU per request falls for some 20 s of load (2.1–2.3, 1.2–1.4, 1.0–1.1
  // ms per request in three 8 s runs back to back): GENERIC_WARM_S more of it, so that its cells
  // measure it warmed, as the others are.
  const generic = targets('varied').generic;
  if (generic) await load(generic[0], 10, GENERIC_WARM_S, generic[1]);
  const rates = { same: {}, varied: {} } as Rates;
  for (const workload of WORKLOADS) {
    for (const connections of CONNECTIONS) {
      const samples: Partial<Record<Target, Sample[]>> = {};
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, [origin, once, child]] of Object.entries(targets(workload)) as Array<[Target, [string, Once, Child | null]]>) {
          const calls = name === 'gateway' ? await upstreamCalls(origin) : NaN;
          const cpu = child?.cpuMs() ?? 0;
          const run = await load(origin, connections, SECONDS, once);
          const cpuMs = child ? (child.cpuMs() - cpu) / Math.max(1, run.done) : NaN;
          const restCalls = name === 'gateway' ? ((await upstreamCalls(origin)) - calls) / Math.max(1, run.done) : 1;
          (samples[name] ??= []).push({ ...run, cpuMs, restCalls });
        }
      }
      rates[workload][connections] = Object.fromEntries(
        (Object.entries(samples) as Array<[Target, Sample[]]>).map(([name, s]) => [
          name,
          {
            rate: median(s.map((x) => x.rate)),
            errors: s.reduce((n, x) => n + x.errors, 0),
            cpuMs: median(s.map((x) => x.cpuMs)),
            restCalls: median(s.map((x) => x.restCalls)),
          },
        ]),
      ) as Rates[Workload][number];
      console.log(`bench: ${workload}, ${connections} connections: ${JSON.stringify(rates[workload][connections])}`);
    }
  }
  return rates;
}

/**
 * (a') The first COLD nested queries of a gateway that has served only one-resource queries (a
 * second of the varied load, so its pools and the common code paths are as warm as after start-up
 * traffic), each followed by a run of the REST floor and one of the floor behind one HTTP hop
 * (bench/floor.mjs --serve): medians of each.
 */
async function nestedCold(upstream: UpstreamThread, gateway: Child, hopFloor: Child) {
  const space = spacePicker(upstream, 'varied');
  await load(
    new URL(gateway.url).origin,
    10,
    1,
    graphqlRequest('/graphql', upstream.seeded.token, ONE_RESOURCE, () => ({ space: space() })),
  );
  const gql = gqlClient(gateway.url);
  const rest = restClient(upstream.slowUrl);
  const hop = gqlClient(hopFloor.url);
  const { token, organizationId } = upstream.seeded;
  const viaGateway: number[] = [];
  const floor: number[] = [];
  const viaHop: number[] = [];
  try {
    // The clients connect first: the floor's pool with one floor run, the gateway's with a query of
    // no REST call (the first nested query would otherwise also pay the client's TCP connect).
    await restFloor(rest, token, organizationId);
    await hop.send(token, NESTED, { org: organizationId });
    await gql.send(token, '{ __typename }');
    for (let i = 0; i < COLD; i++) {
      viaGateway.push((await timed(() => gql.send(token, NESTED, { org: organizationId })))[0]);
      floor.push((await timed(() => restFloor(rest, token, organizationId)))[0]);
      viaHop.push((await timed(() => hop.send(token, NESTED, { org: organizationId })))[0]);
    }
  } finally {
    await gql.close();
    await rest.close();
    await hop.close();
  }
  return { gateway: median(viaGateway), floor: median(floor), hop: median(viaHop), first: viaGateway[0] - floor[0] };
}

/** REST calls the gateway at `origin` made so far (the counts of its upstream latency histogram). */
async function upstreamCalls(origin: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  return [...text.matchAll(/^docs_graph_upstream_request_duration_seconds_count\{.*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

/** Runs `f` with the upstream recording; the calls it received meanwhile (on the slow port). */
async function recorded(upstream: UpstreamThread, f: () => Promise<unknown>): Promise<RecordedCall[]> {
  upstream.record(true);
  await upstream.take();
  await f();
  await new Promise((r) => setTimeout(r, 50));
  const calls = await upstream.take();
  upstream.record(false);
  const port = Number(new URL(upstream.slowUrl).port);
  return calls.filter((c) => c.port === port);
}

/** (b) REST calls and their depth for one nested query (after a warm-up). */
async function nestedCalls(upstream: UpstreamThread, gateway: Child) {
  const gql = gqlClient(gateway.url);
  const { token, organizationId } = upstream.seeded;
  try {
    const answer = await gql.send(token, NESTED, { org: organizationId });
    const spaces = answer.data.organization.spaces.nodes;
    if (spaces.length !== 5 || spaces.some((s: any) => s.changeRequests.nodes.length !== 3))
      throw new Error('bench: the nested query does not see the seeded data');
    const calls = await recorded(upstream, () => gql.send(token, NESTED, { org: organizationId }));
    return { calls: calls.length, distinct: distinct(calls), depth: depth(calls) };
  } finally {
    await gql.close();
  }
}

/**
 * (c) p50 of the nested query through the gateway and of the REST floor, runs interleaved, after
 * LATENCY_WARMUP of each (WARMUP_AT_ONCE at a time): a gateway that has served only a few hundred
 * nested queries still runs them partly unoptimized (2-5 ms more than in steady state), while the
 * floor's client code is tiny and warm at once. (The floor's client in a process of its own, as
 * `tsx bench/profile.ts floors` runs it, measures the same as here, beside the upstream's thread.)
 */
async function nestedLatency(upstream: UpstreamThread, gateway: Child, hopFloor: Child) {
  const gql = gqlClient(gateway.url);
  const rest = restClient(upstream.slowUrl);
  const hop = gqlClient(hopFloor.url);
  const { token, organizationId } = upstream.seeded;
  const viaGateway: number[] = [];
  const floor: number[] = [];
  const viaHop: number[] = [];
  try {
    for (let i = 0; i < LATENCY_WARMUP; i += WARMUP_AT_ONCE) {
      const n = Math.min(WARMUP_AT_ONCE, LATENCY_WARMUP - i);
      await Promise.all(
        Array.from({ length: n }, () =>
          Promise.all([
            gql.send(token, NESTED, { org: organizationId }),
            restFloor(rest, token, organizationId),
            hop.send(token, NESTED, { org: organizationId }),
          ]),
        ),
      );
    }
    for (let i = 0; i < LATENCY_RUNS; i++) {
      viaGateway.push((await timed(() => gql.send(token, NESTED, { org: organizationId })))[0]);
      floor.push((await timed(() => restFloor(rest, token, organizationId)))[0]);
      viaHop.push((await timed(() => hop.send(token, NESTED, { org: organizationId })))[0]);
    }
  } finally {
    await gql.close();
    await rest.close();
    await hop.close();
  }
  return { gateway: median(viaGateway), floor: median(floor), hop: median(viaHop) };
}

/**
 * (d) BURST identical nested queries at once: from one token, then half from each of two tokens.
 * The client's BURST connections are open first (a query that makes no REST call on each): opened
 * with the burst, their TCP handshakes spread its arrival at the gateway over about as long as a
 * REST call takes on a loaded machine, and a query that arrives after the first answer is back
 * rightly makes its own calls.
 */
async function burst(upstream: UpstreamThread, gateway: Child) {
  const gql = gqlClient(gateway.url);
  const { tokens, organizationId } = upstream.seeded;
  const send = (token: string) => gql.send(token, NESTED, { org: organizationId });
  try {
    await Promise.all(Array.from({ length: BURST }, (_, i) => gql.send(tokens[i % 2], '{ __typename }')));
    const one = await recorded(upstream, () => Promise.all(Array.from({ length: BURST }, () => send(tokens[0]))));
    const two = await recorded(upstream, () => Promise.all(Array.from({ length: BURST }, (_, i) => send(tokens[i % 2]))));
    const callers = [...new Set(two.map((c) => c.caller))];
    const perCaller = callers.map((caller) => {
      const own = two.filter((c) => c.caller === caller);
      return { calls: own.length, distinct: distinct(own) };
    });
    return { one: { calls: one.length, distinct: distinct(one) }, two: { calls: two.length, distinct: distinct(two), perCaller } };
  } finally {
    await gql.close();
  }
}

function report(r: {
  host: string;
  rates: Rates;
  cold: Awaited<ReturnType<typeof nestedCold>>;
  calls: { calls: number; distinct: number; depth: number };
  latency: Awaited<ReturnType<typeof nestedLatency>>;
  bursts: Awaited<ReturnType<typeof burst>>;
  afterStart: { rss: number };
  peak: { hwm: number };
  slowPeak: number;
  seconds: number;
}): string {
  const goal = (ok: boolean) => (ok ? 'met' : '**not met**');
  const rows: Array<Array<string | number>> = [];
  for (const c of CONNECTIONS) {
    const { direct, proxy, gateway } = r.rates.same[c];
    const ratio = gateway.rate / proxy.rate;
    rows.push([
      `one-resource query, same space, ${c} connections: req/s gateway / proxy hop / direct REST (errors of each)`,
      `${f1(gateway.rate)} / ${f1(proxy.rate)} / ${f1(direct.rate)} (${gateway.errors} / ${proxy.errors} / ${direct.errors})`,
      `${f2(ratio)} × the proxy hop`,
      `≥ 0.60 ×, 0 errors: ${goal(ratio >= 0.6 && gateway.errors === 0)}`,
    ]);
    rows.push([
      `the same, CPU time per request (ms): gateway process / proxy process; REST calls per query (one token and one space, so concurrent identical reads share a call)`,
      `${f2(gateway.cpuMs)} / ${f2(proxy.cpuMs)}; ${f2(gateway.restCalls)}`,
      `${f2(gateway.cpuMs / proxy.cpuMs)} ×`,
      '',
    ]);
  }
  for (const c of CONNECTIONS) {
    const { direct, proxy, gateway } = r.rates.varied[c];
    const cpu = gateway.cpuMs / proxy.cpuMs;
    rows.push([
      `one-resource query, varied (a space drawn at random from ${PLAIN_SPACES + 6} per request), ${c} connections: req/s gateway / proxy hop / direct REST (errors)`,
      `${f1(gateway.rate)} / ${f1(proxy.rate)} / ${f1(direct.rate)} (${gateway.errors} / ${proxy.errors} / ${direct.errors})`,
      `${f2(gateway.rate / proxy.rate)} × the proxy hop; REST calls per query ${f2(gateway.restCalls)}`,
      '',
    ]);
    rows.push([
      `the same, CPU time per request (ms): gateway process / proxy process`,
      `${f2(gateway.cpuMs)} / ${f2(proxy.cpuMs)}`,
      `${f2(cpu)} ×`,
      `≤ 3 × the proxy hop's, 0 errors: ${goal(cpu <= 3 && gateway.errors === 0)}`,
    ]);
    const { yoga, graphql, generic } = r.rates.varied[c];
    if (generic)
      rows.push([
        `a generic OpenAPI gateway, the same load (Hive Gateway over the supergraph GraphQL Mesh composes from the REST API's OpenAPI description: bench/genericGateway.mjs): CPU time per request (ms) (errors); req/s`,
        `${f2(generic.cpuMs)} (${generic.errors}); ${f1(generic.rate)}`,
        `${f2(generic.cpuMs / proxy.cpuMs)} × the proxy hop's; the gateway's CPU ${f2(gateway.cpuMs / generic.cpuMs)} × its`,
        '',
      ]);
    if (yoga && graphql)
      rows.push([
        `the stack alone, the same load (bench/bare.mjs: no bound, check, metric or cache): CPU time per request (ms) of graphql-yoga with one resolver / of graphql-js's \`execute\` over node:http (errors)`,
        `${f2(yoga.cpuMs)} / ${f2(graphql.cpuMs)} (${yoga.errors} / ${graphql.errors})`,
        `${f2(yoga.cpuMs / proxy.cpuMs)} × / ${f2(graphql.cpuMs / proxy.cpuMs)} × the proxy hop's`,
        '',
      ]);
  }
  const { calls, distinct: d, depth: dp } = r.calls;
  rows.push([
    'nested query org → spaces(5) → changeRequests(3): REST calls (distinct), depth',
    `${calls} (${d}), depth ${dp}`,
    `${f2(calls / NESTED_MINIMUM)} × the minimum ${NESTED_MINIMUM}, depth ${dp} / ${NESTED_DEPTH}`,
    `${NESTED_MINIMUM} calls, depth ${NESTED_DEPTH}: ${goal(calls === NESTED_MINIMUM && dp === NESTED_DEPTH)}`,
  ]);
  const cold = r.cold;
  rows.push([
    `nested p50 latency, cold (the first ${COLD} nested queries of a fresh gateway that served only one-resource queries), ${LATENCY_MS} ms per REST call: gateway / REST floor / the floor behind one HTTP hop (ms)`,
    `${f1(cold.gateway)} / ${f1(cold.floor)} / ${f1(cold.hop)}`,
    `+${f1(cold.gateway - cold.floor)} ms (the very first: +${f1(cold.first)} ms); the hop alone +${f1(cold.hop - cold.floor)} ms`,
    `≤ +3 ms: ${goal(cold.gateway - cold.floor <= 3)}`,
  ]);
  const { gateway: gw, floor, hop } = r.latency;
  rows.push([
    `nested p50 latency, warmed (after ${LATENCY_WARMUP} runs), ${LATENCY_MS} ms per REST call: gateway / REST floor / the floor behind one HTTP hop (ms)`,
    `${f1(gw)} / ${f1(floor)} / ${f1(hop)}`,
    `${f2(gw / floor)} ×, +${f1(gw - floor)} ms; the hop alone +${f1(hop - floor)} ms`,
    `≤ +2 ms: ${goal(gw - floor <= 2)}`,
  ]);
  const { one, two } = r.bursts;
  rows.push([
    `burst of ${BURST} identical nested queries, one token: REST calls / distinct calls`,
    `${one.calls} / ${one.distinct}`,
    `${f2(one.calls / one.distinct)} ×`,
    `≤ 1.5 ×: ${goal(one.calls <= 1.5 * one.distinct)}`,
  ]);
  const own = two.perCaller.every((c) => c.distinct === one.distinct);
  rows.push([
    `the same burst from two tokens (half each): REST calls per token (distinct)`,
    two.perCaller.map((c) => `${c.calls} (${c.distinct})`).join(' / '),
    `${two.perCaller.length} tokens seen at the upstream`,
    `each token's calls with its own Authorization: ${goal(two.perCaller.length === 2 && own)}`,
  ]);
  rows.push([
    'gateway RSS right after start / peak (VmHWM) under this load (MiB)',
    `${f1(mib(r.afterStart.rss))} / ${f1(mib(r.peak.hwm))}`,
    `(the gateway under latency: peak ${f1(mib(r.slowPeak))})`,
    `≤ 100 / ≤ 150: ${goal(mib(r.afterStart.rss) <= 100 && mib(r.peak.hwm) <= 150)}`,
  ]);
  return [
    `## Default run (\`npm run bench\`)`,
    '',
    `Machine: ${r.host}. Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${f1(r.seconds)} s.`,
    `Throughput: ${ROUNDS} interleaved rounds of ${SECONDS} s per target and connection count, medians. Latency: median of ${LATENCY_RUNS} interleaved runs, after ${LATENCY_WARMUP} of each (${WARMUP_AT_ONCE} at a time) to warm up.`,
    '',
    table(['measure', 'value', 'ratio', 'goal (issues 12, 21)'], rows),
  ].join('\n');
}
