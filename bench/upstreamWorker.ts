/**
 * The embedded upstream in its own thread (its own event loop, so the gateway and the load
 * generator do not slow it down, nor it them): seeds an in-memory database with no latency, then
 * serves it on two loopback ports: `url` with no added latency (throughput) and `slowUrl` with
 * `latencyMs` per response (latency, call counts). Posts `{url, slowUrl, seeded}` when ready.
 *
 * Messages: `{type: 'record', on}` starts/stops recording the calls the servers receive (through
 * Node's `http.server.*` diagnostics channels, so the upstream's code is untouched), `{type: 'take'}`
 * answers `{calls}` (recorded since the last take) and `'stop'` stops, then answers `'stopped'`.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../src/upstream/db/index.js';
import { buildUpstream } from '../src/upstream/server.js';
import { seed, type Shape } from './seed.js';

/** One call the upstream received: which server (port), method, URL, caller, and when (epoch ms). */
export interface RecordedCall {
  port: number;
  method: string;
  url: string;
  /** A short hash of the Authorization header (never the token). */
  caller: string;
  start: number;
  end: number;
}

const { shape, latencyMs } = workerData as { shape: Shape; latencyMs: number };
const db = openDatabase(':memory:');

const seeding = buildUpstream({ db });
const seeded = await seed(db, await seeding.start(), shape);
await seeding.stop();

const fast = buildUpstream({ db });
const slow = buildUpstream({ db, latencyMs });
const [url, slowUrl] = [await fast.start(), await slow.start()];

const now = () => performance.timeOrigin + performance.now();
const open = new WeakMap<IncomingMessage, RecordedCall>();
let calls: RecordedCall[] = [];
const onStart = (message: unknown) => {
  const { request, socket } = message as { request: IncomingMessage; socket: { localPort: number } };
  const auth = request.headers.authorization ?? '';
  const caller = auth ? createHash('sha256').update(auth).digest('hex').slice(0, 8) : '-';
  open.set(request, { port: socket.localPort, method: request.method ?? '', url: request.url ?? '', caller, start: now(), end: 0 });
};
const onFinish = (message: unknown) => {
  const { request } = message as { request: IncomingMessage; response: ServerResponse };
  const call = open.get(request);
  if (!call) return;
  call.end = now();
  calls.push(call);
};

parentPort!.postMessage({ url, slowUrl, seeded });
parentPort!.on('message', async (message) => {
  if (message === 'stop') {
    await Promise.all([fast.stop(), slow.stop()]);
    db.close();
    parentPort!.postMessage('stopped');
  } else if (message.type === 'record') {
    if (message.on) {
      subscribe('http.server.request.start', onStart);
      subscribe('http.server.response.finish', onFinish);
    } else {
      unsubscribe('http.server.request.start', onStart);
      unsubscribe('http.server.response.finish', onFinish);
    }
  } else if (message.type === 'take') {
    parentPort!.postMessage({ calls });
    calls = [];
  }
});
