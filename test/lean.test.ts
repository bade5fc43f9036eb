/**
 * The lean process (issue 12): `npm start`'s launcher (scripts/start.mjs: builds dist/ when missing
 * or stale, then runs the compiled CLI) spawned with a loader hook that records every module the
 * process resolves. A gateway started with --upstream-url serves a query without having loaded any
 * of the embedded upstream's code (src/upstream, better-sqlite3, pdf-lib); without it, the same
 * observation sees them (so the check can fail).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/config.js';
import { startUpstream, type TestUpstream } from './helpers/upstream.js';

const ROOT = new URL('..', import.meta.url).pathname;
const HOOK = new URL('./helpers/recordModules.mjs', import.meta.url).pathname;
/** The embedded upstream's code, compiled or not, and the packages only it uses. */
const UPSTREAM_CODE = /\/(dist|src)\/upstream\/|\/node_modules\/(better-sqlite3(-12)?|pdf-lib)\//;

const dir = mkdtempSync(join(tmpdir(), 'docs-graph-lean-'));
const children: ChildProcess[] = [];
let upstream: TestUpstream;

beforeAll(async () => {
  upstream = await startUpstream();
});
afterEach(() => children.splice(0).forEach((c) => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL')));
afterAll(async () => {
  await upstream?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `node scripts/start.mjs start …args` recording modules; resolves with the GraphQL URL and the record file. */
async function launch(name: string, args: string[]): Promise<{ url: string; modules: () => string[] }> {
  const record = join(dir, `${name}.txt`);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SETTINGS.some((s) => s.env === k)));
  const child = spawn(process.execPath, ['--import', HOOK, 'scripts/start.mjs', 'start', '--port', '0', ...args], {
    cwd: ROOT,
    env: { ...env, RECORD_MODULES: record },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  // Checked on each chunk of output and on exit (the test's timeout catches a hang).
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /^GraphQL: (http:\/\/\S+)$/m.exec(output);
      if (match) return resolve(match[1]);
      if (child.exitCode !== null) return reject(new Error(`exited ${child.exitCode}:\n${output}`));
    };
    child.stdout!.on('data', (d) => ((output += d), check()));
    child.stderr!.on('data', (d) => ((output += d), check()));
    child.on('exit', check);
  });
  return { url, modules: () => readFileSync(record, 'utf8').split('\n').filter(Boolean) };
}

describe('npm start with --upstream-url', () => {
  // The first launch may compile dist/ (tsc), which takes a while on a loaded machine.
  it('serves a query from compiled code without loading the embedded upstream', { timeout: 180_000 }, async () => {
    const { url, modules } = await launch('remote', ['--upstream-url', upstream.url]);
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${upstream.world.users.admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { displayName } }' }),
    });
    expect(await res.json()).toEqual({ data: { viewer: { displayName: upstream.world.users.admin.displayName } } });
    const loaded = modules();
    expect(loaded).toContainEqual(expect.stringMatching(/\/dist\/gateway\/app\.js$/));
    expect(loaded.filter((m) => UPSTREAM_CODE.test(m))).toEqual([]);
  });

  it('without it, the embedded upstream is loaded (the observation sees it)', { timeout: 60_000 }, async () => {
    const { modules } = await launch('embedded', ['--upstream-port', '0', '--db', ':memory:']);
    const loaded = modules();
    expect(loaded).toContainEqual(expect.stringMatching(/\/dist\/upstream\/server\.js$/));
    expect(loaded).toContainEqual(expect.stringMatching(/\/node_modules\/better-sqlite3(-12)?\//));
  });
});
