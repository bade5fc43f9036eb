/**
 * `npm run app`: the example frontend (examples/web, React + Relay) on the graph, in one command.
 *
 * 1. Installs the app's packages (`npm ci` in examples/web) when they are missing or older than its
 *    lockfile, and builds it (`npm run build`: relay-compiler, tsc, vite) when dist/ is missing or
 *    older than its sources, its settings or the root schema.graphql.
 * 2. Builds the gateway's dist/ when it is missing or stale (scripts/dist.mjs, as `npm start` does)
 *    and loads from it the gateway code the app server uses.
 * 3. Serves the built app on --port (scripts/appServer.mjs, a small node:http server, bounded
 *    after the gateway's settings): `/graphql` and `/graphql/stream` are proxied to the gateway
 *    (one origin: no CORS), and `/session.json` names the demo admin's token to a page opened on
 *    this machine only (the loopback rule of GraphiQL, proxied requests excluded).
 * 4. Starts `npm start`'s CLI (scripts/start.mjs: the embedded upstream and the gateway) with the
 *    app's manifest: `--persisted-operations examples/web/persisted-documents.json --persisted-only`,
 *    and passes its output through (`GraphQL:`, `REST:`, `Demo token` lines). Prints `App: <url>`.
 *
 * Plain JavaScript, like start.mjs. Ctrl-C / SIGTERM stops the app server and the gateway (which drains).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { appBounds, appServer } from './appServer.mjs';
import { buildDist, dist as gatewayDist, root } from './dist.mjs';

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

async function main() {
  const flags = options();
  installAndBuild();

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

  // The gateway's code the app server uses, compiled: the gateway's child process then finds dist/ built.
  buildDist();
  const load = (...path) => import(pathToFileURL(join(gatewayDist, ...path)).href);
  const [{ isLocalVisit }, { PAGE_HEADERS }, { boundHttpServer }, { parseConfig }] = await Promise.all([
    load('gateway', 'lib', 'localVisit.js'),
    load('gateway', 'lib', 'pageHeaders.js'),
    load('serverBounds.js'),
    load('config.js'),
  ]);
  let gatewayConfig;
  try {
    // The settings the gateway's child will read, from the same flags and environment.
    gatewayConfig = parseConfig('start', args.slice(1), process.env);
  } catch (error) {
    stop(2, `Configuration error: ${error.message}`);
  }

  const state = { gateway: null, demoToken: null };
  const server = appServer(
    { files: dist, isLocalVisit, pageHeaders: PAGE_HEADERS, boundHttpServer, bounds: appBounds(gatewayConfig.http) },
    state,
  );
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

  // In a process group of its own, so that a signal reaches it from this process only, once: in the
  // terminal's group, a Ctrl-C reached it twice (from the terminal, then passed on from here), the
  // second ended it at once as a second Ctrl-C does (exit 1), and requests in flight were cut
  // instead of drained.
  const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs'), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    console.log(line);
    const token = line.match(/^Demo token: (\S+)/);
    if (token) state.demoToken = token[1];
    const graphql = line.match(/^GraphQL: (\S+)/);
    if (graphql) {
      const url = new URL(graphql[1]);
      // The gateway listens on --host (127.0.0.1 by default); "localhost" may resolve to ::1 first.
      state.gateway = { host: url.host, hostname: url.hostname === 'localhost' ? '127.0.0.1' : url.hostname, port: url.port };
      console.log(`App: http://localhost:${server.address().port}/`);
    }
  });

  const running = () => child.exitCode === null && child.signalCode === null;
  // Each signal is passed on: the first drains the gateway, a second ends it at once (as Ctrl-C twice
  // does to `npm start`). The app server takes no new connection; the requests it is proxying are
  // answered as the gateway drains, and its connections are closed when the gateway has exited.
  const shutdown = () => {
    server.close();
    if (running()) child.kill('SIGTERM');
    else process.exit(0);
  };
  child.on('exit', (code) => {
    server.close();
    server.closeAllConnections();
    process.exit(code ?? 0);
  });
  // Its own group no longer ends with this process: an exit on an error, or the terminal closed.
  process.on('exit', () => {
    if (running()) child.kill('SIGTERM');
  });
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('SIGHUP', shutdown);
}

await main();
