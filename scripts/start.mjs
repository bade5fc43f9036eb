/**
 * `npm start` / `npm run upstream`: runs the compiled CLI (dist/index.js) in this process, building
 * it first (scripts/dist.mjs: `tsc -p tsconfig.build.json`, in a child process) when dist/ is
 * missing or older than src/ or the build settings, so `npm install && npm start` works on a fresh clone. Plain
 * JavaScript: it must run before anything is compiled. Then it writes GraphiQL's assets to
 * dist/graphiql/ when they are missing (scripts/graphiql-assets.mjs). Arguments go to the CLI
 * unchanged; `--build` alone (`npm run build`) builds (both) and exits. NODE_ENV is `production`
 * unless set.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildDist, dist, root } from './dist.mjs';

const entry = join(dist, 'index.js');

function writable(dir) {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

const buildOnly = process.argv[2] === '--build';
buildDist({ force: buildOnly });

// GraphiQL's assets, made once here rather than at each process's first visit (a failure only
// means they are built then, as before). Not tried where dist/ cannot be written (a read-only
// image built without them): each start would pay for a build it cannot keep.
if (buildOnly || (!existsSync(join(dist, 'graphiql', 'manifest.json')) && writable(dist))) {
  const assets = spawnSync(process.execPath, [join(root, 'scripts', 'graphiql-assets.mjs')], { stdio: 'inherit' });
  if (assets.status !== 0) console.error('GraphiQL assets not written to dist/graphiql/: the gateway builds them at the first visit');
}

// A server: graphql-js checks every `instanceof` of its execution twice unless NODE_ENV is
// `production` (its development mode looks for a second copy of graphql: about a tenth of a small
// query's CPU). Read when graphql loads, so set before the CLI is imported; an explicit value wins.
process.env.NODE_ENV ??= 'production';
if (!buildOnly) await import(pathToFileURL(entry).href);
