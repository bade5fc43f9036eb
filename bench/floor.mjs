/**
 * The REST floor's client in a process of its own (`fork('bench/floor.mjs', [baseUrl])`), so its
 * calls cross processes as the gateway's do: in the bench's own process it would share a process
 * with the upstream (a worker thread), whose answers then wake a thread of the same process, far
 * cheaper on a small VM than waking another process (about 1 ms each here), and the floor would
 * look that much lower. The same keep-alive undici pool as the gateway's; the nested query's calls
 * level by level, each level's concurrently (bench/workloads.ts restFloor).
 *
 * Messages: `{type: 'run', token, organizationId, count, parallel}` runs `count` rounds of
 * `parallel` floors at once and answers `{times}` (ms per round, measured here); `'stop'` closes.
 */
import { Pool } from 'undici';

const base = new URL(process.argv[2]);
const pool = new Pool(base.origin, { connections: 64 });

async function get(token, path) {
  const res = await pool.request({ path: `${base.pathname}${path}`, method: 'GET', headers: { authorization: `Bearer ${token}` } });
  const body = await res.body.json();
  if (res.statusCode !== 200) throw new Error(`GET ${path} answered ${res.statusCode}`);
  return body;
}

async function floor(token, organizationId) {
  const spaces = await get(token, `/orgs/${organizationId}/spaces?limit=5`);
  return Promise.all(spaces.items.map((s) => get(token, `/spaces/${s.id}/change-requests?limit=3`)));
}

process.on('message', async (message) => {
  if (message === 'stop') {
    await pool.close();
    process.exit(0);
  }
  const { token, organizationId, count, parallel = 1 } = message;
  const times = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await Promise.all(Array.from({ length: parallel }, () => floor(token, organizationId)));
      times.push(performance.now() - started);
    }
    process.send({ times });
  } catch (error) {
    process.send({ error: String(error) });
  }
});
process.send({ ready: true });
