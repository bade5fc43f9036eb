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
 *
 * `node bench/floor.mjs <baseUrl> --serve` (startHopFloor): the floor behind one HTTP hop, the least
 * any gateway in a process of its own adds to it. It answers each `POST /` of a GraphQL body
 * (`{variables: {org}}`, the caller's `Authorization` passed on) with the floor's data as
 * `{data: {organization: {spaces: {nodes}}}}`, and prints `FLOOR: <url>` once it listens.
 */
import { createServer } from 'node:http';
import { Pool } from 'undici';

const base = new URL(process.argv[2]);
const pool = new Pool(base.origin, { connections: 64 });

async function get(token, path, authorization = `Bearer ${token}`) {
  const res = await pool.request({ path: `${base.pathname}${path}`, method: 'GET', headers: { authorization } });
  const body = await res.body.json();
  if (res.statusCode !== 200) throw new Error(`GET ${path} answered ${res.statusCode}`);
  return body;
}

async function floor(token, organizationId, authorization) {
  const spaces = await get(token, `/orgs/${organizationId}/spaces?limit=5`, authorization);
  return Promise.all(spaces.items.map((s) => get(token, `/spaces/${s.id}/change-requests?limit=3`, authorization)));
}

if (process.argv[3] === '--serve') {
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    try {
      const { variables } = JSON.parse(Buffer.concat(chunks).toString());
      const pages = await floor(undefined, variables.org, req.headers.authorization);
      const nodes = pages.map((page) => ({ changeRequests: { nodes: page.items } }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { organization: { spaces: { nodes } } } }));
    } catch (error) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: String(error) }] }));
    }
  });
  server.listen(0, '127.0.0.1', () => console.log(`FLOOR: http://127.0.0.1:${server.address().port}/`));
  process.on('SIGTERM', () => server.close(() => pool.close().then(() => process.exit(0))));
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
process.send?.({ ready: true });
