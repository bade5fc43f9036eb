/**
 * Durability of the embedded upstream (issue 9, point 5): writes acknowledged before a `kill -9`
 * are still there after a restart on the same SQLite file, and of two concurrent merges of one
 * change request exactly one wins (REST: one 200, one 409; GraphQL: one payload, one CONFLICT).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openDatabase, schemaVersion } from '../../src/upstream/db/index.js';
import { startStack } from '../helpers/gateway.js';
import { RestClient, spawnUpstream } from '../helpers/upstream.js';

const dir = mkdtempSync(join(tmpdir(), 'docs-graph-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const running: ChildProcess[] = [];
afterEach(() => running.splice(0).forEach((child) => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
const startUpstreamProcess = (db: string) => spawnUpstream(db, running);

const killed = (child: ChildProcess) => new Promise((resolve) => child.once('exit', resolve));

describe('kill -9 during concurrent creates', () => {
  it('loses none of the acknowledged creates', { timeout: 30_000 }, async () => {
    const db = join(dir, 'kill.db');
    const first = await startUpstreamProcess(db);
    const api = new RestClient(first.url, first.token);
    const orgId = (await api.get('/orgs')).body.items[0].id as string;
    const acknowledged: string[] = [];
    const gone = killed(first.child);
    // 200 creates at once; the process is killed -9 as soon as 20 of them are acknowledged.
    const creates = Array.from({ length: 200 }, async (_, i) => {
      const res = await fetch(`${first.url}/orgs/${orgId}/spaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${first.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Durable ${i}` }),
      });
      const body = await res.json();
      expect(res.status).toBe(201);
      acknowledged.push(body.id);
      if (acknowledged.length === 20) first.child.kill('SIGKILL');
    });
    const outcomes = await Promise.allSettled(creates);
    await gone;
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(acknowledged.length);

    const second = await startUpstreamProcess(db);
    const after = new RestClient(second.url, second.token);
    const ids = new Set((await after.all(`/orgs/${orgId}/spaces`, { limit: 1000 })).items.map((s: { id: string }) => s.id));
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
    // Each acknowledged space is whole: readable with its first revision and its pages.
    for (const id of acknowledged.slice(0, 20)) {
      const space = await after.get(`/spaces/${id}`);
      expect(space.status).toBe(200);
      expect(space.body.revision).toEqual(expect.any(String));
    }
  });
});

describe('one database file, one process', () => {
  it('refuses a second process on the file at start; the first goes on writing', { timeout: 60_000 }, async () => {
    const db = join(dir, 'shared.db');
    const first = await startUpstreamProcess(db);
    // Before: the second started and shared the file, and one write in sixteen of either answered
    // 500 (SQLite's "database is locked").
    await expect(startUpstreamProcess(db)).rejects.toThrow(
      /upstream exited \(1\):\nCannot open the database .*shared\.db \(--db \/ DOCS_GRAPH_DB\): the file is in use by another process/,
    );
    const api = new RestClient(first.url, first.token);
    const orgId = (await api.get('/orgs')).body.items[0].id as string;
    expect((await api.post(`/orgs/${orgId}/spaces`, { title: 'Still mine' })).status).toBe(201);
  });

  it('refuses a database written by a newer release (a higher schema version)', { timeout: 30_000 }, async () => {
    const file = join(dir, 'newer.db');
    const db = openDatabase(file);
    db.pragma(`user_version = ${schemaVersion() + 1}`);
    db.close();
    // Before: served with a schema this release does not know.
    await expect(startUpstreamProcess(file)).rejects.toThrow(
      new RegExp(
        `its schema is version ${schemaVersion() + 1}, newer than this release's ${schemaVersion()}: run the release that wrote it`,
      ),
    );
  });
});

describe('two concurrent merges of one change request', () => {
  it('exactly one wins: over REST one 200 and one 409, through the gateway one payload and one CONFLICT', { timeout: 30_000 }, async () => {
    await using t = await startStack();
    const newChangeRequest = async () => {
      const space = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Merged once' })).body;
      const cr = (await t.api.post(`/spaces/${space.id}/change-requests`, { subject: 'Race' })).body;
      return { spaceId: space.id as string, changeRequestId: cr.id as string };
    };
    for (let round = 0; round < 5; round++) {
      const { spaceId, changeRequestId } = await newChangeRequest();
      const path = `/spaces/${spaceId}/change-requests/${changeRequestId}/merge`;
      const both = await Promise.all([t.api.post(path), t.api.post(path)]);
      expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
      const space = (await t.api.get(`/spaces/${spaceId}`)).body;
      expect(space.revision).toBe(both.find((r) => r.status === 200)!.body.revision);
    }
    for (let round = 0; round < 5; round++) {
      const input = await newChangeRequest();
      const both = await Promise.all([0, 1].map(() => t.mutate('mergeChangeRequest', input, 'revision')));
      const codes = both.map((r) => (r.errors ? r.errors[0].extensions?.code : 'OK')).sort();
      expect(codes).toEqual(['CONFLICT', 'OK']);
    }
  });
});
