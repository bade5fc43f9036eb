/**
 * `npm run bench [-- MODE]` (or BENCH_MODE=MODE): bounded, self-stopping runs that print a table
 * and write it to docs/BENCHMARKS.md, each mode in its own section.
 *  - default: the gateway against a plain proxy hop and direct REST, REST calls and depth,
 *    latency against the REST floor, bursts, memory (issue 12; see default.ts);
 *  - soak: mixed queries, mutations and subscriptions at moderate load for BENCH_SOAK_SECONDS
 *    (300): errors and RSS growth (issue 9; soak.ts);
 *  - overhead: throughput with metrics and tracing on against off (issue 10; overhead.ts);
 *  - abuse: the attacks of the hardening issue against one gateway with Redis, while a
 *    well-behaved caller measures its latency (issue 18; abuse.ts);
 *  - scaleout: two replicas sharing a response cache in Redis (issue 11; scaleout.ts).
 */
export {};

const MODES: Record<string, { run: () => Promise<void>; limitSeconds: () => number }> = {
  default: { run: async () => (await import('./default.js')).runDefault(), limitSeconds: () => 480 },
  soak: {
    run: async () => (await import('./soak.js')).runSoak(),
    limitSeconds: () => Number(process.env.BENCH_SOAK_SECONDS ?? 300) + 240,
  },
  overhead: { run: async () => (await import('./overhead.js')).runOverhead(), limitSeconds: () => 300 },
  abuse: { run: async () => (await import('./abuse.js')).runAbuse(), limitSeconds: () => 300 },
  scaleout: { run: async () => (await import('./scaleout.js')).runScaleout(), limitSeconds: () => 300 },
};

const name = process.argv[2] ?? process.env.BENCH_MODE ?? 'default';
const mode = MODES[name];
if (!mode) {
  console.error(`bench: unknown mode ${name} (one of ${Object.keys(MODES).join(', ')})`);
  process.exit(2);
}

const guard = setTimeout(() => {
  console.error(`bench: still running after ${mode.limitSeconds()} s, stopping`);
  process.exit(1);
}, mode.limitSeconds() * 1000);
guard.unref();

mode.run().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
