/**
 * The embedded upstream in its own thread (its own event loop, so the gateway and the load
 * generator do not slow it down, nor it them): seeds an in-memory database with no latency, then
 * serves it on a loopback port with `latencyMs` per response. Posts `{url, seeded}` when ready;
 * stops on the message `'stop'`, then posts `'stopped'`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../src/upstream/db/index.js';
import { buildUpstream } from '../src/upstream/server.js';
import { seed, type Shape } from './seed.js';

const { shape, latencyMs } = workerData as { shape: Shape; latencyMs: number };
const db = openDatabase(':memory:');

const seeding = buildUpstream({ db });
const seeded = await seed(db, await seeding.start(), shape);
await seeding.stop();

const upstream = buildUpstream({ db, latencyMs });
const url = await upstream.start();
parentPort!.postMessage({ url, seeded });
parentPort!.on('message', async (message) => {
  if (message !== 'stop') return;
  await upstream.stop();
  db.close();
  parentPort!.postMessage('stopped');
});
