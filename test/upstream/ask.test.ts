import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRevision } from '../../src/upstream/content/revisions.js';
import type { AskStreamEnd } from '../../src/upstream/context.js';
import { Database, migrate } from '../../src/upstream/db/index.js';
import { migrations } from '../../src/upstream/db/migrations/index.js';
import { insertSpace, type SpaceRow } from '../../src/upstream/domain/spaces.js';
import { checkResponse } from '../helpers/conformance.js';
import { startUpstream, type RestClient, type TestUpstream } from '../helpers/upstream.js';

const INSTALLATION = `# Installation

Install the CLI with npm. It needs Node 20 or later.

## Installing with Docker

Run the container with docker compose up. The image exposes the web interface. Mount a volume to keep the data.

## Upgrading

Run npm update to upgrade the CLI. Read the changelog first.
`;

const WEBHOOKS = `# Webhooks

Webhooks notify your server when content changes. Each delivery is signed.

## Retry policy

Failed deliveries are retried five times with exponential backoff.
`;

let t: TestUpstream;
const ends: AskStreamEnd[] = [];
const spaces: Record<string, SpaceRow> = {};
const pageId = (space: SpaceRow, title: string) =>
  (
    t.upstream.db.prepare('SELECT page_id FROM pages WHERE revision_id = ? AND title = ?').get(space.revision_id, title) as {
      page_id: string;
    }
  ).page_id;

function addSpace(name: string, organizationId: string, pages: Array<{ title: string; markdown: string }>, visibility = 'private') {
  spaces[name] = insertSpace(t.upstream.db, t.clock.now().toISOString(), { organizationId, title: name, pages, visibility });
  return spaces[name];
}

beforeAll(async () => {
  t = await startUpstream({ askStreamDelayMs: 5, onAskStreamEnd: (end) => ends.push(end) });
  const { orgId, otherOrgId, users } = t.world;
  addSpace('Guides', orgId, [
    { title: 'Installation', markdown: INSTALLATION },
    { title: 'Webhooks', markdown: WEBHOOKS },
  ]);
  addSpace('Networking', orgId, [
    { title: 'Server', markdown: '# Server\n\nThe server listens on port 3000. Change the port with the port flag.\n' },
    { title: 'Proxy', markdown: '# Proxy\n\nThe proxy forwards traffic from port 80 to the upstream.\n' },
  ]);
  const guestSpace = addSpace('Guest corner', orgId, [
    { title: 'Welcome guests', markdown: '# Welcome guests\n\nGuests may read about the kraken here.\n' },
  ]);
  addSpace('Secret plans', orgId, [
    { title: 'Kraken', markdown: '# Kraken\n\nThe kraken project ships in spring. Docker images are private.\n' },
  ]);
  const deleted = addSpace('Old stuff', orgId, [{ title: 'Zeppelin', markdown: 'The zeppelin docker guide.\n' }]);
  t.upstream.db.prepare('UPDATE spaces SET deleted_at = ? WHERE id = ?').run(t.clock.now().toISOString(), deleted.id);
  addSpace('Globex docs', otherOrgId, [{ title: 'Globex zeppelin', markdown: 'Globex runs a zeppelin on docker.\n' }]);
  t.upstream.db
    .prepare(
      `INSERT INTO content_permissions (target_type, target_id, principal_type, principal_id, role, created_at)
       VALUES ('space', ?, 'user', ?, 'read', ?)`,
    )
    .run(guestSpace.id, users.guest.id, t.clock.now().toISOString());
});
afterAll(() => t.stop());

const askPath = () => `/orgs/${t.world.orgId}/ask`;
const ask = (client: RestClient, body: unknown, query?: Record<string, string | boolean>) => client.post(askPath(), body, query);
const markdownOf = (res: { body: any }) => res.body.answer.answer.markdown as string;

describe('POST /orgs/{organizationId}/ask', () => {
  it('answers with the best passage, quoted under its page title, and a page source', async () => {
    const res = await ask(t.api, { query: 'How do I start the docker container?' }, { format: 'markdown' });
    expect(res.status).toBe(200);
    const { answer } = res.body;
    expect(answer.answer.markdown).toContain('**Installation** › Installing with Docker:');
    expect(answer.answer.markdown).toContain('> Run the container with docker compose up.');
    expect(answer.sources[0]).toEqual({
      type: 'page',
      page: pageId(spaces.Guides, 'Installation'),
      revision: spaces.Guides.revision_id,
      space: spaces.Guides.id,
      sections: ['installing-with-docker'],
      reason: expect.stringContaining('docker'),
    });
    expect(answer.followupQuestions.length).toBeGreaterThan(0);
    expect(answer.followupQuestions).toContain('How does upgrading work?');
    expect(answer).not.toHaveProperty('details');
  });

  it('finds word forms (stemming) and weighs page titles', async () => {
    const res = await ask(t.api, { query: 'webhook deliveries retries' }, { format: 'markdown' });
    expect(res.body.answer.sources.map((s: any) => s.page)).toEqual([pageId(spaces.Guides, 'Webhooks')]);
    expect(markdownOf(res)).toContain('Failed deliveries are retried five times');
  });

  it('answers {} when nothing matches', async () => {
    const res = await ask(t.api, { query: 'quantum entanglement' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await ask(t.api, { query: '   ' })).body).toEqual({});
  });

  it('format: document by default, markdown on request, 400 on anything else', async () => {
    const doc = await ask(t.api, { query: 'docker' });
    const { document } = doc.body.answer.answer;
    expect(doc.body.answer.answer).not.toHaveProperty('markdown');
    expect(document.object).toBe('document');
    const [title, quote] = document.nodes;
    expect(title).toMatchObject({ object: 'block', type: 'paragraph' });
    expect(title.nodes[0].leaves[0]).toEqual({ object: 'leaf', text: 'Installation', marks: [{ object: 'mark', type: 'bold' }] });
    expect(quote.type).toBe('blockquote');
    expect(quote.nodes[0].nodes[0].leaves[0].text).toContain('Run the container with docker compose up.');
    expect((await ask(t.api, { query: 'docker' }, { format: 'document' })).body).toEqual(doc.body);
    const bad = await ask(t.api, { query: 'docker' }, { format: 'html' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('format: must be one of document, markdown');
  });

  it('details=true adds how the query was read and searched', async () => {
    const res = await ask(t.api, { query: 'What is the docker image?', previousQueries: ['installation'] }, { details: true });
    expect(res.body.answer.details).toEqual({
      query: 'What is the docker image?',
      terms: ['docker', 'image'],
      previousTerms: ['installation'],
      spaces: 4,
      pages: 2,
    });
    expect((await ask(t.api, { query: 'docker' }, { details: 'yes' as any })).status).toBe(400);
  });

  it('previousQueries raise the pages that match them', async () => {
    const plain = await ask(t.api, { query: 'port' }, { format: 'markdown' });
    const server = pageId(spaces.Networking, 'Server');
    const proxy = pageId(spaces.Networking, 'Proxy');
    expect(plain.body.answer.sources.map((s: any) => s.page)).toEqual([server, proxy]);
    const refined = await ask(t.api, { query: 'port', previousQueries: ['what does the proxy forward?'] }, { format: 'markdown' });
    expect(refined.body.answer.sources.map((s: any) => s.page)).toEqual([proxy, server]);
    expect(markdownOf(refined).indexOf('**Proxy**')).toBe(0);
  });

  it('previousQueries alone find nothing: the question decides what matches', async () => {
    const res = await ask(t.api, { query: 'kraken', previousQueries: ['docker'] });
    expect(res.body.answer.sources.map((s: any) => s.space).sort()).toEqual([spaces['Guest corner'].id, spaces['Secret plans'].id].sort());
    expect((await ask(t.api, { query: 'quantum', previousQueries: ['docker'] })).body).toEqual({});
  });

  it('validates the body: query required and non-empty, previousQueries at most 10 strings', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'query: is required'],
      [{ query: '' }, 'query: must be at least 1 characters long'],
      [{ query: 3 }, 'query: must be a string, got number'],
      [{ query: 'docker', previousQueries: Array(11).fill('x') }, 'previousQueries: must have at most 10 items'],
      [{ query: 'docker', previousQueries: [1] }, 'previousQueries[0]: must be a string, got number'],
      [{ query: 'docker', question: 'x' }, 'question: is not a known field'],
    ];
    for (const [body, message] of cases) {
      const res = await ask(t.api, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    expect((await t.api.post(askPath())).status).toBe(400);
    const ten = await ask(t.api, { query: 'docker', previousQueries: Array(10).fill('upgrade') });
    expect(ten.status).toBe(200);
    expect(ten.body.answer.sources[0].page).toBe(pageId(spaces.Guides, 'Installation'));
  });

  it('only the current revision of each space counts', async () => {
    const space = addSpace('Changelog', t.world.orgId, [{ title: 'Release notes', markdown: 'Version one adds the walrus mode.\n' }]);
    const now = t.clock.now().toISOString();
    const next = createRevision(
      t.upstream.db,
      space.id,
      space.revision_id,
      [{ page_id: pageId(space, 'Release notes'), title: 'Release notes', markdown: 'Version two adds the narwhal mode.\n' }],
      now,
    );
    t.upstream.db.prepare('UPDATE spaces SET revision_id = ? WHERE id = ?').run(next, space.id);
    expect((await ask(t.api, { query: 'walrus' })).body).toEqual({});
    const res = await ask(t.api, { query: 'narwhal' });
    expect(res.body.answer.sources[0]).toMatchObject({ space: space.id, revision: next });
    t.upstream.db.prepare('UPDATE spaces SET deleted_at = ? WHERE id = ?').run(now, space.id);
  });
});

describe('the full-text index', () => {
  it('follows edits and deletions of pages', async () => {
    const space = addSpace('Zoo', t.world.orgId, [{ title: 'Pool', markdown: 'The otter swims here.\n' }]);
    const db = t.upstream.db;
    expect((await ask(t.api, { query: 'otter' })).body.answer.sources[0].space).toBe(space.id);
    db.prepare('UPDATE pages SET markdown = ? WHERE revision_id = ?').run('The seal swims here.\n', space.revision_id);
    expect((await ask(t.api, { query: 'otter' })).body).toEqual({});
    expect((await ask(t.api, { query: 'seal' })).body.answer.sources[0].space).toBe(space.id);
    db.prepare('DELETE FROM pages WHERE revision_id = ?').run(space.revision_id);
    expect((await ask(t.api, { query: 'seal' })).body).toEqual({});
  });

  it('migration 6 indexes the pages written before it', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = OFF');
    for (const m of migrations.filter((m) => m.version < 6)) db.exec(m.sql);
    db.pragma('user_version = 5');
    db.prepare(
      `INSERT INTO pages (revision_id, page_id, title, path, markdown, position, created_at, updated_at)
       VALUES ('r1', 'p1', 'Old page', 'old-page', 'Written before the index.', 0, '2026-01-01', '2026-01-01')`,
    ).run();
    expect(migrate(db)).toBe(migrations.length - 5);
    const found = db.prepare(`SELECT rowid FROM pages_fts WHERE pages_fts MATCH 'written'`).all();
    expect(found).toHaveLength(1);
    db.close();
  });
});

describe('ask permissions', () => {
  it('never shows pages of spaces the caller cannot read', async () => {
    const guest = t.api.as(t.world.users.guest.token);
    const res = await ask(guest, { query: 'kraken' }, { format: 'markdown' });
    expect(res.status).toBe(200);
    expect(res.body.answer.sources.map((s: any) => s.space)).toEqual([spaces['Guest corner'].id]);
    expect(markdownOf(res)).not.toContain('spring');
    expect((await ask(guest, { query: 'docker' })).body).toEqual({});
    const reader = await ask(t.api.as(t.world.users.read.token), { query: 'kraken' });
    expect(reader.body.answer.sources.map((s: any) => s.space).sort()).toEqual(
      [spaces['Guest corner'].id, spaces['Secret plans'].id].sort(),
    );
  });

  it('leaves out deleted spaces and other organizations', async () => {
    expect((await ask(t.api, { query: 'zeppelin' })).body).toEqual({});
    const globex = await t.api.post(`/orgs/${t.world.otherOrgId}/ask`, { query: 'zeppelin' });
    expect(globex.body.answer.sources[0].space).toBe(spaces['Globex docs'].id);
  });

  it('any member may ask; outsiders, disabled members and unknown organizations get 404; no token 401', async () => {
    for (const role of ['admin', 'create', 'edit', 'review', 'comment', 'read'] as const)
      expect((await ask(t.api.as(t.world.users[role].token), { query: 'docker' })).status).toBe(200);
    for (const user of ['outsider', 'disabled'] as const) {
      const client = t.api.as(t.world.users[user].token);
      expect((await ask(client, { query: 'docker' })).status).toBe(404);
      expect((await client.get(`${askPath()}/questions`)).status).toBe(404);
      expect((await client.get(`${askPath()}/stream`, { query: 'docker' })).status).toBe(404);
    }
    expect((await t.api.post('/orgs/nope/ask', { query: 'docker' })).status).toBe(404);
    expect((await ask(t.api.as(undefined), { query: 'docker' })).status).toBe(401);
    expect((await t.api.as(undefined).get(`${askPath()}/stream`, { query: 'docker' })).status).toBe(401);
  });
});

describe('GET /orgs/{organizationId}/ask/questions', () => {
  it('suggests questions from page titles, then second-level headings, of readable pages', async () => {
    const res = await t.api.get(`${askPath()}/questions`);
    expect(res.status).toBe(200);
    expect(res.body.questions).toEqual([
      'What is Installation?',
      'What is Webhooks?',
      'What is Server?',
      'What is Proxy?',
      'What is Welcome guests?',
      'What is Kraken?',
      'How does installing with Docker work?',
      'How does upgrading work?',
      'What is Retry policy?',
    ]);
    const guest = await t.api.as(t.world.users.guest.token).get(`${askPath()}/questions`);
    expect(guest.body).toEqual({ questions: ['What is Welcome guests?'] });
  });

  it('second-level headings become questions; at most 10, no duplicates', async () => {
    const res = await t.api.get(`/orgs/${t.world.otherOrgId}/ask/questions`);
    expect(res.body.questions).toEqual(['What is Globex zeppelin?']);
    addSpace('Globex ops', t.world.otherOrgId, [
      { title: 'Ops', markdown: '# Ops\n\n## Installing with Docker\n\nx\n\n## Retry policy\n\ny\n' },
    ]);
    const more = await t.api.get(`/orgs/${t.world.otherOrgId}/ask/questions`);
    expect(more.body.questions).toEqual([
      'What is Globex zeppelin?',
      'What is Ops?',
      'How does installing with Docker work?',
      'What is Retry policy?',
    ]);
    const headings = Array.from({ length: 12 }, (_, i) => `## Topic ${i % 11}\n\ntext ${i}\n`).join('\n');
    addSpace('Globex topics', t.world.otherOrgId, [{ title: 'Topics', markdown: headings }]);
    const capped = await t.api.get(`/orgs/${t.world.otherOrgId}/ask/questions`);
    expect(capped.body.questions).toHaveLength(10);
    expect(capped.body.questions).toEqual([
      'What is Globex zeppelin?',
      'What is Ops?',
      'What is Topics?',
      'How does installing with Docker work?',
      'What is Retry policy?',
      'What is Topic 0?',
      'What is Topic 1?',
      'What is Topic 2?',
      'What is Topic 3?',
      'What is Topic 4?',
    ]);
  });
});

/** Server-Sent Events of a response, parsed as JSON, in order. */
async function* events(res: Response): AsyncGenerator<any> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      buffer = buffer.slice(end + 2);
      if (data) yield JSON.parse(data);
    }
  }
}

async function openStream(client: RestClient, path: string, query: Record<string, string> = {}, signal?: AbortSignal) {
  const res = await fetch(client.url(path, query), { headers: { authorization: `Bearer ${client.token}` }, signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('no-cache');
  expect(res.headers.get('connection')).toBe('keep-alive');
  return res;
}

async function collect(res: Response) {
  const all: any[] = [];
  for await (const event of events(res)) all.push(event);
  return all;
}

/** Each event's answer conforms to SearchAIAnswer (checked through the blocking operation's schema). */
const checkAnswer = (answer: unknown) => checkResponse('POST', askPath(), 200, { answer });

describe('GET /orgs/{organizationId}/ask/stream', () => {
  it('streams the answer growing event by event; the last event is the whole answer with sources', async () => {
    const query = 'docker webhooks';
    const received = await collect(await openStream(t.api, `${askPath()}/stream`, { query, format: 'markdown' }));
    const blocking = await ask(t.api, { query }, { format: 'markdown' });
    expect(received.length).toBeGreaterThan(3);
    received.forEach((event) => {
      expect(event.type).toBe('answer');
      checkAnswer(event.answer);
    });
    const texts = received.map((e) => e.answer.answer.markdown as string);
    texts.slice(1).forEach((text, i) => {
      expect(text.length).toBeGreaterThan(texts[i].length);
      expect(text.startsWith(texts[i])).toBe(true);
    });
    expect(texts[0]).toMatch(/^\*\*\w+\*\*.*:\n\n> [^\n]+\.$/);
    expect(received.slice(0, -1).every((e) => e.answer.sources.length === 0)).toBe(true);
    expect(received.at(-1).answer).toEqual(blocking.body.answer);
    expect(received.at(-1).answer.sources.length).toBeGreaterThan(0);
    await vi.waitFor(() => expect(ends.at(-1)).toEqual({ stream: 'answer', reason: 'complete', events: received.length }));
  });

  it('honours format and details', async () => {
    const received = await collect(await openStream(t.api, `${askPath()}/stream`, { query: 'docker', details: 'true' }));
    expect(received[0].answer.answer.document.object).toBe('document');
    expect(received.at(-1).answer.details).toMatchObject({ query: 'docker', terms: ['docker'] });
  });

  it('no match: one event with an empty answer', async () => {
    const received = await collect(await openStream(t.api, `${askPath()}/stream`, { query: 'quantum' }));
    expect(received).toEqual([{ type: 'answer', answer: { followupQuestions: [], sources: [] } }]);
  });

  it('errors before streaming are JSON: query required and non-empty, format enum', async () => {
    for (const [query, message] of [
      [{}, 'query: is required'],
      [{ query: '' }, 'query: must be at least 1 characters long'],
      [{ query: 'docker', format: 'pdf' }, 'format: must be one of document, markdown'],
      [{ query: 'docker', details: '1' }, 'details: must be true or false'],
    ] as const) {
      const res = await t.api.get(`${askPath()}/stream`, query);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
  });
});

describe('GET /orgs/{organizationId}/ask/questions/stream', () => {
  it('streams each recommended question as an event', async () => {
    const list = await t.api.get(`${askPath()}/questions`);
    const received = await collect(await openStream(t.api, `${askPath()}/questions/stream`));
    expect(received).toEqual(list.body.questions.map((question: string) => ({ question })));
    received.forEach((e) => checkResponse('GET', `${askPath()}/questions`, 200, { questions: [e.question] }));
    await vi.waitFor(() => expect(ends.at(-1)).toEqual({ stream: 'questions', reason: 'complete', events: received.length }));
  });
});

describe('stream disconnects', () => {
  it('a client that goes away mid-stream stops the server’s work', async () => {
    const slow: AskStreamEnd[] = [];
    const s = await startUpstream({ askStreamDelayMs: 100, onAskStreamEnd: (end) => slow.push(end) });
    try {
      const sentences = Array.from({ length: 12 }, (_, i) => `Step ${i + 1} of the rollout keeps the lighthouse lit.`);
      insertSpace(s.upstream.db, s.clock.now().toISOString(), {
        organizationId: s.world.orgId,
        pages: [{ title: 'Lighthouse', markdown: `# Lighthouse\n\n${sentences.join(' ')}\n` }],
      });
      const controller = new AbortController();
      const res = await openStream(s.api, `/orgs/${s.world.orgId}/ask/stream`, { query: 'lighthouse' }, controller.signal);
      const first = await events(res).next();
      expect(first.value.answer.answer.document).toBeDefined();
      controller.abort();
      await vi.waitFor(() => expect(slow).toHaveLength(1));
      expect(slow[0].reason).toBe('aborted');
      expect(slow[0].events).toBeLessThan(12);
      expect(slow[0].stream).toBe('answer');
    } finally {
      await s.stop();
    }
  });

  it('stopping the server ends open streams', async () => {
    const seen: AskStreamEnd[] = [];
    // The next event is a minute away: a stop that waited for it would not end within the test's timeout.
    const s = await startUpstream({ askStreamDelayMs: 60_000, onAskStreamEnd: (end) => seen.push(end) });
    insertSpace(s.upstream.db, s.clock.now().toISOString(), {
      organizationId: s.world.orgId,
      pages: [
        { title: 'Alpha', markdown: 'a' },
        { title: 'Beta', markdown: 'b' },
      ],
    });
    const res = await openStream(s.api, `/orgs/${s.world.orgId}/ask/questions/stream`);
    expect((await events(res).next()).value).toEqual({ question: 'What is Alpha?' });
    await s.stop();
    expect(seen).toEqual([{ stream: 'questions', reason: 'aborted', events: 1 }]);
  });
});
