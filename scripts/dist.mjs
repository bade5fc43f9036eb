/**
 * dist/, the compiled CLI, gateway and embedded upstream: `buildDist()` runs
 * `tsc -p tsconfig.build.json` (in a child process) when dist/ is missing or older than src/ or the
 * build settings, or always with `force`. Used by start.mjs (`npm start`, `npm run build`) and by
 * app.mjs, which loads gateway code from dist/ before it starts the gateway. Plain JavaScript: it
 * must run before anything is compiled. A failed build ends the process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const dist = join(root, 'dist');
const entry = join(dist, 'index.js');
/** Written after each successful build: its time is the build's. */
const stamp = join(dist, '.built');

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

/** Builds dist/ when stale, or always with `force` (silently then). */
export function buildDist({ force = false } = {}) {
  if (!force && !stale()) return;
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    console.error('dist/ is missing or out of date and TypeScript is not installed: run `npm install` then `npm run build`');
    process.exit(1);
  }
  if (!force) console.error('Building dist/ (tsc -p tsconfig.build.json)…');
  const built = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (built.status !== 0) {
    console.error('Build failed: see the errors above (`npm run dev` runs from source with tsx)');
    process.exit(1);
  }
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}
