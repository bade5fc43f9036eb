/**
 * The front door, as a new user meets it: the real CLI (`src/index.ts`) spawned as a child
 * process on loopback ports chosen by the OS, with temporary SQLite files or `:memory:`. Processes
 * are reused across assertions (each spawn costs a second or two) and always killed afterwards.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SETTINGS, helpText } from '../src/config.js';
import { exampleQuery } from '../src/gateway/example.js';
import { addMember, createOrganization, createUser } from '../src/upstream/bootstrap.js';
import { systemClock } from '../src/upstream/clock.js';
import { openDatabase } from '../src/upstream/db/index.js';
import { ensureDemo } from '../src/upstream/demo/index.js';
import { silentLogger } from '../src/log.js';
import { hang, startBadServer } from './helpers/badServer.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ROLES = ['create', 'edit', 'review', 'comment', 'read', 'guest'];

/**
 * How long a process may take to print a line or to exit before the test fails: a deadline that
 * only catches a hang. A start compiles the sources (tsx) and builds the schema, which takes many
 * seconds on a loaded 2-core machine; nothing here asserts how fast anything is.
 */
const HANG_MS = 90_000;

/** One CLI process: its output so far, waiting for a line, its exit. */
class Cli {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Called on every chunk of output and on exit (the waiters check their condition again). */
  private readonly changed = new Set<() => void>();

  /** `runAs`: a command (and its arguments) that runs node, e.g. setpriv with fewer capabilities. */
  constructor(args: string[], env: Record<string, string> = {}, runAs: string[] = []) {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SETTINGS.some((s) => s.env === k)));
    const command = [...runAs, process.execPath, '--import', 'tsx', 'src/index.ts', ...args];
    this.child = spawn(command[0], command.slice(1), {
      cwd: ROOT,
      env: { ...clean, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const notify = () => this.changed.forEach((f) => f());
    this.child.stdout!.on('data', (d) => ((this.stdout += d), notify()));
    this.child.stderr!.on('data', (d) => ((this.stderr += d), notify()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    void this.exited.then(notify);
  }

  get output() {
    return this.stdout + this.stderr;
  }

  /** Resolves with `check()`'s first truthy value, checked on each output; fails on exit or after HANG_MS. */
  until<T>(check: () => T | undefined | null | false, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        this.changed.delete(test);
        clearTimeout(timer);
      };
      const test = () => {
        const value = check();
        if (value) return (done(), resolve(value));
        if (this.child.exitCode !== null || this.child.signalCode !== null) {
          done();
          reject(new Error(`no ${what} (exit ${this.child.exitCode}):\n${this.output}`));
        }
      };
      const timer = setTimeout(() => (done(), reject(new Error(`no ${what} after ${HANG_MS} ms:\n${this.output}`))), HANG_MS);
      this.changed.add(test);
      test();
    });
  }

  /** The first stdout line matching `re` (waits for it). */
  line(re: RegExp): Promise<RegExpMatchArray> {
    return this.until(
      () =>
        this.stdout
          .split('\n')
          .map((l) => l.match(re))
          .find(Boolean),
      `line ${re}`,
    );
  }

  /** Exit code after `signal`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    this.child.kill(signal);
    return this.exit();
  }

  async exit(): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`still running after ${HANG_MS} ms:\n${this.output}`)), HANG_MS);
    });
    try {
      return (await Promise.race([this.exited, hang])).code;
    } finally {
      clearTimeout(timer);
    }
  }

  kill() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/**
 * A GET sent with `Expect: 100-continue`: `arrived` resolves when the server answered `100 Continue`,
 * i.e. it has parsed the request and is handling it (Node's HTTP server does so before its handler).
 */
function heldGet(base: string, token: string, path: string) {
  let arrived!: () => void;
  const arrival = new Promise<void>((resolve) => (arrived = resolve));
  const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = httpRequest(base + path, { headers: { authorization: `Bearer ${token}`, expect: '100-continue' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('continue', () => (arrived(), req.end()));
    req.on('error', reject);
    req.flushHeaders();
  });
  return { arrival, response };
}

const PLANT_REJECTION = fileURLToPath(new URL('./helpers/plantRejection.mjs', import.meta.url));

/** Processes of the current test (killed in afterEach) and of the current file (afterAll). */
const perTest: Cli[] = [];
const perFile: Cli[] = [];
const cli = (args: string[], env?: Record<string, string>, runAs?: string[]) => {
  const p = new Cli(args, env, runAs);
  perTest.push(p);
  return p;
};
const sharedCli = (args: string[], env?: Record<string, string>) => {
  const p = new Cli(args, env);
  perFile.push(p);
  return p;
};
afterEach(() => perTest.splice(0).forEach((p) => p.kill()));
afterAll(() => perFile.splice(0).forEach((p) => p.kill()));

const dir = mkdtempSync(join(tmpdir(), 'docs-graph-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  rest: string;
  admin: string;
  tokens: Record<string, string>;
}

/** The `REST:` URL and demo tokens an upstream-running command printed. */
async function demoLines(p: Cli): Promise<Started> {
  await p.line(/^Demo token \(guest\): /);
  const rest = (await p.line(/^REST: (http:\/\/\S+\/v1)$/))[1];
  const admin = (await p.line(/^Demo token: (gb_api_\w+)$/))[1];
  const tokens: Record<string, string> = {};
  for (const m of p.stdout.matchAll(/^Demo token \((\w+)\): (gb_api_\w+)$/gm)) tokens[m[1]] = m[2];
  return { rest, admin, tokens };
}

/** Everything a process wrote except the lines that print the demo tokens. */
const logLines = (p: Cli) => p.output.replace(/^Demo token.*$/gm, '');

async function rest(base: string, token: string, path: string, init: RequestInit = {}) {
  const res = await fetch(base + path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function items(base: string, token: string, path: string): Promise<any[]> {
  const res = await rest(base, token, path);
  expect(res.status, `GET ${path}`).toBe(200);
  return res.body.items;
}

async function gql(url: string, token: string, query: string, variables?: Record<string, unknown>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: (await res.json()) as { data?: any; errors?: any[] } };
}

describe('npm run upstream', { timeout: 4 * HANG_MS }, () => {
  const file = join(dir, 'demo.db');
  let first: Cli;
  let started: Started;

  it('a failed demo creation stops the start (exit 1) and keeps nothing; the next start creates it', async () => {
    const db = openDatabase(file);
    db.exec(`CREATE TRIGGER fail_demo BEFORE INSERT ON translation_settings BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    db.close();
    const failed = cli(['upstream', '--port', '0', '--db', file]);
    expect(await failed.exit()).toBe(1);
    expect(failed.stderr).toMatch(
      /demo content could not be created \(nothing was kept\): demo: POST \/orgs\/\w+\/translations answered 500/,
    );
    expect(failed.stdout).not.toMatch(/^(REST|Demo token)/m);
    const after = openDatabase(file);
    const count = (table: string) => (after.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect([count('users'), count('organizations'), count('spaces'), count('settings')]).toEqual([0, 0, 0, 0]);
    after.exec('DROP TRIGGER fail_demo');
    after.close();

    first = sharedCli(['upstream', '--port', '0', '--db', file, '--log-level', 'info']);
    started = await demoLines(first);
    await first.line(/demo content created in \d+ ms/);
  });

  it('prints REST, the admin token and one token per other demo user, each on its own line', async () => {
    const lines = first.stdout.split('\n').filter((l) => /^(REST|Demo token)/.test(l));
    expect(lines).toEqual([
      `REST: ${started.rest}`,
      `Demo token: ${started.admin}`,
      ...ROLES.map((role) => `Demo token (${role}): ${started.tokens[role]}`),
    ]);
    expect(started.rest).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(new Set([started.admin, ...Object.values(started.tokens)]).size).toBe(7);
    const orgs = await items(started.rest, started.admin, '/orgs');
    expect(orgs.map((o) => o.title).sort()).toEqual(['Acme Docs', 'Globex Labs']);
  });

  it('the demo content is coherent and explorable through REST', async () => {
    const { rest: base, admin, tokens } = started;
    const get = (path: string) => items(base, admin, path);
    const acme = (await get('/orgs')).find((o) => o.title === 'Acme Docs').id;

    const members = await get(`/orgs/${acme}/members`);
    expect(members.map((m) => m.role).sort()).toEqual(['admin', 'comment', 'create', 'edit', 'read', 'review', null].sort());

    const collections = await get(`/orgs/${acme}/collections`);
    expect(collections).toHaveLength(3);
    const nested = collections.find((c) => c.parent);
    expect(collections.map((c) => c.id)).toContain(nested.parent);

    const spaces = await get(`/orgs/${acme}/spaces`);
    expect(new Set(spaces.map((s) => s.visibility))).toEqual(new Set(['public', 'private', 'unlisted', 'share-link']));
    const guide = spaces.find((s) => s.title === 'API Guide');
    const links = await rest(base, admin, `/spaces/${guide.id}/links`);
    expect(links.body.stats).toMatchObject({ total: expect.any(Number), broken: { total: 0 } });
    expect(new Set(links.body.items.map((l: any) => l.source.page)).size).toBeGreaterThan(2); // several pages link to others

    const byStatus: Record<string, any[]> = {};
    for (const status of ['draft', 'open', 'archived', 'merged'])
      byStatus[status] = await get(`/spaces/${guide.id}/change-requests?status=${status}`);
    for (const list of Object.values(byStatus)) expect(list.length).toBeGreaterThan(0);
    expect(byStatus.merged[0].revisionMerged).toBeTruthy();

    const commentsPath = `/spaces/${guide.id}/change-requests/${byStatus.open[0].id}/comments`;
    const comments = await get(commentsPath);
    const discussed = comments.find((c) => c.replies > 0);
    expect(discussed.reactions.map((r: any) => r.emoji).sort()).toEqual(['🎉', '👍']);
    expect((await get(`${commentsPath}/${discussed.id}/replies`)).length).toBe(discussed.replies);
    expect(comments.some((c) => c.status === 'resolved')).toBe(true);

    const sites = await get(`/orgs/${acme}/sites`);
    const portal = sites.find((s) => s.published && s.visibility === 'public');
    expect((await get(`/orgs/${acme}/sites/${portal.id}/sections`)).length).toBeGreaterThan(0);
    expect(await get(`/orgs/${acme}/sites/${portal.id}/redirects`)).toHaveLength(1);
    expect((await get(`/orgs/${acme}/sites/${portal.id}/share-links`))[0]).toMatchObject({ active: true });

    expect((await get(`/orgs/${acme}/teams`)).length).toBe(2);
    expect((await get(`/integrations?organizationId=${acme}`)).length).toBeGreaterThanOrEqual(2);
    expect((await get(`/orgs/${acme}/openapi`))[0]).toMatchObject({ slug: 'orders-api', processingState: 'complete' });
    expect((await get(`/orgs/${acme}/translations`))[0].languages).toEqual(['fr', 'de']);
    expect((await get(`/orgs/${acme}/fonts`))[0].fontFamily).toBe('Acme Sans');
    expect(await get(`/orgs/${acme}/link-invites`)).toHaveLength(1);

    // Roles are real: a reader may not create, the guest sees only the handbook.
    const denied = await rest(base, tokens.read, `/orgs/${acme}/collections`, { method: 'POST', body: JSON.stringify({ title: 'X' }) });
    expect(denied.status).toBe(403);
    const handbook = spaces.find((s) => s.title === 'Handbook');
    expect((await rest(base, tokens.guest, `/spaces/${handbook.id}`)).status).toBe(200);
  });

  it('--log-level info logs no line per request', async () => {
    await items(started.rest, started.admin, '/orgs');
    expect(first.output).not.toMatch(/\/v1\/orgs/);
  });

  it('start --upstream-url forwards to that URL and starts no embedded upstream; SIGINT exits 0', async () => {
    const gateway = cli(['start', '--port', '0', '--upstream-url', started.rest, '--db', join(dir, 'unused.db')]);
    const url = (await gateway.line(/^GraphQL: (http:\/\/\S+)$/))[1];
    expect(gateway.stdout).not.toMatch(/^(REST|Demo token)/m);
    const res = await gql(url, started.admin, '{ viewer { displayName } }');
    expect(res.body).toEqual({ data: { viewer: { displayName: 'Ada Lovelace' } } });
    expect(await gateway.stop('SIGINT')).toBe(0);
  });

  it('a promise rejected with no handler (a bug) is logged, and the gateway goes on', async () => {
    const gateway = cli(['start', '--port', '0', '--upstream-url', started.rest, '--db', join(dir, 'unused.db')], {
      NODE_OPTIONS: `--import=${PLANT_REJECTION}`,
    });
    const origin = new URL((await gateway.line(/^GraphQL: (http:\/\/\S+)$/))[1]).origin;
    await (await fetch(`${origin}/plant-rejection`)).arrayBuffer();
    const line = await gateway.until(() => gateway.output.split('\n').find((l) => l.includes('unhandled promise rejection')), 'log line');
    expect(line).toMatch(/ ERROR +unhandled promise rejection .* error=TypeError at=at .*plantRejection\.mjs:\d+/);
    expect(line).not.toContain('planted');
    expect((await fetch(`${origin}/health`)).status).toBe(200);
    expect(await gateway.stop('SIGTERM')).toBe(0);
  });

  it('--max-body-bytes at its maximum: a body whose parse the heap cannot hold is refused (413), never parsed', async () => {
    // `npm start`'s heap: one 8 MB body of `{}` (some 180 MB once parsed) ran it out (SIGABRT),
    // though the bodies budget admits one body alone whatever it holds.
    const gateway = cli(
      ['start', '--port', '0', '--upstream-url', started.rest, '--db', join(dir, 'unused.db'), '--max-body-bytes', '100000000'],
      { NODE_OPTIONS: '--max-old-space-size=128' },
    );
    const url = (await gateway.line(/^GraphQL: (http:\/\/\S+)$/))[1];
    const objects = `[${Array(2_700_000).fill('{}').join(',')}]`;
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${started.admin}`, 'content-type': 'application/json' },
      body: `{"query":"query($v: JSON) { viewer { id } }","variables":{"v":${objects}}}`,
    });
    expect(res.status).toBe(413);
    const { errors } = (await res.json()) as { errors: Array<{ message: string; extensions: Record<string, unknown> }> };
    expect(errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxBodyBytes' });
    expect(errors[0].message).toMatch(/^maxBodyBytes: Request body would take about \d+ bytes once parsed/);
    expect((await gql(url, started.admin, '{ viewer { displayName } }')).body).toEqual({
      data: { viewer: { displayName: 'Ada Lovelace' } },
    });
    expect(await gateway.stop('SIGTERM')).toBe(0);
  });

  it('SIGTERM exits 0', async () => {
    expect(await first.stop('SIGTERM')).toBe(0);
  });

  it('a second start with the same file prints the same tokens (debug, latency and rate limit on)', async () => {
    const again = cli(['upstream', '--port', '0', '--db', file, '--log-level', 'debug', '--latency-ms', '500', '--rate-limit', '2']);
    const second = await demoLines(again);
    expect({ admin: second.admin, tokens: second.tokens }).toEqual({ admin: started.admin, tokens: started.tokens });
    expect(again.output).not.toMatch(/demo content created/);

    // debug: one line per request, without the token; latency: every response at least 500 ms later.
    const t0 = performance.now();
    expect((await rest(second.rest, second.admin, '/user')).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(495);
    await again.line(/GET \/v1\/user 200/);
    expect(again.stdout.match(/GET \/v1\/user /g)).toHaveLength(1);
    expect(logLines(again)).not.toContain(second.admin.slice('gb_api_'.length));

    // rate limit 2 per minute and token: the third request is refused with Retry-After.
    const three = await Promise.all([0, 1, 2].map(() => rest(second.rest, second.tokens.read, '/user')));
    const statuses = three.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 429]);
    const refused = three.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body).toEqual({ error: { code: 429, message: expect.any(String) } });

    // SIGTERM while a request waits out its 500 ms (the server has it: it answered 100 Continue):
    // it completes, then the process exits 0.
    const inFlight = heldGet(second.rest, second.tokens.edit, '/user');
    await inFlight.arrival;
    const exit = again.stop('SIGTERM');
    const res = await inFlight.response;
    expect(res.status).toBe(200);
    expect(res.body.displayName).toBe('Alan Turing');
    expect(await exit).toBe(0);
  });

  it('a database with other data gets no demo content and no tokens, and says so', async () => {
    const foreign = join(dir, 'foreign.db');
    const db = openDatabase(foreign);
    const user = createUser(db, systemClock, { displayName: 'Owner', email: 'owner@example.com' });
    const org = createOrganization(db, systemClock, { title: 'Our docs' });
    addMember(db, systemClock, org, user.id, 'admin');
    db.close();
    const p = cli(['upstream', '--port', '0', '--db', foreign]);
    const base = (await p.line(/^REST: (\S+)$/))[1];
    expect((await items(base, user.token, '/orgs')).map((o) => o.title)).toEqual(['Our docs']);
    expect(await p.stop()).toBe(0);
    // All of its output, now that it has exited.
    expect(p.stdout).not.toMatch(/^Demo token/m);
    expect(p.output).toMatch(/holds data that is not the demo/);
  });
});

describe('npm start', { timeout: 4 * HANG_MS }, () => {
  let p: Cli;
  let url: string;
  let started: Started;

  beforeAll(async () => {
    p = sharedCli(['start', '--port', '0', '--upstream-port', '0', '--db', ':memory:']);
    url = (await p.line(/^GraphQL: (http:\/\/localhost:\d+\/graphql)$/))[1];
    started = await demoLines(p);
  }, 2 * HANG_MS);

  it('prints GraphQL, REST and the demo tokens; the example query returns demo data', async () => {
    expect(Object.keys(started.tokens)).toEqual(ROLES);
    const orgs = await items(started.rest, started.admin, '/orgs');
    const acme = orgs.find((o) => o.title === 'Acme Docs').id;
    const { status, body } = await gql(url, started.admin, exampleQuery(acme));
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data.viewer.displayName).toBe('Ada Lovelace');
    expect(body.data.organization.title).toBe('Acme Docs');
    const crs = body.data.organization.spaces.nodes.flatMap((s: any) => s.changeRequests.nodes);
    const replies = crs.flatMap((cr: any) => cr.comments.nodes.flatMap((c: any) => c.replies.nodes));
    expect(replies.length).toBeGreaterThan(0);
    expect(replies[0].postedBy.displayName).toEqual(expect.any(String));
    // --log-level info (the default): no line per GraphQL request or REST call.
    const logged = p.output.split('\n').filter((l) => l && !/^(REST|GraphQL|Demo token): /.test(l) && !/^Demo token \(/.test(l));
    expect(logged).toEqual([expect.stringMatching(/INFO {2}demo content created in \d+ ms$/)]);
  });

  it('GraphiQL opens with the demo admin token and the example query', async () => {
    const res = await fetch(url, { headers: { accept: 'text/html' } });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain(started.admin);
    expect(html).toContain('query Example');
  });

  it('a second signal while draining exits at once (1), whatever the drain still waits for', async () => {
    // An upstream that takes requests and never answers: the drain would wait for the REST call.
    const upstream = await startBadServer();
    upstream.fallback = hang;
    const gateway = cli(['start', '--port', '0', '--upstream-url', upstream.url, '--db', join(dir, 'unused.db')]);
    try {
      const url = (await gateway.line(/^GraphQL: (http:\/\/\S+)$/))[1];
      const pending = gql(url, started.admin, '{ viewer { displayName } }').catch(() => undefined);
      await vi.waitFor(() => expect(upstream.requests.length).toBeGreaterThan(0), { timeout: HANG_MS, interval: 50 });
      gateway.child.kill('SIGTERM');
      await gateway.line(/SIGTERM: draining/);
      // Before: ignored; the process exited 0 once the drain's grace (5 s) had cut the request.
      expect(await gateway.stop('SIGTERM')).toBe(1);
      expect(gateway.output).toMatch(/SIGTERM again: exiting without waiting/);
      await pending;
    } finally {
      gateway.kill();
      await upstream.stop();
    }
  });

  it('SIGTERM exits 0', async () => {
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('SIGTERM drains an in-flight query and an open subscription, then exits 0', async () => {
    const slow = cli(['start', '--port', '0', '--upstream-port', '0', '--db', ':memory:', '--latency-ms', '500', '--log-level', 'debug']);
    const gqlUrl = (await slow.line(/^GraphQL: (\S+)$/))[1];
    const { admin, rest: base } = await demoLines(slow);
    const org = (await items(base, admin, '/orgs'))[0].id;
    const query = gql(gqlUrl, admin, '{ viewer { displayName } }');
    const stream = fetch(gqlUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription($o: String!) { suggestedQuestionsStream(organizationId: $o) }', variables: { o: org } }),
    }).then(async (res) => ({ status: res.status, text: await res.text() }));
    // Both requests reached the gateway (its debug log notes each), and wait on the slow upstream.
    await slow.until(() => (slow.stdout.match(/Parsing request to extract GraphQL parameters/g) ?? []).length >= 2, 'two requests');
    const exit = slow.stop('SIGTERM');
    expect(await query).toEqual({ status: 200, body: { data: { viewer: { displayName: 'Ada Lovelace' } } } });
    const sse = await stream;
    expect(sse.status).toBe(200);
    // Cut by the stop: its last result says so (a `complete` alone read as a whole answer), then it completes.
    expect(sse.text).toMatch(
      /"message":"Upstream unavailable: the gateway is stopping".*"code":"UPSTREAM_UNAVAILABLE"[^\n]*\n\nevent: complete\n/,
    );
    expect(await exit).toBe(0);
    // debug: the gateway's REST call and the upstream's request each logged once, without the token.
    expect(slow.stdout.match(/\[gateway\] rest GET \/user 200/g)).toHaveLength(1);
    expect(slow.stdout.match(/\[rest\] GET \/v1\/user 200/g)).toHaveLength(1);
    expect(logLines(slow)).not.toContain(admin.slice('gb_api_'.length));
  });

  it('SIGTERM lets a @defer in flight over SSE send its deferred result and `complete`, then exits 0', async () => {
    const slow = cli(['start', '--port', '0', '--upstream-port', '0', '--db', ':memory:', '--latency-ms', '1500', '--log-level', 'debug']);
    const gqlUrl = (await slow.line(/^GraphQL: (\S+)$/))[1];
    const { admin } = await demoLines(slow);
    const stream = fetch(gqlUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: '{ __typename ... @defer { viewer { displayName } } }' }),
    }).then(async (res) => ({ status: res.status, text: await res.text() }));
    // The request reached the gateway; its deferred part waits on the slow upstream.
    await slow.until(() => /Parsing request to extract GraphQL parameters/.test(slow.stdout), 'the request');
    const exit = slow.stop('SIGTERM');
    const sse = await stream;
    expect(sse.status).toBe(200);
    // Before: the stop ended the event stream at once, after the first result (`hasNext: true`).
    expect(sse.text).toMatch(
      /"incremental":\[\{"data":\{"viewer":\{"displayName":"Ada Lovelace"\}\}.*"hasNext":false\}\n\nevent: complete\n/,
    );
    expect(await exit).toBe(0);
  });

  it('with its stdout closed (`npm start | head -1`), it goes on serving and SIGTERM still drains and exits 0', async () => {
    const piped = cli(['start', '--port', '0', '--upstream-port', '0', '--db', ':memory:']);
    const gqlUrl = (await piped.line(/^GraphQL: (\S+)$/))[1];
    const { admin } = await demoLines(piped);
    // The reader of its stdout leaves: each write there fails with EPIPE from now on.
    const closed = new Promise((resolve) => piped.child.stdout!.once('close', resolve));
    piped.child.stdout!.destroy();
    await closed;
    expect(await gql(gqlUrl, admin, '{ viewer { displayName } }')).toEqual({
      status: 200,
      body: { data: { viewer: { displayName: 'Ada Lovelace' } } },
    });
    // Before: SIGTERM's "draining" line raised an unhandled EPIPE, exit 1 with a stack trace.
    expect(await piped.stop('SIGTERM')).toBe(0);
    expect(piped.stderr).toBe('');
  });
});

describe('options', { timeout: 2 * HANG_MS }, () => {
  it('--help lists every option of each command', async () => {
    const [start, upstream] = [cli(['start', '--help']), cli(['upstream', '--help'])];
    expect(await start.exit()).toBe(0);
    expect(await upstream.exit()).toBe(0);
    expect(start.stdout.trim()).toBe(helpText('start'));
    for (const s of SETTINGS) {
      const help = s.commands && !s.commands.includes('upstream') ? start.stdout : upstream.stdout;
      expect(help).toContain(s.flag);
      expect(help).toContain(s.env);
    }
  });

  it('a bad value stops with exit code 2 and a message naming the setting', async () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['upstream', '--port', 'abc'], {}, /--port: "abc" is not a whole number/],
      [['start'], { PORT: '70000' }, /PORT: "70000" is not a whole number from 0 to 65535/],
      [['start', '--log-level', 'loud'], {}, /--log-level: "loud" must be one of debug, info, warn, error/],
      [['start', '--upstream-url', 'https://x'], {}, /--upstream-url: "https:\/\/x" must end in \/v1/],
      [['start', '--verbose'], {}, /Unknown option --verbose/],
      [['upstream', '--upstream-url', 'http://127.0.0.1:1/v1'], {}, /Unknown option --upstream-url/],
      [['serve'], {}, /Unknown command serve/],
      // Empty, as `--host "$HOST"` with HOST unset: not every interface, nor a temporary database.
      [['start', '--host', '', '--port', '0', '--upstream-port', '0', '--db', ':memory:'], {}, /--host needs a value/],
      [['start', '--port', '0', '--upstream-port', '0', '--db='], {}, /--db needs a value/],
      [['start', '--port', '4321', '--db', ':memory:'], { UPSTREAM_PORT: '4321' }, /--port and --upstream-port \(4321\) must differ/],
      // The metrics answered every GraphQL request.
      [
        ['start', '--metrics-path', '/graphql', '--port', '0', '--upstream-port', '0', '--db', ':memory:'],
        {},
        /--metrics-path: "\/graphql" is a path the gateway serves already/,
      ],
      // Ended the start with a stack trace printing the password, after the embedded REST API had started.
      [
        ['start', '--port', '0', '--upstream-port', '0', '--db', ':memory:'],
        { REDIS_URL: 'redis://:s3cret@127.0.0.1:99999' },
        /^Configuration error: REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/,
      ],
      // Under `npm start`'s heap, one token's 120 MB result ran it out while it was written.
      [
        ['start', '--port', '0', '--upstream-port', '0', '--db', ':memory:', '--max-response-bytes', '1000000000'],
        { NODE_OPTIONS: '--max-old-space-size=128' },
        /^Configuration error: --max-response-bytes \(1000000000\) must not exceed a quarter of the heap limit \(\d+ under/,
      ],
      // The exporter took it as unset and sent the spans to localhost:4318, while tracing was logged as on.
      [
        ['start', '--port', '0', '--upstream-port', '0', '--db', ':memory:'],
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector.internal:4318' },
        /^Configuration error: OTEL_EXPORTER_OTLP_ENDPOINT: must be an http\(s\) URL/,
      ],
    ];
    const runs = cases.map(([args, env]) => cli(args, env));
    const codes = await Promise.all(runs.map((r) => r.exit()));
    runs.forEach((run, i) => {
      expect(codes[i], cases[i][0].join(' ')).toBe(2);
      expect(run.stderr).toMatch(cases[i][2]);
      expect(run.stderr).not.toContain('s3cret');
      expect(run.stdout).not.toMatch(/^(REST|GraphQL|Demo token)/m);
    });
  });

  it.runIf(process.platform === 'linux')('a --db where no directory can be made stops with a message and exit code 1', async () => {
    // Under /proc mkdir answers ENOENT although the parent exists: a recursive mkdir never returned.
    const run = cli(['start', '--port', '0', '--upstream-port', '0', '--db', '/proc/no-such-dir/docs.db']);
    expect(await run.exit()).toBe(1);
    expect(run.stderr).toMatch(/^Cannot open the database \/proc\/no-such-dir\/docs.db \(--db \/ DOCS_GRAPH_DB\): ENOENT/m);
  });

  // Root writes whatever the modes say: as root, the CLI runs without the capabilities that let it
  // (setpriv, util-linux), still as root, so it reads the project wherever it is cloned (running it
  // as nobody failed where the clone's directory is private: a mktemp -d, mode 0700).
  const asRoot = process.platform === 'linux' && process.getuid?.() === 0;
  it.runIf(process.platform === 'linux' && (!asRoot || spawnSync('setpriv', ['--version']).status === 0))(
    'a database it may read but not write stops the start with a message and exit code 1',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'docs-graph-readonly-'));
      const file = join(dir, 'docs.db');
      try {
        const db = openDatabase(file);
        await ensureDemo(db, silentLogger);
        db.close();
        // The file not writable in a directory that is (SQLite makes its -wal and -shm there): SQLite
        // opened it read-only without a word, and it started, served reads and answered every write HTTP 500.
        chmodSync(file, 0o444);
        const runAs = asRoot ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--'] : [];
        const run = cli(['upstream', '--port', '0', '--db', file], {}, runAs);
        expect(await run.exit()).toBe(1);
        expect(run.stderr).toBe(`Cannot open the database ${file} (--db / DOCS_GRAPH_DB): attempt to write a readonly database\n`);
        expect(run.stdout).toBe('');
      } finally {
        chmodSync(dir, 0o755);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('a damaged database file stops the start with a one-line message and exit code 1', async () => {
    const file = join(dir, 'damaged.db');
    const db = openDatabase(file);
    await ensureDemo(db, silentLogger);
    const { rootpage } = db.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'tokens'`).get() as { rootpage: number };
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    // The tokens table's first page overwritten (a disk fault, a copy taken mid-write).
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xde), 0, pageSize, (rootpage - 1) * pageSize);
    closeSync(fd);
    const run = cli(['upstream', '--port', '0', '--db', file]);
    // Before: it started (REST line, /ready 200) and answered every authenticated request 500.
    await run.until(() => run.child.exitCode !== null || /^REST: /m.test(run.stdout), 'an exit or a start');
    expect(run.stdout).toBe('');
    expect(await run.exit()).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^Cannot open the database ${file} \\(--db / DOCS_GRAPH_DB\\): the file is damaged \\(PRAGMA quick_check: [^\\n]*page ${rootpage}[^\\n]*\\n$`,
      ),
    );
  });

  it.runIf(process.platform === 'linux')('--persisted-operations naming no regular file stops with a message and exit code 1', async () => {
    // /dev/zero was read until the process held 16 GB and aborted; a named pipe blocked for good.
    const run = cli(['start', '--port', '0', '--upstream-port', '0', '--db', ':memory:', '--persisted-operations', '/dev/zero']);
    expect(await run.exit()).toBe(1);
    expect(run.stderr).toContain('Cannot read the persisted operations file /dev/zero: not a regular file');
  });

  it('a persisted document a request would get refused stops the start, before anything listens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'persisted-'));
    const file = join(dir, 'persisted.json');
    writeFileSync(file, JSON.stringify({ ok: 'query { viewer { id } }', typo: 'query { viewr { id } }' }));
    try {
      const run = cli(['start', '--port', '0', '--upstream-port', '0', '--db', ':memory:', '--persisted-operations', file]);
      expect(await run.exit()).toBe(1);
      // One line, no stack; it started nothing (it answered each request naming the id with the error).
      const [line, ...rest] = run.stderr.split('\n');
      expect(rest).toEqual(['']);
      expect(line).toMatch(
        `--persisted-operations / PERSISTED_OPERATIONS: ${file}: the document of "typo" would be refused: Cannot query field "viewr" on type "Query".`,
      );
      expect(run.stdout).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a port in use gives a clear message naming the flag and exit code 1', async () => {
    const busy: Server = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = String((busy.address() as { port: number }).port);
    try {
      const runs = [
        cli(['upstream', '--port', port, '--db', ':memory:']),
        cli(['start', '--port', port, '--upstream-port', '0', '--db', ':memory:']),
        cli(['start', '--port', '0', '--upstream-port', port, '--db', ':memory:']),
      ];
      expect(await Promise.all(runs.map((r) => r.exit()))).toEqual([1, 1, 1]);
      expect(runs[0].stderr).toMatch(
        new RegExp(`REST API on 127.0.0.1:${port}: the port is already in use \\(choose another with --port\\)`),
      );
      expect(runs[1].stderr).toMatch(
        new RegExp(`gateway on 127.0.0.1:${port}: the port is already in use \\(choose another with --port\\)`),
      );
      expect(runs[2].stderr).toMatch(/the port is already in use \(choose another with --upstream-port\)/);
    } finally {
      busy.close();
    }
  });
});
