/**
 * `npm run bench -- scaleout` (issue 11): two gateway replicas (child processes, as `npm start`
 * runs them) sharing a response cache in a redis-server this bench starts on a free loopback port
 * with no persistence, over an upstream adding BENCH_LATENCY_MS (20) per response. BENCH_CALLERS
 * (6) callers, each with its own token, send the nested query BENCH_REPEATS (10) times in turn,
 * alternating replicas. Reports the hit ratio (`extensions.responseCache.hit`), the upstream calls
 * against those without a cache, and the p50 latency of a hit against a miss. Both replicas are
 * warmed up first with another token (its entries are its own), so misses are not cold starts.
 */
import {
  distinct,
  f1,
  f2,
  freePort,
  machine,
  median,
  setting,
  sleep,
  startGateway,
  startRedis,
  startUpstream,
  table,
  timed,
  writeSection,
  type Child,
} from './lib.js';
import { NESTED, NESTED_MINIMUM, gqlClient } from './workloads.js';

const LATENCY_MS = setting('BENCH_LATENCY_MS', 20);
const CALLERS = setting('BENCH_CALLERS', 6);
const REPEATS = setting('BENCH_REPEATS', 10);
const TTL_MS = 60_000;

export async function runScaleout(): Promise<void> {
  const host = machine();
  const upstream = await startUpstream({ spaces: 6, changeRequests: 4, comments: 0, replies: 0, callers: CALLERS }, LATENCY_MS);
  const port = await freePort();
  const redis = await startRedis(port);
  const replicas: Child[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      replicas.push(
        await startGateway([
          '--upstream-url',
          upstream.slowUrl,
          '--redis-url',
          `redis://127.0.0.1:${port}`,
          '--response-cache-ttl-ms',
          String(TTL_MS),
        ]),
      );
    }
    const clients = replicas.map((r) => gqlClient(r.url));
    const { tokens, organizationId } = upstream.seeded;
    const warmUp = tokens[CALLERS];
    for (const client of clients) for (let i = 0; i < 5; i++) await client.send(warmUp, NESTED, { org: organizationId });
    const hits: number[] = [];
    const misses: number[] = [];
    upstream.record(true);
    await upstream.take();
    await Promise.all(
      tokens.slice(0, CALLERS).map(async (token, caller) => {
        for (let i = 0; i < REPEATS; i++) {
          const client = clients[(caller + i) % 2];
          const [ms, answer] = await timed(() => client.send(token, NESTED, { org: organizationId }));
          (answer.extensions?.responseCache?.hit === true ? hits : misses).push(ms);
        }
      }),
    );
    await sleep(50);
    const port20 = Number(new URL(upstream.slowUrl).port);
    const calls = (await upstream.take()).filter((c) => c.port === port20);
    upstream.record(false);
    await Promise.all(clients.map((c) => c.close()));
    const total = hits.length + misses.length;
    const withoutCache = total * NESTED_MINIMUM;
    const speedUp = median(misses) / median(hits);
    const goal = (b: boolean) => (b ? 'met' : '**not met**');
    const body = [
      '## Scale-out (`npm run bench -- scaleout`)',
      '',
      `Machine: ${host}. Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: 2 replicas sharing Redis (response cache TTL ${TTL_MS / 1000} s), ${CALLERS} callers × ${REPEATS} nested queries each, alternating replicas, ${LATENCY_MS} ms per upstream response.`,
      '',
      table(
        ['measure', 'value', 'goal (issue 11)'],
        [
          [
            'cache hits / queries (hit ratio)',
            `${hits.length} / ${total} (${f2(hits.length / total)})`,
            `${CALLERS * (REPEATS - 1)} hits expected (first query of each caller misses)`,
          ],
          [
            'upstream calls / distinct / without a cache',
            `${calls.length} / ${distinct(calls)} / ${withoutCache}`,
            `${f2(calls.length / withoutCache)} × the calls without a cache`,
          ],
          [
            'p50 latency of a miss / of a hit (ms)',
            `${f1(median(misses))} / ${f1(median(hits))}`,
            `a hit ≥ 5 × faster: ${f2(speedUp)} × ${goal(speedUp >= 5)}`,
          ],
        ],
      ),
    ].join('\n');
    console.log(body);
    writeSection('scaleout', body);
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
    redis.stop();
    await upstream.stop();
  }
}
