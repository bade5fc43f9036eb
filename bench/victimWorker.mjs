/**
 * The abuse bench's well-behaved caller in a worker thread of its own (`new Worker('bench/victimWorker.mjs',
 * {workerData})`), so that its latency is the gateway's and not the bench's: the attackers run on the
 * bench's main event loop, where they build and stringify 900 KB bodies, parse 414 KB introspection
 * answers and build 200,000-deep strings; a victim on that loop would wait behind them and count
 * that wait as the gateway's. A worker has its own event loop (and its own undici pool).
 *
 * workerData: `{origin, token, spaceIds, organizationId, paceMs, queries: {one, nested}}`.
 * Messages: `{until}` sends one query every `paceMs` (one-resource and nested in turn) until the
 * epoch ms `until`, then answers `{times, starts, what, failures}` (ms of each answered query,
 * measured here, when it was sent (ms after the run's start) and what it was (`one` or `nested`,
 * and `hit` or `miss` when the response cache said), in the same order);
 * `'stop'` closes the pool and answers `'stopped'`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

const { origin, token, spaceIds, organizationId, paceMs, queries } = workerData;
// From a loopback address of its own (127.0.0.2): on a network the attackers are other machines,
// and the gateway's per-address bounds (connections, anonymous rate limit) are theirs, not its.
const pool = new Pool(origin, { connections: 8, localAddress: '127.0.0.2' });
const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };

async function run(until) {
  const times = [];
  const starts = [];
  const what = [];
  let failures = 0;
  const pending = [];
  const begun = performance.now();
  for (let i = 0; Date.now() < until; i++) {
    const body = JSON.stringify(
      i % 2
        ? { query: queries.nested, variables: { org: organizationId } }
        : { query: queries.one, variables: { space: spaceIds[i % spaceIds.length] } },
    );
    const started = performance.now();
    pending.push(
      pool
        .request({ path: '/graphql', method: 'POST', headers, body })
        .then(async (res) => {
          const answer = await res.body.json();
          if (res.statusCode !== 200 || answer.errors?.length) failures++;
          times.push(performance.now() - started);
          starts.push(started - begun);
          const hit = answer.extensions?.responseCache?.hit;
          what.push(`${i % 2 ? 'nested' : 'one'}${typeof hit === 'boolean' ? (hit ? ', hit' : ', miss') : ''}`);
        })
        .catch(() => void failures++),
    );
    await sleep(paceMs);
  }
  await Promise.all(pending);
  return { times, starts, what, failures };
}

parentPort.on('message', async (message) => {
  if (message === 'stop') {
    await pool.close();
    parentPort.postMessage('stopped');
    return;
  }
  parentPort.postMessage(await run(message.until));
});
