/**
 * The embedded upstream's memory is bounded by what a request may hold, not by the process's heap
 * limit (under `npm start` it shares the gateway's 128 MB): checked in a child process with a heap
 * smaller than what an unbounded read would load.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RestClient, spawnUpstream } from '../helpers/upstream.js';

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
