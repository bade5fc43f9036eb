/**
 * The embedded upstream's memory is bounded by what a request may hold, not by the process's heap
 * limit (under `npm start` it shares the gateway's 128 MB): checked in a child process with a heap
 * smaller than what an unbounded read would load.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/upstream/db/index.js';
import { ManualClock } from '../../src/upstream/clock.js';
import { buildUpstream } from '../../src/upstream/server.js';
import { RestClient, spawnUpstream } from '../helpers/upstream.js';
import { createWorld } from '../helpers/world.js';

const dir = mkdtempSync(join(tmpdir(), 'docs-graph-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const running: ChildProcess[] = [];
afterEach(() => running.splice(0).forEach((child) => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));

describe('a list of large rows', () => {
  it(
    'after a few small rows, reads the large ones one at a time: a page of 1,000 over 100 MB of comments in a 64 MB heap',
    { timeout: 120_000 },
    async () => {
      const upstream = await spawnUpstream(join(dir, 'comments.db'), running, ['--max-old-space-size=64']);
      const api = new RestClient(upstream.url, upstream.token);
      const orgId = (await api.get('/orgs')).body.items[0].id as string;
      const spaceId = (await api.post(`/orgs/${orgId}/spaces`, { title: 'Large talk' })).body.id as string;
      const crId = (await api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Large' })).body.id as string;
      const list = `/spaces/${spaceId}/change-requests/${crId}/comments`;
      // Newest first: the small ones lead the list, and size the next read at their average.
      for (let i = 0; i < 100; i++)
        expect((await api.post(list, { body: { markdown: `${i} ${'x'.repeat(1_000_000)}` } })).status).toBe(200);
      for (let i = 0; i < 8; i++) expect((await api.post(list, { body: { markdown: `small ${i}` } })).status).toBe(200);
      const page = await api.get(`${list}?limit=1000`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(10);
      expect(page.body.next?.page).toEqual(expect.any(String));
      expect(upstream.child.exitCode).toBeNull();
      expect((await api.get('/user')).status).toBe(200);
    },
  );
});

describe('the database', () => {
  it('stops growing at its size cap: a write past it is answered 507, reads go on, a delete makes room', async () => {
    const cap = 4 * 1024 * 1024;
    const clock = new ManualClock();
    const upstream = buildUpstream({ db: openDatabase(':memory:', cap), clock });
    const url = await upstream.start();
    try {
      const world = createWorld(upstream.db, clock);
      const api = new RestClient(url, world.users.admin.token);
      const spaceId = (await api.post(`/orgs/${world.orgId}/spaces`, { title: 'Talk' })).body.id as string;
      const crId = (await api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Talk' })).body.id as string;
      const list = `/spaces/${spaceId}/change-requests/${crId}/comments`;
      // A token that may comment may post a comment of up to a request body (1 MiB), again and again.
      const commenter = api;
      const statuses: number[] = [];
      for (let i = 0; i < 16; i++)
        statuses.push((await commenter.post(list, { body: { markdown: `${i} ${'x'.repeat(500_000)}` } })).status);
      const stored = statuses.filter((s) => s === 200).length;
      expect(stored).toBeGreaterThan(0);
      expect(stored).toBeLessThan(8);
      expect(statuses.slice(stored)).toEqual(Array(16 - stored).fill(507));
      const refused = await commenter.post(list, { body: { markdown: 'x'.repeat(500_000) } });
      expect(refused.body.error).toEqual({ code: 507, message: expect.stringContaining('The database is full') });
      const pages = upstream.db.pragma('page_count', { simple: true }) as number;
      expect(pages * (upstream.db.pragma('page_size', { simple: true }) as number)).toBeLessThanOrEqual(cap);
      // Reads need no room.
      const { items } = await api.all(list);
      expect(items).toHaveLength(stored);
      expect((await commenter.delete(`${list}/${items[0].id}`)).status).toBe(204);
      expect((await commenter.post(list, { body: { markdown: 'x'.repeat(500_000) } })).status).toBe(200);
    } finally {
      await upstream.stop();
    }
  });

  it('a file database filled to its cap opens again, and a delete then makes room', async () => {
    const cap = 2 * 1024 * 1024;
    const file = join(dir, 'full.db');
    const clock = new ManualClock();
    const db = openDatabase(file, cap);
    const world = createWorld(db, clock);
    const first = buildUpstream({ db, clock });
    const api = new RestClient(await first.start(), world.users.admin.token);
    const spaceId = (await api.post(`/orgs/${world.orgId}/spaces`, { title: 'Talk' })).body.id as string;
    const crId = (await api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Talk' })).body.id as string;
    const list = `/spaces/${spaceId}/change-requests/${crId}/comments`;
    const ids: string[] = [];
    // Large comments, then small ones, until not one more page fits.
    for (const size of [200_000, 1_000]) {
      for (;;) {
        const res = await api.post(list, { body: { markdown: 'x'.repeat(size) } });
        if (res.status !== 200) {
          expect(res.status).toBe(507);
          break;
        }
        ids.push(res.body.id as string);
      }
    }
    await first.stop();
    db.close();

    // Before: the start's write probe made a table, which needs a page ("database or disk is full"),
    // so a database a token had filled could not be started again, nor anything in it deleted.
    const reopened = openDatabase(file, cap);
    const again = buildUpstream({ db: reopened, clock });
    try {
      const after = new RestClient(await again.start(), world.users.admin.token);
      expect((await after.get(`${list}/${ids[0]}`)).status).toBe(200);
      expect((await after.delete(`${list}/${ids[0]}`)).status).toBe(204);
      expect((await after.post(list, { body: { markdown: 'x'.repeat(100_000) } })).status).toBe(200);
    } finally {
      await again.stop();
      reopened.close();
    }
  });
});

describe('an organization of many spaces', () => {
  it('serves the recommended questions, an ask and the members over 200,000 spaces in a 64 MB heap', { timeout: 120_000 }, async () => {
    const file = join(dir, 'spaces.db');
    const first = await spawnUpstream(file, running);
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    // As 200,000 duplicates of an empty space leave them (a create token, about 150 MB of database).
    const db = openDatabase(file);
    const empty = db.prepare(`SELECT * FROM spaces WHERE title = 'Scratchpad'`).get() as Record<string, unknown>;
    const columns = Object.keys(empty).filter((c) => c !== 'id' && c !== 'position');
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
         INSERT INTO spaces (id, position, ${columns.join(', ')})
         SELECT 'copy' || i, 1000 + i, ${columns.map((c) => `s.${c}`).join(', ')} FROM n, spaces s WHERE s.id = ?`,
    ).run(empty.id);
    db.close();

    const upstream = await spawnUpstream(file, running, ['--max-old-space-size=64']);
    const api = new RestClient(upstream.url, upstream.token);
    const ask = `/orgs/${empty.organization_id as string}/ask`;
    // Before: every readable space read at once, out of heap.
    const questions = await api.get(`${ask}/questions`);
    expect(questions.status).toBe(200);
    expect(questions.body.questions).toHaveLength(10);
    expect((await api.post(ask, { query: 'How do I authenticate?' })).status).toBe(200);
    expect(upstream.child.exitCode).toBeNull();
  });
});
