/**
 * An organization with many spaces: the lists that find who may see which space ran four queries
 * per space, and a member's spaces sorted every space of the organization for each batch of rows.
 * With 20,000 spaces (a space is duplicated in a millisecond), one guest's `GET
 * …/members/{userId}/spaces` held the event loop, the gateway's too under `npm start`, for 1.9 s.
 * Counted here: the statements a request runs, and whether each is served in its index's order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/upstream/db/index.js';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import { addAskContent, DOCKER_QUESTION } from '../helpers/askContent.js';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

const SPACES = 300;

let t: TestUpstream;
const { as } = fixtures(() => t);

/**
 * The SQL of every statement run until `stop`, as the upstream's code asks for them, how many
 * rows they gave, and how many of those held a page's text (`markdown`).
 */
function recordStatements(db: Db) {
  const prepare = db.prepare;
  const sql: string[] = [];
  let texts = 0;
  let rows = 0;
  const count = (row: unknown) => {
    if (row !== undefined) rows++;
    if (row && typeof row === 'object' && 'markdown' in row) texts++;
    return row;
  };
  db.prepare = ((text: string) => {
    sql.push(text);
    const statement = prepare(text);
    return new Proxy(statement, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (typeof value !== 'function') return value;
        if (key === 'all') return (...args: unknown[]) => (value.apply(target, args) as unknown[]).map(count);
        if (key === 'get') return (...args: unknown[]) => count(value.apply(target, args));
        if (key === 'iterate')
          return function* (...args: unknown[]) {
            for (const row of value.apply(target, args) as Iterable<unknown>) yield count(row);
          };
        return value.bind(target);
      },
    });
  }) as Db['prepare'];
  return {
    sql,
    texts: () => texts,
    rows: () => rows,
    stop: () => {
      db.prepare = prepare;
    },
  };
}

/** The statements of one request (the test's client waits for its answer), and the page texts they read. */
async function recorded(send: () => Promise<{ status: number }>) {
  const recording = recordStatements(t.upstream.db);
  try {
    expect((await send()).status).toBe(200);
    return { sql: recording.sql, texts: recording.texts(), rows: recording.rows() };
  } finally {
    recording.stop();
  }
}

const statementsOf = async (path: string, who: 'guest' | 'admin' = 'guest') => (await recorded(() => as(who).get(path))).sql;

beforeAll(async () => {
  t = await startUpstream();
  const { orgId, users } = t.world;
  const ids: string[] = [];
  for (let i = 0; i < SPACES; i++) {
    const res = await t.api.post(`/orgs/${orgId}/spaces`, { title: `Space ${i}` });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  expect((await t.api.post(`/spaces/${ids[7]}/permissions`, { role: 'comment', users: [users.guest.id] })).status).toBe(204);
});
afterAll(() => t.stop());

describe(`an organization with ${SPACES} spaces`, () => {
  it('a member’s spaces, the members list and the spaces list run a number of statements that does not grow with the spaces', async () => {
    const { orgId, users } = t.world;
    const members = `/orgs/${orgId}/members`;
    const mine = await statementsOf(`${members}/${users.guest.id}/spaces`);
    const list = await statementsOf(members);
    const spaces = await statementsOf(`/orgs/${orgId}/spaces`);
    const questions = await statementsOf(`/orgs/${orgId}/ask/questions`);
    // Before: 614, 4,221, 612 and 605 (two to four per space, and per member for the counts).
    // After: 14, 22, 12 and 7.
    expect(mine.length).toBeLessThan(40);
    expect(list.length).toBeLessThan(60);
    expect(spaces.length).toBeLessThan(40);
    expect(questions.length).toBeLessThan(40);
  });

  it('a guest’s lists and count read the spaces their grants reach, not every space of the organization', async () => {
    const { orgId, users } = t.world;
    const guest = `/orgs/${orgId}/members/${users.guest.id}`;
    const rows = async (path: string, who: 'guest' | 'admin') => (await recorded(() => as(who).get(path))).rows;
    // Before: 307, 309 and 307 rows (every space of the organization, each checked here); after: 9, 12 and 9.
    expect(await rows(`/orgs/${orgId}/spaces`, 'guest')).toBeLessThan(60);
    expect(await rows(`${guest}/spaces`, 'admin')).toBeLessThan(60);
    expect(await rows(guest, 'admin')).toBeLessThan(60);
  });

  it('answers as before: the guest’s one space, and the counts of every member', async () => {
    const { orgId, users } = t.world;
    const mine = await as('guest').all(`/orgs/${orgId}/members/${users.guest.id}/spaces`);
    expect(mine.items.map((x) => [x.permission, x.space.title])).toEqual([['comment', 'Space 7']]);
    const counts = Object.fromEntries((await t.api.all(`/orgs/${orgId}/members`)).items.map((m) => [m.id, m.spaces] as const));
    expect(counts[users.guest.id]).toBe(1);
    expect(counts[users.read.id]).toBe(SPACES);
    expect(counts[users.admin.id]).toBe(SPACES);
    expect(counts[users.disabled.id]).toBe(0);
  });

  it('reads a member’s spaces in an index’s order, not by sorting every space for each batch', async () => {
    const { orgId, users } = t.world;
    const { db } = t.upstream;
    const reads = (await statementsOf(`/orgs/${orgId}/members/${users.guest.id}/spaces`)).filter((sql) =>
      /^SELECT \* FROM spaces WHERE organization_id/.test(sql),
    );
    expect(reads.length).toBeGreaterThan(0);
    for (const sql of reads) {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array<string>(sql.split('?').length - 1).fill('x')) as Array<{
        detail: string;
      }>;
      expect(plan.map((p) => p.detail).join('; ')).not.toMatch(/TEMP B-TREE/);
    }
  });
});

describe('the ask over many copies of a space', () => {
  const COPIES = 100;
  beforeAll(async () => {
    const { guides } = addAskContent(t);
    // Ten more titles, before the copies: enough questions without reading any page's text.
    insertSpace(t.upstream.db, t.clock.now().toISOString(), {
      organizationId: t.world.orgId,
      title: 'Topics',
      pages: Array.from({ length: 10 }, (_, i) => ({ title: `Topic ${i}`, markdown: `## Part ${i}\n\nText.\n` })),
    });
    for (let i = 0; i < COPIES; i++) expect((await t.api.post(`/spaces/${guides.id}/duplicate`)).status).toBe(201);
  });

  it('reads the text of the best pages only', async () => {
    const path = `/orgs/${t.world.orgId}/ask`;
    const { texts } = await recorded(() => t.api.post(path, { query: DOCKER_QUESTION, previousQueries: ['upgrading'] }));
    // Before: 203 (every copy's page matched the question, and again the previous query).
    expect(texts).toBeLessThanOrEqual(20);
    const res = await t.api.post(path, { query: DOCKER_QUESTION });
    expect(res.body.answer.sources.length).toBeGreaterThan(0);
  });

  it('finds the recommended questions among the first titles, without reading every page', async () => {
    const { texts } = await recorded(() => t.api.get(`/orgs/${t.world.orgId}/ask/questions`));
    // Before: 412 (every page of every space, its text parsed).
    expect(texts).toBe(0);
    const res = await t.api.get(`/orgs/${t.world.orgId}/ask/questions`);
    expect(res.body.questions).toEqual([
      'What is Introduction?',
      'What is Installation?',
      'How does networking work?',
      ...Array.from({ length: 7 }, (_, i) => `What is Topic ${i}?`),
    ]);
  });
});

describe('a collection of 130,000 spaces', () => {
  it('is transferred to another organization, its spaces with it', { timeout: 60_000 }, async () => {
    const { db } = t.upstream;
    const collection = (await t.api.post(`/orgs/${t.world.orgId}/collections`, { title: 'Crowded' })).body.id as string;
    const space = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Inside', parent: collection })).body.id as string;
    // As 130,000 duplicates of the space leave them (each stays in its collection).
    const row = db.prepare('SELECT * FROM spaces WHERE id = ?').get(space) as Record<string, unknown>;
    const columns = Object.keys(row).filter((c) => c !== 'id' && c !== 'position');
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 130000)
       INSERT INTO spaces (id, position, ${columns.join(', ')})
       SELECT 'copy' || i, 100000 + i, ${columns.map((c) => `s.${c}`).join(', ')} FROM n, spaces s WHERE s.id = ?`,
    ).run(space);
    // Before: 500 (Math.min over 130,001 arguments: RangeError), the gateway's UPSTREAM_ERROR.
    const res = await t.api.post(`/collections/${collection}/transfer`, { organization: t.world.otherOrgId });
    expect(res.status).toBe(200);
    expect(
      db.prepare('SELECT COUNT(*) AS n FROM spaces WHERE parent_id = ? AND organization_id = ?').get(collection, t.world.otherOrgId),
    ).toEqual({
      n: 130001,
    });
  });
});
