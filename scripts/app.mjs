/**
 * `npm run app`: the example frontend (examples/web, React + Relay) on the graph, in one command.
 *
 * 1. Installs the app's packages (`npm ci` in examples/web) when they are missing or older than its
 *    lockfile, and builds it (`npm run build`: relay-compiler, tsc, vite) when dist/ is missing or
 *    older than its sources, its settings or the root schema.graphql.
 * 2. Starts `npm start`'s CLI (scripts/start.mjs: the embedded upstream and the gateway) with the
 *    app's manifest: `--persisted-operations examples/web/persisted-documents.json --persisted-only`,
 *    and passes its output through (`GraphQL:`, `REST:`, `Demo token` lines).
 * 3. Serves the built app on --port (a small node:http server): `/graphql` and `/graphql/stream`
 *    are proxied to the gateway (one origin: no CORS), and `/session.json` names the demo admin's
 *    token to a page opened on this machine only (the loopback rule of GraphiQL, proxied requests
 *    excluded). Prints `App: <url>`.
 *
 * Plain JavaScript, like start.mjs. Ctrl-C / SIGTERM stops the app server and the gateway (which drains).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as forward } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = join(root, 'examples', 'web');
const dist = join(web, 'dist');
const manifest = join(web, 'persisted-documents.json');
/** Written after each successful build: its time is the build's. */
const stamp = join(dist, '.built');

const HELP = `usage: npm run app -- [options]

  --port <n>            Port of the app (default 3000)
  --gateway-port <n>    Port of the gateway (default 4000)
  --upstream-port <n>   Port of the embedded REST API (default 4010)
  --db <file>           SQLite file of the embedded REST API, or :memory: (default as npm start)
  --upstream-url <url>  Upstream REST API base URL ending in /v1 (no embedded upstream, no demo token)`;

function options() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        port: { type: 'string', default: '3000' },
        'gateway-port': { type: 'string', default: '4000' },
        'upstream-port': { type: 'string', default: '4010' },
        db: { type: 'string' },
        'upstream-url': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    stop(2, `${error.message}\n\n${HELP}`);
  }
  if (parsed.help) {
    console.log(HELP);
    process.exit(0);
  }
  for (const flag of ['port', 'gateway-port', 'upstream-port']) {
    const port = Number(parsed[flag]);
    if (!/^\d+$/.test(parsed[flag]) || port > 65535)
      stop(2, `Configuration error: --${flag} must be a port number (0-65535), got "${parsed[flag]}"`);
  }
  return parsed;
}

function stop(code, message) {
  console.error(message);
  process.exit(code);
}

/** Newest modification time (ms) of `paths` (files, or folders walked; generated artifacts skipped). */
function newest(paths) {
  let latest = 0;
  for (const path of paths) {
    if (!existsSync(path)) continue;
    if (!statSync(path).isDirectory()) latest = Math.max(latest, statSync(path).mtimeMs);
    else
      for (const item of readdirSync(path, { withFileTypes: true, recursive: true })) {
        const dir = item.parentPath ?? item.path;
        if (item.isFile() && !dir.includes('__generated__')) latest = Math.max(latest, statSync(join(dir, item.name)).mtimeMs);
      }
  }
  return latest;
}

/** npm in examples/web, without the root's npm run variables (so it works on the app's own package). */
function npm(args) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_(package_|lifecycle_|config_local_prefix)/i.test(key)),
  );
  const run = spawnSync('npm', args, { cwd: web, env, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });
  if (run.status !== 0) stop(1, `\`npm ${args.join(' ')}\` in examples/web failed: see the output above`);
}

function installAndBuild() {
  const installed = join(web, 'node_modules', '.package-lock.json');
  if (!existsSync(installed) || statSync(join(web, 'package-lock.json')).mtimeMs > statSync(installed).mtimeMs) {
    console.error('Installing the app (npm ci in examples/web)…');
    npm(['ci', '--no-audit', '--no-fund']);
  }
  const inputs = ['src', 'index.html', 'package.json', 'package-lock.json', 'relay.config.json', 'vite.config.ts', 'tsconfig.json'].map(
    (f) => join(web, f),
  );
  if (!existsSync(stamp) || !existsSync(manifest) || newest([...inputs, join(root, 'schema.graphql')]) > statSync(stamp).mtimeMs) {
    console.error('Building the app (npm run build in examples/web)…');
    npm(['run', 'build', '--silent']);
    writeFileSync(stamp, `${new Date().toISOString()}\n`);
  }
}

/**
 * The demo token is for a page opened on this machine, by the gateway's own rule (GraphiQL's:
 * src/gateway/lib/localVisit.ts), loaded from dist/ once the gateway child has built it.
 */
const openedHere = (state, req) =>
  state.isLocalVisit?.({ host: req.headers.host ?? '', headerNames: Object.keys(req.headers), header: (name) => req.headers[name] }) ??
  false;

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

function serveFile(res, path) {
  let file;
  try {
    file = path === '/' ? join(dist, 'index.html') : normalize(join(dist, decodeURIComponent(path)));
  } catch {
    file = dist; // a malformed escape: not found
  }
  if (!file.startsWith(dist + sep) || !existsSync(file) || statSync(file).isDirectory() || file === stamp) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    return res.end('Not found');
  }
  // Vite's assets carry a content hash in their names: cached for good; the page itself is revalidated.
  const cache = path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': cache });
  createReadStream(file).pipe(res);
}

/** The gateway's answer to the page, streamed (Server-Sent Events included), its client's disconnect passed on. */
function proxy(req, res, gateway) {
  const headers = { ...req.headers, host: gateway.host, via: `1.1 docs-graph-app` };
  const upstream = forward({ host: gateway.hostname, port: gateway.port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ errors: [{ message: 'The gateway is not reachable', extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] }));
  });
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}

function appServer(state) {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/graphql' || path.startsWith('/graphql/')) {
      if (!state.gateway) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        return res.end(JSON.stringify({ errors: [{ message: 'The gateway is starting', extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] }));
      }
      return proxy(req, res, state.gateway);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' });
      return res.end();
    }
    if (path === '/session.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return res.end(JSON.stringify({ token: state.demoToken && openedHere(state, req) ? state.demoToken : null }));
    }
    serveFile(res, path);
  });
}

async function main() {
  const flags = options();
  installAndBuild();

  const state = { gateway: null, demoToken: null };
  const server = appServer(state);
  await new Promise((resolve) => {
    server.once('error', (error) =>
      stop(
        1,
        error.code === 'EADDRINUSE'
          ? `Cannot start the app on port ${flags.port}: the port is already in use (choose another with --port)`
          : `Cannot start the app: ${error.message}`,
      ),
    );
    server.listen(Number(flags.port), '127.0.0.1', resolve);
  });

  const args = [
    'start',
    '--port',
    flags['gateway-port'],
    '--upstream-port',
    flags['upstream-port'],
    '--persisted-operations',
    manifest,
    '--persisted-only',
  ];
  if (flags.db !== undefined) args.push('--db', flags.db);
  if (flags['upstream-url'] !== undefined) args.push('--upstream-url', flags['upstream-url']);
  const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  createInterface({ input: child.stdout }).on('line', (line) => {
    console.log(line);
    const token = line.match(/^Demo token: (\S+)/);
    if (token) {
      state.demoToken = token[1];
      // The child built dist/ before it printed this line.
      state.loading = import(pathToFileURL(join(root, 'dist', 'gateway', 'lib', 'localVisit.js')).href).then(
        (m) => (state.isLocalVisit = m.isLocalVisit),
      );
    }
    const graphql = line.match(/^GraphQL: (\S+)/);
    if (graphql) {
      const url = new URL(graphql[1]);
      // The gateway listens on --host (127.0.0.1 by default); "localhost" may resolve to ::1 first.
      state.gateway = { host: url.host, hostname: url.hostname === 'localhost' ? '127.0.0.1' : url.hostname, port: url.port };
      void Promise.resolve(state.loading).then(() => console.log(`App: http://localhost:${server.address().port}/`));
    }
  });

  let stopping = false;
  const shutdown = (code) => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    else process.exit(code);
  };
  child.on('exit', (code) => {
    if (!stopping) {
      stopping = true;
      server.close();
      server.closeAllConnections();
    }
    process.exit(code ?? 0);
  });
  process.on('SIGINT', () => shutdown(0));
  process.on('SIGTERM', () => shutdown(0));
}

await main();
