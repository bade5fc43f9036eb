/**
 * `npm start` / `npm run upstream`: runs the compiled CLI (dist/index.js) in this process, building
 * it first (`tsc -p tsconfig.build.json`, in a child process) when dist/ is missing or older than
 * src/ or the build settings, so `npm install && npm start` works on a fresh clone. Plain
 * JavaScript: it must run before anything is compiled. Then it writes GraphiQL's assets to
 * dist/graphiql/ when they are missing (scripts/graphiql-assets.mjs). Arguments go to the CLI
 * unchanged; `--build` alone (`npm run build`) builds (both) and exits. NODE_ENV is `production`
 * unless set.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = join(root, 'dist', 'index.js');
/** Written after each successful build: its time is the build's. */
const stamp = join(root, 'dist', '.built');

/** Newest modification time (ms) of the files under `dir`. */
function newest(dir) {
  let latest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (item.isFile()) latest = Math.max(latest, statSync(join(item.parentPath ?? item.path, item.name)).mtimeMs);
  }
  return latest;
}

function stale() {
  if (!existsSync(entry) || !existsSync(stamp)) return true;
  if (!existsSync(join(root, 'src'))) return false; // a deployment with dist/ only
  const sources = Math.max(
    newest(join(root, 'src')),
    ...['tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(join(root, f)).mtimeMs),
  );
  return sources > statSync(stamp).mtimeMs;
}

function writable(dir) {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

const buildOnly = process.argv[2] === '--build';
if (buildOnly || stale()) {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    console.error('dist/ is missing or out of date and TypeScript is not installed: run `npm install` then `npm run build`');
    process.exit(1);
  }
  if (!buildOnly) console.error('Building dist/ (tsc -p tsconfig.build.json)…');
  const built = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (built.status !== 0) {
    console.error('Build failed: see the errors above (`npm run dev` runs from source with tsx)');
    process.exit(1);
  }
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

// GraphiQL's assets, made once here rather than at each process's first visit (a failure only
// means they are built then, as before). Not tried where dist/ cannot be written (a read-only
// image built without them): each start would pay for a build it cannot keep.
if (buildOnly || (!existsSync(join(root, 'dist', 'graphiql', 'manifest.json')) && writable(join(root, 'dist')))) {
  const assets = spawnSync(process.execPath, [join(root, 'scripts', 'graphiql-assets.mjs')], { stdio: 'inherit' });
  if (assets.status !== 0) console.error('GraphiQL assets not written to dist/graphiql/: the gateway builds them at the first visit');
}

// A server: graphql-js checks every `instanceof` of its execution twice unless NODE_ENV is
// `production` (its development mode looks for a second copy of graphql: about a tenth of a small
// query's CPU). Read when graphql loads, so set before the CLI is imported; an explicit value wins.
process.env.NODE_ENV ??= 'production';
if (!buildOnly) await import(pathToFileURL(entry).href);
