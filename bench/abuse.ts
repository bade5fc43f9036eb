/**
 * `npm run bench -- abuse` (issue 18): each attack of the hardening issue runs against one gateway
 * (started as `npm start` starts it, with Redis and the response cache on) while a well-behaved
 * caller (its own token) sends a one-resource query and the nested query at a steady pace and
 * measures its latency against its own baseline, measured in the same run before the attacks (and,
 * for information, against its quiet windows before each attack pooled: QUIET_SECONDS). The
 * well-behaved caller runs in a worker thread (bench/victimWorker.mjs), with its own event loop:
 * the attackers build, send and read 900 KB bodies and 414 KB answers on the main thread, and its
 * latency must be the gateway's, not the wait behind them in the bench's own process. What an
 * attack looks up and builds is done before its window (`prepare`), and the attackers' thread runs
 * at ATTACKERS_NICE. The table names the caller's two slowest requests under each attack (when,
 * which query, cache hit or miss): the p99 of ~200 requests is their 2nd slowest. The
 * gateway must live through every attack (its /health answers after each), the well-behaved
 * caller's p99 stay ≤ 3 × its baseline and ≤ 1 s, and the gateway's peak RSS ≤ 300 MiB.
 *
 * The upstream is reached through the proxy hop (bench/proxy.mjs) answering 500 for any path
 * holding `boom`, the id the breaker attack asks for; everything else passes through.
 */
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { Pool } from 'undici';
import {
  lightLoad,
  f1,
  f2,
  freePort,
  machine,
  mib,
  percentile,
  median,
  setting,
  sleep,
  startGateway,
  startProxy,
  startRedis,
  startUpstream,
  table,
  writeSection,
  type Child,
} from './lib.js';
import { FIRST_COMMENT_ID, NESTED, ONE_RESOURCE } from './workloads.js';

const SECONDS = setting('BENCH_ABUSE_SECONDS', 5);
/**
 * BENCH_ABUSE_ONLY: comma-separated words; only the attacks whose name starts with one of them run
 * (`BENCH_ABUSE_ONLY=introspection,redis`), to profile or iterate on one attack. The section is
 * written only by a run of all of them.
 */
const ONLY = (process.env.BENCH_ABUSE_ONLY ?? '')
  .split(',')
  .map((w) => w.trim().toLowerCase())
  .filter(Boolean);
const only = (attack: { name: string }) => !ONLY.length || ONLY.some((w) => attack.name.toLowerCase().startsWith(w));
const BASELINE_SECONDS = setting('BENCH_ABUSE_BASELINE_SECONDS', 6);
/**
 * A quiet window of the well-behaved caller before each attack: pooled with the baseline, its
 * requests give a second denominator, steadier than the baseline's own p99 (the 2nd–3rd slowest of
 * ~236 requests, 6.4–10.1 ms across runs of the same code), shown beside the goal's verdict (which
 * stays on the baseline, as the issue states it).
 */
const QUIET_SECONDS = setting('BENCH_ABUSE_QUIET_SECONDS', 2);
/**
 * The nice value of the bench's main thread once the upstream's and the well-behaved caller's
 * workers are made (Linux sets it per thread; they keep 0): the thread that runs the attackers. On
 * a network the attacker is another machine; here it shares the gateway's two cores, and its own
 * work (900 KB bodies built and sent: the kernel's loopback copies are charged to the sender)
 * took the cores from the gateway and the well-behaved caller in each attack's first 0.3 s,
 * where most of the slowest requests fell. At 10 it gets what the others leave. The attackers'
 * request counts are in the table (the same at 0 and 10); BENCH_ABUSE_NICE=0 runs them at 0.
 */
const ATTACKERS_NICE = setting('BENCH_ABUSE_NICE', 10);
/** The well-behaved caller sends one query every PACE_MS (alternating one-resource and nested). */
const PACE_MS = 25;
/** The hop forwards a path holding SLOW after SLOW_MS (a slow REST call, for the held request bodies). */
const SLOW = 'slow';
const SLOW_MS = Number(process.env.SLOW_MS ?? 200);
/** Comments of 900 KB in the large pages' change request (one page asks for up to this many). */
const LARGE_PAGE = 34;
const KB = 1024;

interface Ctx {
  origin: string;
  /** The attackers' connections (undici's Pool: a fraction of `fetch`'s CPU per request). */
  pool: Pool;
  gateway: Child;
  redis: Awaited<ReturnType<typeof startRedis>>;
  attacker: string;
  admin: string;
  organizationId: string;
  spaceIds: string[];
  comment: { spaceId: string; changeRequestId: string };
  /** A change request with LARGE_PAGE comments of 900 KB. */
  largeComments: { spaceId: string; changeRequestId: string };
  attackerUserId: string;
  until: number;
}

/** What an attack did: requests sent and the answers it got, counted by HTTP status or error code. */
type Outcome = Map<string, number>;

/** An attack's requests, sent until the attack's time is up (or its count is reached). */
type Run = (outcome: Outcome) => Promise<void>;

interface Attack {
  name: string;
  /** Found after the hardening issue was filed (not in its list): its verdict is reported apart. */
  found?: true;
  /**
   * What the attacker looks up and builds before its first request (ids read through the gateway,
   * documents and bodies put together), done before the attack's window and its quiet window: on
   * the two cores the gateway shares with the bench, building a 200,000-deep body or reading a
   * 900 KB comment for its id delayed the well-behaved caller as much as the attack did, in the
   * window's first 0.3 s, and that is the bench's work, not the gateway's. Answers the attack.
   */
  prepare?(ctx: Ctx): Promise<Run>;
  /** An attack with nothing to prepare. */
  run?(ctx: Ctx, outcome: Outcome): Promise<void>;
}

const count = (o: Outcome, key: string) => o.set(key, (o.get(key) ?? 0) + 1);

/**
 * POSTs a GraphQL request (an object, or its JSON already built as a string or bytes); records its
 * status and first error code in `outcome`. The attackers run on the bench's main thread, on the
 * same two cores as the gateway and the well-behaved caller: they use undici's Pool, and a large
 * answer (a 414 KB introspection) is searched for its error code as bytes rather than decoded and parsed.
 */
async function post(ctx: Ctx, outcome: Outcome, body: unknown, headers: Record<string, string> = {}): Promise<void> {
  try {
    const res = await ctx.pool.request({
      path: '/graphql',
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });
    const code = errorCode(Buffer.from(await res.body.arrayBuffer()));
    count(outcome, `${res.statusCode}${code ? ` ${code}` : ''}`);
  } catch (error) {
    count(outcome, `failed: ${(error as Error).message.slice(0, 40)}`);
  }
}

/** The first error's code in a GraphQL answer ('' without errors), without decoding a large one whole. */
function errorCode(body: Buffer): string {
  if (body.length <= 64 * KB) {
    try {
      return JSON.parse(body.toString()).errors?.[0]?.extensions?.code ?? '';
    } catch {
      return 'not JSON';
    }
  }
  const errors = body.indexOf('"errors":[');
  return errors < 0 ? '' : (/"code":"([A-Z_]+)"/.exec(body.subarray(errors, errors + 4 * KB).toString())?.[1] ?? '');
}

/** Runs `f` in `n` concurrent loops until the attack's time is up, or `total` calls were made (the finding's count). */
async function loops(ctx: Ctx, n: number, f: (i: number) => Promise<void>, total = Infinity): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (Date.now() < ctx.until && i < total) await f(i++);
    }),
  );
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** 900 KB of one character, built once: the attacks' bodies are put together from it, not re-stringified. */
const FILL = { ' ': Buffer.alloc(900 * KB, ' '), x: Buffer.alloc(900 * KB, 'x') };

/** The JSON body `{"query": head + 900 KB of fill + tail}` (head and tail need no JSON escaping). */
const paddedBody = (head: string, fill: keyof typeof FILL, tail: string) =>
  Buffer.concat([Buffer.from(`{"query":"${head}`), FILL[fill], Buffer.from(`${tail}"}`)]);

/** Asks `/ready` twice a second until the attack's time is up, counting its answers. */
async function pollReady(ctx: Ctx, outcome: Outcome): Promise<void> {
  while (Date.now() < ctx.until) {
    const ready = await fetch(`${ctx.origin}/ready`).then(
      (r) => r.status,
      () => 0,
    );
    count(outcome, `/ready ${ready}`);
    await sleep(500);
  }
}

/** Sockets that send `head` and then never read what comes back (or trickle a body). */
async function rawSockets(ctx: Ctx, n: number, head: string, trickle: boolean, outcome: Outcome): Promise<void> {
  const { hostname, port } = new URL(ctx.origin);
  const sockets: Socket[] = [];
  for (let i = 0; i < n; i++) {
    const socket = connect(Number(port), hostname);
    socket.on('error', () => count(outcome, 'socket error'));
    socket.on('close', () => count(outcome, 'closed by the gateway'));
    socket.write(head);
    socket.pause();
    sockets.push(socket);
  }
  while (Date.now() < ctx.until) {
    if (trickle) for (const s of sockets) if (!s.destroyed) s.write('a');
    await sleep(1000);
  }
  for (const s of sockets) s.destroy();
}

const ATTACKS: Attack[] = [
  {
    name: 'GraphiQL: 5 simultaneous first visits, then 15 clients that ask for it and never read',
    async run(ctx, outcome) {
      await Promise.all(
        Array.from({ length: 5 }, () =>
          fetch(`${ctx.origin}/graphql`, { headers: { accept: 'text/html' } }).then(
            async (r) => (await r.arrayBuffer(), count(outcome, `${r.status}`)),
            () => count(outcome, 'failed'),
          ),
        ),
      );
      await rawSockets(
        ctx,
        15,
        `GET /graphql HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nAccept-Encoding: identity\r\n\r\n`,
        false,
        outcome,
      );
    },
  },
  {
    name: 'padded documents: 2 × 117 distinct `{ __typename }` padded to 900 KB, no token',
    run: (ctx, outcome) => loops(ctx, 4, (i) => post(ctx, outcome, paddedBody('{ __typename }', ' ', `#${i}`)), 234),
  },
  {
    name: 'long operation names: 2 × 35 operations named with 900 KB, each 10th followed by a read of /metrics',
    async run(ctx, outcome) {
      await loops(
        ctx,
        4,
        async (i) => {
          await post(ctx, outcome, paddedBody(`query Q${i}`, 'x', ' { __typename }'));
          if (i % 10 === 0)
            await fetch(`${ctx.origin}/metrics`).then(
              (r) => r.text(),
              () => '',
            );
        },
        70,
      );
    },
  },
  {
    name: 'APQ: 117 registrations of distinct 900 KB documents, no token',
    async prepare(ctx) {
      const { createHash } = await import('node:crypto');
      // The hash of `{ __typename }` + 900 KB of spaces, then of each document's own end.
      const padded = createHash('sha256').update('{ __typename }').update(FILL[' ']);
      return (outcome) =>
        loops(
          ctx,
          4,
          (i) => {
            const sha256Hash = padded.copy().update(`#${i}`).digest('hex');
            const extensions = `,"extensions":{"persistedQuery":{"version":1,"sha256Hash":"${sha256Hash}"}}}`;
            const body = paddedBody('{ __typename }', ' ', `#${i}`);
            return post(ctx, outcome, Buffer.concat([body.subarray(0, body.length - 1), Buffer.from(extensions)]));
          },
          117,
        );
    },
  },
  {
    name: 'response amplification: 40 of nodes(ids:) of one 900 KB comment × 100, or 30 aliases of it, two at a time',
    async prepare(ctx) {
      const id = await globalId(ctx);
      const many = JSON.stringify({
        query: `query { nodes(ids: ${JSON.stringify(Array(100).fill(id))}) { ... on Comment { body { markdown } } } }`,
      });
      const aliases = JSON.stringify({
        query: `query { ${Array.from({ length: 30 }, (_, i) => `a${i}: node(id: ${JSON.stringify(id)}) { ... on Comment { body { markdown } } }`).join(' ')} }`,
      });
      return (outcome) => loops(ctx, 2, (i) => post(ctx, outcome, i % 2 ? many : aliases, bearer(ctx.attacker)), 40);
    },
  },
  {
    name: `large REST pages: 4 at a time, comments(first: 30–${LARGE_PAGE}) { nodes { id } } over ${LARGE_PAGE} comments of 900 KB (27–31 MB of REST answers for a few KB of result)`,
    found: true,
    async run(ctx, outcome) {
      const { spaceId, changeRequestId } = ctx.largeComments;
      const query = `query($s: String!, $c: String!, $n: Int!) { changeRequest(spaceId: $s, changeRequestId: $c) { comments(first: $n) { nodes { id } } } }`;
      // Each page size is another REST call (no single-flight between them).
      await loops(ctx, 4, (i) =>
        post(ctx, outcome, { query, variables: { s: spaceId, c: changeRequestId, n: LARGE_PAGE - (i % 5) } }, bearer(ctx.attacker)),
      );
    },
  },
  {
    name: 'repeated connections: 8 at a time of organization → spaces(first: 100) → organization → spaces(first: 100) { id title } (10,000 items from two REST calls, cost 202), aliased anew each time',
    found: true,
    async prepare(ctx) {
      // The attacker's organization holds 100 spaces (made through the gateway; 6 are seeded).
      const create = `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`;
      const made: Outcome = new Map();
      for (let i = 6; i < 100; i++)
        await post(
          ctx,
          made,
          { query: create, variables: { input: { organizationId: ctx.organizationId, title: `Filler ${i}` } } },
          bearer(ctx.attacker),
        );
      const org = JSON.stringify(ctx.organizationId);
      // A new alias each time: a new document, so the response cache has none of them.
      const query = (i: number) =>
        `{ o${i}: organization(organizationId: ${org}) { spaces(first: 100) { nodes { organization { spaces(first: 100) { nodes { id title } } } } } } }`;
      return (outcome) => loops(ctx, 8, (i) => post(ctx, outcome, { query: query(i) }, bearer(ctx.attacker)));
    },
  },
  {
    name: `held request bodies: 2 rounds of 300 at once, each with a 900 KB variable and a REST call the hop delays ${SLOW_MS} ms`,
    found: true,
    async prepare(ctx) {
      // `$pad` is used (by `__type`, which makes no REST call); the space read waits at the hop.
      const body = Buffer.concat([
        Buffer.from(
          `{"query":"query($s: String!, $pad: String!) { __type(name: $pad) { name } space(spaceId: $s) { title } }","variables":{"s":"${SLOW}-space","pad":"`,
        ),
        FILL.x,
        Buffer.from('"}}'),
      ]);
      return async (outcome) => {
        // Its own connections: all 300 at once (the attackers' pool holds 64).
        const pool = new Pool(ctx.origin, { connections: 300 });
        try {
          for (let round = 0; round < 2 && Date.now() < ctx.until; round++)
            await Promise.all(Array.from({ length: 300 }, () => post({ ...ctx, pool }, outcome, body, bearer(ctx.attacker))));
        } finally {
          await pool.close();
        }
      };
    },
  },
  {
    name: `small held bodies: 1,000 connections (4 addresses × 250) looping 4 KB bodies of 1,300 \`{}\` (85 KB once parsed) beside a REST call the hop delays ${SLOW_MS} ms`,
    found: true,
    async prepare(ctx) {
      // Under 4 KiB, which the bodies budget did not count: `npm start` ran out of heap in seconds.
      const body = JSON.stringify({
        query: 'query($s: String!) { space(spaceId: $s) { title } }',
        variables: { s: `${SLOW}-space`, pad: Array.from({ length: 1_300 }, () => ({})) },
      });
      return async (outcome) => {
        // Addresses of their own (the well-behaved caller's is 127.0.0.2), each at the per-address
        // cap: all of --max-connections (1,000). The caller's new connections still get in (each
        // takes one from an address holding more: src/serverBounds.ts).
        const pools = [3, 4, 5, 6].map((n) => new Pool(ctx.origin, { connections: 250, localAddress: `127.0.0.${n}` }));
        try {
          await Promise.all(
            pools.map((pool) => loops({ ...ctx, pool }, 250, () => post({ ...ctx, pool }, outcome, body, bearer(ctx.attacker)))),
          );
        } finally {
          await Promise.all(pools.map((pool) => pool.close()));
        }
      };
    },
  },
  {
    name: 'one token spelled 8 ways: 3 rounds of 8 queries of 30 aliases × nodes(ids:) of 100 ids',
    async prepare(ctx) {
      const spellings = ['Bearer ', 'bearer ', 'BEARER ', 'Bearer  ', 'Bearer\t', ' Bearer ', 'bEaReR ', 'Bearer   '].map(
        (s) => `${s}${ctx.attacker}`,
      );
      const ids = await Promise.all(ctx.spaceIds.slice(0, 6).map((spaceId) => spaceGlobalId(ctx, spaceId)));
      const list = JSON.stringify(Array.from({ length: 100 }, (_, i) => ids[i % ids.length]));
      const body = JSON.stringify({
        query: `query { ${Array.from({ length: 30 }, (_, i) => `a${i}: nodes(ids: ${list}) { id }`).join(' ')} }`,
      });
      return (outcome) => loops(ctx, 8, (i) => post(ctx, outcome, body, { authorization: spellings[i % spellings.length] }), 24);
    },
  },
  {
    name: 'response cache: 1,000 distinct cached queries, an admin write (updateMember) every 50',
    async run(ctx, outcome) {
      await loops(
        ctx,
        2,
        async (n) => {
          if (n % 50 === 49) {
            const q = `mutation($input: UpdateMemberInput!) { updateMember(input: $input) { member { role } } }`;
            await post(
              ctx,
              outcome,
              { query: q, variables: { input: { organizationId: ctx.organizationId, userId: ctx.attackerUserId, role: 'ADMIN' } } },
              bearer(ctx.admin),
            );
          } else {
            await post(
              ctx,
              outcome,
              { query: `query Q${n} { space(spaceId: ${JSON.stringify(ctx.spaceIds[n % ctx.spaceIds.length])}) { title a${n}: title } }` },
              bearer(ctx.attacker),
            );
          }
        },
        1000,
      );
    },
  },
  {
    name: 'breaker: ten aliases a second of an id the upstream answers 500 for',
    async run(ctx, outcome) {
      const query = `query { ${Array.from({ length: 10 }, (_, i) => `a${i}: space(spaceId: "boom${i}") { title }`).join(' ')} }`;
      while (Date.now() < ctx.until) {
        void post(ctx, outcome, { query }, bearer(ctx.attacker));
        await sleep(100);
      }
    },
  },
  {
    name: 'introspection: 10 loops of the full introspection query without a token, one with a token',
    async prepare(ctx) {
      const { getIntrospectionQuery } = await import('graphql');
      const body = JSON.stringify({
        query: getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true }),
      });
      return async (outcome) => {
        await Promise.all([
          loops(ctx, 10, () => post(ctx, outcome, body)),
          loops(ctx, 1, () => post(ctx, outcome, body, bearer(ctx.attacker))),
        ]);
      };
    },
  },
  {
    name: 'bad input: 40 of @stream(initialCount: -1) or 200,000-deep variables',
    async prepare(ctx) {
      // The body's bytes, built once: `[` × 200,000, 1, `]` × 200,000.
      const depth = 200_000;
      const deep = Buffer.concat([
        Buffer.from('{"query":"query($v: JSON) { __typename }","variables":{"v":'),
        Buffer.alloc(depth, '['),
        Buffer.from('1'),
        Buffer.alloc(depth, ']'),
        Buffer.from('}}'),
      ]);
      const stream = JSON.stringify({
        query: `query { organization(organizationId: ${JSON.stringify(ctx.organizationId)}) { spaces(first: 3) { nodes @stream(initialCount: -1) { id } } } }`,
      });
      return (outcome) => loops(ctx, 2, (i) => post(ctx, outcome, i % 2 ? stream : deep, bearer(ctx.attacker)), 40);
    },
  },
  {
    name: 'slow bodies: 200 sockets sending a body one byte a second',
    run: (ctx, outcome) =>
      rawSockets(
        ctx,
        200,
        `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
        true,
        outcome,
      ),
  },
  {
    name: 'Redis frozen (SIGSTOP) for the whole attack',
    async run(ctx, outcome) {
      ctx.redis.signal('SIGSTOP');
      try {
        await pollReady(ctx, outcome);
      } finally {
        ctx.redis.signal('SIGCONT');
      }
    },
  },
  {
    name: 'Redis dead (killed) for the rest of the run',
    async run(ctx, outcome) {
      ctx.redis.signal('SIGKILL');
      await pollReady(ctx, outcome);
    },
  },
];

async function gql(ctx: Ctx, token: string, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const res = await fetch(`${ctx.origin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(token) },
    body: JSON.stringify({ query, variables }),
  });
  const json = (await res.json()) as { data?: any; errors?: unknown[] };
  if (json.errors?.length) throw new Error(`bench: ${JSON.stringify(json.errors).slice(0, 300)}`);
  return json.data;
}

const globalId = async (ctx: Ctx) =>
  (
    await gql(ctx, ctx.attacker, FIRST_COMMENT_ID, {
      s: ctx.comment.spaceId,
      c: ctx.comment.changeRequestId,
    })
  ).changeRequest.comments.nodes[0].id as string;

const spaceGlobalId = async (ctx: Ctx, spaceId: string) =>
  (await gql(ctx, ctx.attacker, `query($s: String!) { space(spaceId: $s) { id } }`, { s: spaceId })).space.id as string;

/**
 * The well-behaved caller, in a worker thread (bench/victimWorker.mjs) so that the attackers' work on
 * this event loop (900 KB bodies built and stringified, introspection answers parsed) never delays
 * its requests or their timing: `run(until)` sends one query every PACE_MS until `until` and answers
 * its p50/p99 (ms), failures, and its two slowest requests with when they were sent.
 */
async function startVictim(origin: string, token: string, spaceIds: string[], organizationId: string) {
  const worker = new Worker(new URL('./victimWorker.mjs', import.meta.url), {
    workerData: { origin, token, spaceIds, organizationId, paceMs: PACE_MS, queries: { one: ONE_RESOURCE, nested: NESTED } },
  });
  const answer = <T>() =>
    new Promise<T>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  return {
    async run(until: number) {
      const answered = answer<{ times: number[]; starts: number[]; what: string[]; failures: number }>();
      worker.postMessage({ until });
      const { times, starts, what, failures } = await answered;
      // The p99 of ~200 requests is their 2nd slowest: which two, and when in the window they were sent.
      const slowest = times
        .map((ms, i) => ({ ms, at: starts[i], what: what[i] }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 2)
        .map(({ ms, at, what }) => `${f1(ms)} at ${f2(at / 1000)} s (${what})`)
        .join(', ');
      return { p50: median(times), p99: percentile(times, 0.99), n: times.length, failures, times, slowest };
    },
    async stop() {
      const stopped = answer();
      worker.postMessage('stop');
      await Promise.race([stopped, sleep(3000)]);
      await worker.terminate();
    },
  };
}

/** CPU time (user + system) of a process's main thread, the one running its event loop, in ms. */
function mainThreadCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * The gateway's event-loop delay since the last call (ms): prom-client's monitor, which /metrics
 * reads and resets at each scrape.
 */
async function loopDelay(origin: string): Promise<{ p99: number; max: number }> {
  const text = await fetch(`${origin}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  const seconds = (name: string) => Number(new RegExp(`^nodejs_eventloop_lag_${name}_seconds (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { p99: seconds('p99') * 1000, max: seconds('max') * 1000 };
}

async function alive(origin: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpRequest(`${origin}/health`, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.setTimeout(5000, () => (req.destroy(), resolve(false)));
    req.end();
  });
}

export async function runAbuse(): Promise<void> {
  const started = performance.now();
  const host = `${machine()}; light load: ${await lightLoad(PACE_MS)}`;
  const upstream = await startUpstream(
    {
      spaces: 6,
      changeRequests: 2,
      comments: 0,
      replies: 0,
      callers: 2,
      bigComment: 900 * KB,
      largeComments: { count: LARGE_PAGE, bytes: 900 * KB },
    },
    0,
  );
  const redisPort = await freePort();
  const redis = await startRedis(redisPort);
  const hop = await startProxy(upstream.url, 'boom', { word: SLOW, ms: SLOW_MS });
  let gateway: Child | undefined;
  let pool: Pool | undefined;
  let victim: Awaited<ReturnType<typeof startVictim>> | undefined;
  try {
    gateway = await startGateway([
      '--upstream-url',
      `${hop.url}${new URL(upstream.url).pathname}`,
      '--redis-url',
      `redis://127.0.0.1:${redisPort}`,
      // Ten minutes: the well-behaved caller's results stay cached for the whole run. With 30 s, an
      // expiry fell in the same attack's window on every run (the schedule is fixed: `bad input`,
      // its nested query a miss 0.02–0.14 s in), and was counted against that attack.
      '--response-cache-ttl-ms',
      '600000',
    ]);
    const origin = new URL(gateway.url).origin;
    const { tokens, organizationId, spaceIds, bigComment, largeComments, userIds } = upstream.seeded;
    const [admin, good, attacker] = tokens;
    const ctx: Ctx = {
      origin,
      pool: (pool = new Pool(origin, { connections: 64 })),
      gateway,
      redis,
      attacker,
      admin,
      organizationId,
      spaceIds,
      comment: bigComment!,
      largeComments: largeComments!,
      until: 0,
      attackerUserId: userIds[2],
    };
    // Warm-up, then the baseline.
    victim = await startVictim(origin, good, spaceIds, organizationId);
    // From here on this thread runs the attackers (the workers made above keep their priority).
    if (ATTACKERS_NICE) setPriority(ATTACKERS_NICE);
    await victim.run(Date.now() + 2000);
    await loopDelay(origin);
    const baselineCpu = gateway.cpuMs();
    const baselineLoopCpu = mainThreadCpuMs(gateway.pid);
    const baseline = await victim.run(Date.now() + BASELINE_SECONDS * 1000);
    const baselineGateway = {
      cpu: gateway.cpuMs() - baselineCpu,
      loopCpu: mainThreadCpuMs(gateway.pid) - baselineLoopCpu,
      delay: await loopDelay(origin),
    };
    const { times: baselineTimes, ...baselineFigures } = baseline;
    console.log(`bench: abuse baseline ${JSON.stringify(baselineFigures)}`);
    const quiet = [...baselineTimes];
    const rows: Array<Array<string | number>> = [];
    let allMet = true;
    /** The attacks found since the issue: met, and run. */
    const found = { met: 0, run: 0 };
    for (const attack of ATTACKS.filter(only)) {
      const outcome: Outcome = new Map();
      const run: Run = attack.prepare ? await attack.prepare(ctx) : (o) => attack.run!(ctx, o);
      quiet.push(...(await victim.run(Date.now() + QUIET_SECONDS * 1000)).times);
      ctx.until = Date.now() + SECONDS * 1000;
      await loopDelay(origin); // resets the gateway's event-loop delay histogram
      const benchCpu = process.cpuUsage();
      const cpu = gateway.cpuMs();
      const loopCpu = mainThreadCpuMs(gateway.pid);
      const [during] = await Promise.all([
        victim.run(ctx.until),
        run(outcome).catch((e) => void count(outcome, `attack failed: ${(e as Error).message.slice(0, 60)}`)),
      ]);
      const benchUsed = process.cpuUsage(benchCpu);
      const up = await alive(origin);
      const gatewayCpu = gateway.cpuMs() - cpu;
      const gatewayLoopCpu = mainThreadCpuMs(gateway.pid) - loopCpu;
      const delay = up ? await loopDelay(origin) : undefined;
      const ok = up && during.failures === 0 && during.p99 <= 3 * baseline.p99 && during.p99 <= 1000;
      if (attack.found) {
        found.run++;
        if (ok) found.met++;
      } else allMet &&= ok;
      const answers = [...outcome]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([k, v]) => `${v} × ${k}`)
        .join(', ');
      rows.push([
        attack.found ? `† ${attack.name}` : attack.name,
        answers || '–',
        `${f1(during.p50)} / ${f1(during.p99)} (${during.failures} failed of ${during.n}); ${during.slowest}`,
        `${f2(during.p99 / baseline.p99)} ×`,
        during.p99,
        `${f1(gatewayCpu / 1000)} s / ${f1(gatewayLoopCpu / 1000)} s, ${delay ? `${f1(delay.p99)} / ${f1(delay.max)}` : '–'}; ${f1((benchUsed.user + benchUsed.system) / 1e6)} s`,
        up ? 'yes' : '**no**',
        ok ? 'met' : '**not met**',
      ]);
      console.log(
        `bench: ${attack.name}: ${JSON.stringify({ ...during, times: undefined })} alive=${up} cpu=${gatewayCpu} delay=${JSON.stringify(delay)} ${answers}`,
      );
      if (!up) {
        console.log(`bench: the gateway died; its last output:\n${gateway.output().slice(-2000)}`);
        break;
      }
    }
    // Against the pooled quiet windows (the baseline and the window before each attack).
    const quietP99 = percentile(quiet, 0.99);
    for (const row of rows) row[4] = `${f2(Number(row[4]) / quietP99)} ×`;
    // Read before stopping: a dead gateway has no memory to report (NaN, so the goal is not met).
    const memory = gateway.memory();
    const memoryOk = mib(memory.hwm) <= 300;
    const body = [
      '## Abuse (`npm run bench -- abuse`)',
      '',
      `Machine: ${host}. Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${f1((performance.now() - started) / 1000)} s. One gateway as \`npm start\` runs it, with Redis and a 10-minute response cache (the well-behaved caller's results stay cached through the run), over the embedded upstream (no added latency) behind a hop that answers 500 for ids holding \`boom\`. Each attack runs for ${SECONDS} s while a well-behaved caller (its own token) sends a one-resource query and the nested query in turn, one every ${PACE_MS} ms, from a worker thread of the bench (its own event loop, so the attackers' work in the bench's main thread never delays it or its timing) and a loopback address of its own (127.0.0.2: the per-address bounds are the attackers'). The attackers look up and build what they send (ids, documents, bodies) before the quiet window that precedes their attack, and their thread runs at nice ${ATTACKERS_NICE}: on a network the attacker is another machine, here its work shares the gateway's two cores (\`BENCH_ABUSE_NICE=0\` runs it at the gateway's priority).`,
      '',
      `Well-behaved caller's baseline (${BASELINE_SECONDS} s, no attack): p50 ${f1(baseline.p50)} ms, p99 ${f1(baseline.p99)} ms (its two slowest: ${baseline.slowest}), ${baseline.failures} failed of ${baseline.n}; the gateway used ${f1(baselineGateway.cpu / 1000)} s of CPU (${f1(baselineGateway.loopCpu / 1000)} s on its event loop's thread), its event-loop delay p99 / max ${f1(baselineGateway.delay.p99)} / ${f1(baselineGateway.delay.max)} ms. The gateway's CPU (user + system, all its threads, and its main thread's alone: the event loop's work) and event-loop delay (prom-client's \`nodejs_eventloop_lag_p99_seconds\` / \`_max_seconds\`, read from /metrics before and after each attack; 10 ms resolution) tell what the gateway itself did, whatever else the machine ran; the bench's own CPU (its main thread's attackers and the well-behaved caller's worker, \`process.cpuUsage()\`) is what it took of the same two cores. For information beside the goal's verdict, the caller's p99 is also given against its pooled quiet windows (the baseline and ${QUIET_SECONDS} s without attack before each attack: ${quiet.length} requests, p50 ${f1(median(quiet))} ms, p99 ${f1(quietP99)} ms), a steadier denominator than the baseline's 2nd–3rd slowest request.`,
      '',
      table(
        [
          'attack',
          "attacker's answers (most frequent)",
          'well-behaved p50 / p99 (ms); its two slowest requests (ms, when they were sent: s into the attack, which query, and whether the response cache had it)',
          'p99 / baseline',
          'p99 / pooled quiet p99',
          "gateway CPU: all threads / event loop; event-loop delay p99 / max (ms); the bench's own CPU",
          'gateway alive',
          'p99 ≤ 3 × baseline and ≤ 1 s, no failure',
        ],
        rows,
      ),
      '',
      `Gateway peak RSS (VmHWM) over the whole run: ${f1(mib(memory.hwm))} MiB (goal ≤ 300: ${memoryOk ? 'met' : '**not met**'}). Every attack of the issue's list met: ${allMet ? 'yes' : '**no**'}. Attacks found since (marked †, verdict apart): ${found.met} of ${found.run} met.`,
    ].join('\n');
    console.log(body);
    if (ONLY.length) console.log('bench: BENCH_ABUSE_ONLY is set: docs/BENCHMARKS.md left as it is');
    else writeSection('abuse', body);
  } finally {
    await victim?.stop();
    await pool?.close();
    await gateway?.stop();
    // DUMP=file: the gateway's output (e.g. with BENCH_GATEWAY_NODE_FLAGS=--trace-gc), as profile.ts has it.
    if (process.env.DUMP && gateway) (await import('node:fs')).writeFileSync(process.env.DUMP, gateway.output());
    await hop.stop();
    redis.stop();
    await upstream.stop();
  }
}
