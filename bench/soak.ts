/**
 * `npm run bench -- soak` (issue 9): the gateway (a child process, as `npm start` runs it) under a
 * bounded, moderate, mixed load for BENCH_SOAK_SECONDS (300): one-resource and nested queries,
 * mutations (a space's title, back and forth) and subscriptions (askStream over SSE), from
 * BENCH_SOAK_CLIENTS (8) clients pausing BENCH_SOAK_PAUSE_MS (20) between operations. Reports errors
 * per kind (goal 0) and RSS right after start, after the warm-up (the first tenth), and at the end
 * (goal: growth under 10 % from the warm-up), sampled every few seconds.
 */
import { Pool } from 'undici';
import { f1, machine, mib, setting, sleep, startGateway, startUpstream, table, writeSection, type Child } from './lib.js';
import { NESTED, ONE_RESOURCE } from './workloads.js';

const SECONDS = setting('BENCH_SOAK_SECONDS', 300);
const CLIENTS = setting('BENCH_SOAK_CLIENTS', 8);
const PAUSE_MS = setting('BENCH_SOAK_PAUSE_MS', 20);

const UPDATE_SPACE = `mutation Rename($space: String!, $title: String!) { updateSpace(input: { spaceId: $space, title: $title }) { space { id title } } }`;
const ASK = `subscription Ask($org: String!, $query: String!) { askStream(organizationId: $org, query: $query, format: MARKDOWN) { answer { markdown } followupQuestions } }`;

type Kind = 'one-resource query' | 'nested query' | 'mutation' | 'subscription';
/** Share of each kind in the mix (cumulative draw). */
const MIX: Array<[Kind, number]> = [
  ['one-resource query', 0.45],
  ['nested query', 0.3],
  ['mutation', 0.15],
  ['subscription', 0.1],
];

/** BENCH_SOAK_ONLY=<kind> sends that kind alone (to find which one makes memory grow). */
const ONLY = process.env.BENCH_SOAK_ONLY as Kind | undefined;

function pick(x: number): Kind {
  if (ONLY) return ONLY;
  let sum = 0;
  for (const [kind, share] of MIX) if (x < (sum += share)) return kind;
  return MIX[0][0];
}

/** A small seeded PRNG (mulberry32), so two runs send the same mix. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function runSoak(): Promise<void> {
  const host = machine();
  const upstream = await startUpstream({ spaces: 6, changeRequests: 4, comments: 0, replies: 0 }, 0);
  let gateway: Child | undefined;
  try {
    gateway = await startGateway(['--upstream-url', upstream.url]);
    await sleep(500);
    const afterStart = gateway.memory().rss;
    const { token, organizationId, spaceIds } = upstream.seeded;
    const pool = new Pool(new URL(gateway.url).origin, { connections: CLIENTS * 2 });
    const post = async (query: string, variables: Record<string, unknown>, accept = 'application/json') => {
      const res = await pool.request({
        path: '/graphql',
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.statusCode, text: await res.body.text() };
    };
    const fail = (r: { status: number; text: string }) => {
      throw new Error(`HTTP ${r.status}: ${r.text.slice(0, 300)}`);
    };
    const ok = (r: { status: number; text: string }) => (r.status === 200 && !JSON.parse(r.text).errors?.length) || fail(r);
    const operations: Record<Kind, (i: number) => Promise<boolean>> = {
      'one-resource query': async (i) => ok(await post(ONE_RESOURCE, { space: spaceIds[i % spaceIds.length] })),
      'nested query': async () => ok(await post(NESTED, { org: organizationId })),
      // The last space is renamed back and forth; the queries read the others.
      mutation: async (i) => ok(await post(UPDATE_SPACE, { space: spaceIds[spaceIds.length - 1], title: `Soak ${i % 2}` })),
      subscription: async () => {
        const r = await post(ASK, { org: organizationId, query: 'How do I get started?' }, 'text/event-stream');
        const events = r.text.split('\n\n').filter((e) => e.startsWith('event: next'));
        return (
          (r.status === 200 && events.length > 0 && /event: complete/.test(r.text) && !events.some((e) => /"errors"/.test(e))) || fail(r)
        );
      },
    };
    const counts = Object.fromEntries(MIX.map(([k]) => [k, { done: 0, errors: 0 }])) as Record<Kind, { done: number; errors: number }>;
    const firstErrors: string[] = [];
    const samples: Array<[number, number]> = [];
    const started = performance.now();
    const end = started + SECONDS * 1000;
    const sampler = setInterval(
      () => samples.push([(performance.now() - started) / 1000, gateway!.memory().rss]),
      Math.max(1000, (SECONDS * 1000) / 60),
    );
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        const draw = random(client + 1);
        for (let i = 0; performance.now() < end; i++) {
          const kind = pick(draw());
          const success = await operations[kind](i).catch((error: Error) => {
            if (firstErrors.length < 5) firstErrors.push(`${kind}: ${error.message}`);
            return false;
          });
          counts[kind][success ? 'done' : 'errors']++;
          if (PAUSE_MS) await sleep(PAUSE_MS);
        }
      }),
    );
    clearInterval(sampler);
    const elapsed = (performance.now() - started) / 1000;
    const endRss = gateway.memory().rss;
    await pool.close();
    const warm = samples.find(([t]) => t >= SECONDS / 10)?.[1] ?? samples[0]?.[1] ?? afterStart;
    const growth = (endRss - warm) / warm;
    const errors = Object.values(counts).reduce((n, c) => n + c.errors, 0);
    const goal = (b: boolean) => (b ? 'met' : '**not met**');
    const body = [
      '## Soak (`npm run bench -- soak`)',
      '',
      `Machine: ${host}. Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${f1(elapsed)} s, ${CLIENTS} clients pausing ${PAUSE_MS} ms between operations${ONLY ? ` (${ONLY} only)` : ''}, upstream with no added latency.`,
      '',
      table(
        ['operation', 'completed', 'errors'],
        Object.entries(counts).map(([k, c]) => [k, c.done, c.errors]),
      ),
      '',
      table(
        ['measure', 'value', 'goal (issue 9)'],
        [
          ['errors', errors, `0: ${goal(errors === 0)}`],
          [
            'gateway RSS right after start / after the warm-up (first tenth) / at the end (MiB)',
            `${f1(mib(afterStart))} / ${f1(mib(warm))} / ${f1(mib(endRss))}`,
            '',
          ],
          ['RSS growth from the warm-up to the end', `${f1(growth * 100)} %`, `< 10 %: ${goal(growth < 0.1)}`],
          ['peak RSS (VmHWM, MiB)', f1(mib(gateway.memory().hwm)), ''],
          [
            'RSS samples (s: MiB)',
            samples
              .filter((_, i) => i % 10 === 0)
              .map(([t, kb]) => `${Math.round(t)}: ${Math.round(mib(kb))}`)
              .join(', '),
            '',
          ],
        ],
      ),
      ...(firstErrors.length ? ['', `First errors: ${firstErrors.map((e) => `\`${e.slice(0, 200)}\``).join('; ')}`] : []),
    ].join('\n');
    console.log(body);
    writeSection('soak', body);
  } finally {
    await gateway?.stop();
    await upstream.stop();
  }
}
