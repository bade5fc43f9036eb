/**
 * How much slower this machine runs code at a light load: a fixed piece of JavaScript (serializing,
 * parsing and walking objects, as a request's work does) timed back to back, then once every
 * `pace` ms, in a process of its own with nothing else to do (as a gateway between a light load's
 * requests). `node bench/lightLoad.mjs [pace ms]` prints `LIGHT: <back to back ms> <paced ms>`.
 * On the shared 2-core virtual machines of docs/BENCHMARKS-history.md the paced runs take 2–3 times as
 * long (caches, and the host's scheduling of a virtual CPU that sleeps between them): a light
 * load's latency measures that as much as the code.
 */
const pace = Number(process.argv[2] ?? 25);
const RUNS = 200;
const result = {
  data: {
    space: { id: 'space-1', title: 'A space title', visibility: 'public', urls: { app: 'https://app.example/s/1', published: null } },
  },
};
const objects = Array.from({ length: 20_000 }, (_, i) => ({ i, name: `object-${i}`, inner: { value: i * 2 } }));

function work() {
  let total = 0;
  for (let k = 0; k < 200; k++) total += JSON.parse(JSON.stringify(result)).data.space.title.length;
  for (const o of objects) total += o.inner.value;
  return total;
}

const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(gap) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
    if (gap) await new Promise((resolve) => setTimeout(resolve, gap));
  }
  return median(times);
}

// Warm up (the code optimized), then back to back, then paced.
for (let i = 0; i < RUNS; i++) work();
const loaded = await timed(0);
const paced = await timed(pace);
console.log(`LIGHT: ${loaded.toFixed(3)} ${paced.toFixed(3)}`);
