/**
 * The least any gateway can add: a plain node:http reverse proxy to one upstream (keep-alive
 * agent, bodies piped, no parsing). `node bench/proxy.mjs <upstream origin or URL> [fail [slow ms]]` prints
 * `PROXY: <url>` once it listens on a loopback port chosen by the OS. With `fail`, it answers 500
 * itself for any path holding that word (the abuse bench's id that breaks the upstream); with
 * `slow` and `ms` (`node bench/proxy.mjs <url> boom slow 200`), it forwards a path holding `slow`
 * after `ms` (the abuse bench's slow REST call).
 */
import { Agent, createServer, request } from 'node:http';

const target = new URL(process.argv[2]);
const fail = process.argv[3];
const slow = process.argv[4];
const slowMs = Number(process.argv[5] ?? 0);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

const server = createServer((req, res) => {
  if (fail && req.url.includes(fail)) {
    req.resume();
    res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 500, message: fail } }));
    return;
  }
  if (slow && req.url.includes(slow)) {
    req.pause();
    setTimeout(() => forward(req, res), slowMs);
    return;
  }
  forward(req, res);
});

function forward(req, res) {
  const upstream = request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.headersSent || res.writeHead(502).end());
  req.pipe(upstream);
}
server.listen(0, '127.0.0.1', () => console.log(`PROXY: http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
