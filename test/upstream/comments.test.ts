import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editChangeRequestPages } from '../../src/upstream/content/merge.js';
import { pagesOf } from '../../src/upstream/content/revisions.js';
import { MAX_QUOTE_DEPTH } from '../../src/upstream/ask/document.js';
import { PAGE_MAX_BYTES } from '../../src/upstream/pagination.js';
import { fixtures } from '../helpers/fixtures.js';
import { startUpstream, type RestClient, type TestUpstream } from '../helpers/upstream.js';
import type { WorldUser } from '../helpers/world.js';

let t: TestUpstream;
let as: Record<WorldUser, RestClient>;
let spaceId: string;
let cr: { id: string; number: number; revision: string };
let pageId: string;
let base: string;

beforeAll(async () => {
  t = await startUpstream();
  as = fixtures(() => t).clients();
  // A space where each acme member has their organization role, and a change request in it.
  spaceId = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Talk' })).body.id;
  await t.api.patch(`/spaces/${spaceId}`, { defaultLevel: 'admin' });
  cr = (await as.edit.post(`/spaces/${spaceId}/change-requests`, { subject: 'Discuss' })).body;
  pageId = pagesOf(t.upstream.db, cr.revision)[0].page_id;
  base = `/spaces/${spaceId}/change-requests/${cr.id}/comments`;
});
afterAll(() => t.stop());

const markdown = (text: string) => ({ body: { markdown: text } });
const crOf = async () => (await t.api.get(`/spaces/${spaceId}/change-requests/${cr.id}`)).body;

describe('comments', () => {
  let comment: any;

  it('a commenter posts on a page of the change request; the body comes back as a document by default', async () => {
    const res = await as.comment.post(base, { ...markdown('# Title\n\nIs this right?'), page: pageId, node: 'block-1' });
    expect(res.status).toBe(200);
    comment = res.body;
    expect(comment).toMatchObject({
      object: 'comment',
      postedBy: { id: t.world.users.comment.id },
      replies: 0,
      reactions: [],
      status: 'open',
      target: {
        changeRequest: cr.id,
        space: spaceId,
        revision: cr.revision,
        node: { id: 'block-1' },
        page: { id: pageId, title: 'Introduction', path: 'introduction', outdated: false },
      },
      urls: { location: `${t.url}${base}/${comment.id}` },
      permissions: { view: true, edit: true, reply: true, delete: true },
    });
    expect(comment.body.document.nodes.map((n: any) => n.type)).toEqual(['heading-1', 'paragraph']);
    expect(comment.body.document.nodes[1].nodes[0].leaves[0].text).toBe('Is this right?');
    expect(comment.resolvedAt).toBeUndefined();
    expect(comment.editedAt).toBeUndefined();
    expect((await crOf()).comments).toBe(1);
  });

  it('GET with format=markdown gives {markdown}; another member sees narrower permissions', async () => {
    const res = await as.review.get(`${base}/${comment.id}`, { format: 'markdown' });
    expect(res.body.body).toEqual({ markdown: '# Title\n\nIs this right?' });
    expect(res.body.permissions).toEqual({ view: true, edit: false, reply: true, delete: false });
    const reader = await as.read.get(`${base}/${comment.id}`);
    expect(reader.body.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
    const admin = await t.api.get(`/spaces/${spaceId}/change-requests/${cr.number}/comments/${comment.id}`);
    expect(admin.body.permissions.delete).toBe(true);
    expect((await t.api.get(`${base}/nope`)).status).toBe(404);
    expect((await t.api.get(`${base}/${comment.id}`, { format: 'html' })).status).toBe(400);
  });

  it('resolve and reopen: status, resolvedAt and resolvedBy; the open count follows', async () => {
    const resolved = await as.review.put(`${base}/${comment.id}`, { resolved: true });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      status: 'resolved',
      resolvedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      resolvedBy: { object: 'user', id: t.world.users.review.id },
    });
    expect((await crOf()).comments).toBe(0);
    const again = await as.comment.put(`${base}/${comment.id}`, { resolved: true });
    expect(again.body.resolvedBy.id).toBe(t.world.users.review.id);
    const reopened = await as.comment.put(`${base}/${comment.id}`, { resolved: false });
    expect(reopened.body.status).toBe('open');
    expect(reopened.body.resolvedAt).toBeUndefined();
    expect(reopened.body.resolvedBy).toBeUndefined();
    expect((await crOf()).comments).toBe(1);
    expect((await as.read.put(`${base}/${comment.id}`, { resolved: true })).status).toBe(403);
    expect((await as.comment.put(`${base}/${comment.id}`, { resolved: 'yes' })).body.error.message).toBe(
      'resolved: must be a boolean, got string',
    );
  });

  it('only the author edits the body; editedAt is set', async () => {
    const denied = await as.review.put(`${base}/${comment.id}`, markdown('hijacked'));
    expect(denied.status).toBe(403);
    const edited = await as.comment.put(`${base}/${comment.id}`, markdown('Is this right now?'));
    expect(edited.body.editedAt).toEqual(expect.any(String));
    expect((await t.api.get(`${base}/${comment.id}`, { format: 'markdown' })).body.body.markdown).toBe('Is this right now?');
    expect((await as.comment.put(`${base}/${comment.id}`, { body: {} })).body.error.message).toBe('body.markdown: is required');
  });

  it('reactions are added once per user, aggregated per emoji and removed', async () => {
    await as.comment.put(`${base}/${comment.id}`, { addedReactions: ['👍', '🎉'] });
    await as.review.put(`${base}/${comment.id}`, { addedReactions: ['👍'] });
    const twice = await as.review.put(`${base}/${comment.id}`, { addedReactions: ['👍'] });
    expect(twice.body.reactions).toEqual([
      {
        emoji: '👍',
        count: 2,
        users: [
          { user: expect.objectContaining({ id: t.world.users.comment.id }), reactedAt: expect.any(String) },
          { user: expect.objectContaining({ id: t.world.users.review.id }), reactedAt: expect.any(String) },
        ],
      },
      {
        emoji: '🎉',
        count: 1,
        users: [{ user: expect.objectContaining({ id: t.world.users.comment.id }), reactedAt: expect.any(String) }],
      },
    ]);
    const removed = await as.comment.put(`${base}/${comment.id}`, { removedReactions: ['👍', '🎉', '🚀'] });
    expect(removed.body.reactions).toEqual([
      { emoji: '👍', count: 1, users: [{ user: expect.objectContaining({ id: t.world.users.review.id }), reactedAt: expect.any(String) }] },
    ]);
    expect((await as.comment.put(`${base}/${comment.id}`, { addedReactions: [''] })).body.error.message).toBe(
      'addedReactions[0]: must be at least 1 characters long',
    );
    expect((await as.comment.put(`${base}/${comment.id}`, { addedReactions: ['x'.repeat(51)] })).status).toBe(400);
    expect((await as.read.put(`${base}/${comment.id}`, { addedReactions: ['👍'] })).status).toBe(403);
  });

  it('reactions are single emoji, at most 20 per request and 20 different emoji per comment or reply', async () => {
    const post = (await as.comment.post(base, markdown('React to me'))).body;
    const reply = (await as.comment.post(`${base}/${post.id}/replies`, markdown('Me too'))).body;
    const faces = Array.from({ length: 21 }, (_, i) => String.fromCodePoint(0x1f600 + i));
    for (const path of [`${base}/${post.id}`, `${base}/${post.id}/replies/${reply.id}`]) {
      const flood = await as.comment.put(path, { addedReactions: Array.from({ length: 15_000 }, (_, i) => `r${i}`) });
      expect(flood.body.error).toEqual({ code: 400, message: 'addedReactions: must have at most 20 items' });
      for (const text of ['x', 'hello', '👍👍', ':+1:', '1']) {
        const res = await as.comment.put(path, { addedReactions: [text] });
        expect(res.body.error, text).toEqual({ code: 400, message: 'addedReactions[0]: must be a single emoji' });
      }
      expect((await as.comment.put(path, { removedReactions: ['nope'] })).status).toBe(400);
      const ok = await as.comment.put(path, { addedReactions: [...faces.slice(0, 18), '👨‍👩‍👧', '🇫🇷'] });
      expect(ok.status).toBe(200);
      expect(ok.body.reactions.map((r: { emoji: string }) => r.emoji)).toHaveLength(20);
      // Another user adding a 21st different emoji is refused, and nothing of that PUT is kept.
      const over = await as.review.put(path, { addedReactions: ['👍', faces[20]] });
      expect(over.body.error).toEqual({ code: 400, message: 'addedReactions: a comment or reply holds at most 20 different emoji' });
      const after = (await as.review.get(path)).body.reactions as Array<{ emoji: string; count: number }>;
      expect(after).toHaveLength(20);
      expect(after.every((r) => r.count === 1)).toBe(true);
      // An emoji already there may still be added by others.
      expect((await as.review.put(path, { addedReactions: [faces[0]] })).body.reactions[0]).toMatchObject({ emoji: faces[0], count: 2 });
    }
  });

  it('the target page turns outdated once the change request edits it', async () => {
    editChangeRequestPages(
      t.upstream.db,
      cr.id,
      t.world.users.edit.id,
      [{ page_id: pageId, markdown: 'Changed.' }],
      t.clock.now().toISOString(),
    );
    const res = await t.api.get(`${base}/${comment.id}`);
    expect(res.body.target.page.outdated).toBe(true);
    expect(res.body.target.revision).toBe((await crOf()).revision);
  });
});

describe('comment errors and lists', () => {
  it('create: body required, page of the change request, role comment, members only', async () => {
    const noBody = await as.comment.post(base, { page: pageId });
    expect(noBody.status).toBe(400);
    expect(noBody.body.error.message).toBe('body: is required');
    const badPage = await as.comment.post(base, { ...markdown('x'), page: 'not-a-page' });
    expect(badPage.status).toBe(400);
    expect(badPage.body.error.message).toBe('page: is not a page of the change request');
    expect((await as.read.post(base, markdown('x'))).status).toBe(403);
    expect((await as.outsider.post(base, markdown('x'))).status).toBe(404);
    expect((await as.outsider.get(base)).status).toBe(404);
    expect((await t.api.as(undefined).get(base)).status).toBe(401);
    expect((await t.api.get(`/spaces/${spaceId}/change-requests/999/comments`)).status).toBe(404);
  });

  it('lists newest first by default, asc on demand, filters by status and page, pages to the end', async () => {
    const other = await as.edit.post(`/spaces/${spaceId}/change-requests`);
    const list = `/spaces/${spaceId}/change-requests/${other.body.id}/comments`;
    const posted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await as.comment.post(list, { ...markdown(`c${i}`), ...(i < 2 ? { page: pageId } : {}) });
      posted.push(res.body.id);
    }
    await as.comment.put(`${list}/${posted[3]}`, { resolved: true });
    const desc = await t.api.get(list, { format: 'markdown' });
    expect(desc.body.items.map((c: any) => c.body.markdown)).toEqual(['c4', 'c3', 'c2', 'c1', 'c0']);
    const asc = await t.api.all(list, { order: 'asc', limit: 2 });
    expect(asc.pages).toBe(3);
    expect(asc.items.map((c: any) => c.id)).toEqual(posted);
    const walkedDesc = await t.api.all(list, { limit: 2 });
    expect(walkedDesc.items.map((c: any) => c.id)).toEqual([...posted].reverse());
    expect((await t.api.get(list, { status: 'resolved' })).body.items.map((c: any) => c.id)).toEqual([posted[3]]);
    expect((await t.api.get(list, { status: 'open' })).body.count).toBe(4);
    expect((await t.api.get(list, { status: 'all' })).body.count).toBe(5);
    expect((await t.api.get(list, { targetPage: pageId, order: 'asc' })).body.items.map((c: any) => c.id)).toEqual(posted.slice(0, 2));
    for (const [name, value] of [
      ['order', 'up'],
      ['status', 'closed'],
      ['format', 'html'],
      ['limit', 0],
    ] as const) {
      const res = await t.api.get(list, { [name]: value });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(new RegExp(`^${name}:`));
    }
  });

  it('DELETE: the author or a space admin; others get 403', async () => {
    const mine = (await as.comment.post(base, markdown('to delete'))).body;
    expect((await as.review.delete(`${base}/${mine.id}`)).status).toBe(403);
    expect((await as.read.delete(`${base}/${mine.id}`)).status).toBe(403);
    expect((await as.comment.delete(`${base}/${mine.id}`)).status).toBe(204);
    expect((await t.api.get(`${base}/${mine.id}`)).status).toBe(404);
    const theirs = (await as.comment.post(base, markdown('moderated'))).body;
    expect((await t.api.delete(`${base}/${theirs.id}`)).status).toBe(204);
    expect((await t.api.delete(`${base}/${theirs.id}`)).status).toBe(404);
  });
});

describe('replies', () => {
  let comment: any;
  let replies: string;
  beforeAll(async () => {
    comment = (await as.comment.post(base, markdown('Thread'))).body;
    replies = `${base}/${comment.id}/replies`;
  });

  it('create (with format), get, list oldest first, count on the comment', async () => {
    const first = await as.review.post(replies, markdown('First'), { format: 'markdown' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      object: 'comment-reply',
      postedBy: { id: t.world.users.review.id },
      body: { markdown: 'First' },
      reactions: [],
      urls: { location: `${t.url}${replies}/${first.body.id}` },
      permissions: { view: true, edit: true, reply: true, delete: true },
    });
    const second = await as.comment.post(replies, markdown('Second'));
    expect(second.body.body.document.nodes[0].type).toBe('paragraph');
    const third = await as.edit.post(replies, markdown('Third'));
    const got = await as.comment.get(`${replies}/${first.body.id}`, { format: 'markdown' });
    expect(got.body).toMatchObject({ body: { markdown: 'First' }, permissions: { edit: false, delete: false, reply: true } });
    const walked = await t.api.all(replies, { limit: 2, format: 'markdown' });
    expect(walked.pages).toBe(2);
    expect(walked.items.map((r: any) => r.body.markdown)).toEqual(['First', 'Second', 'Third']);
    expect((await t.api.get(`${base}/${comment.id}`)).body.replies).toBe(3);
    expect((await as.read.post(replies, markdown('no'))).status).toBe(403);
    expect((await as.comment.post(replies, {})).body.error.message).toBe('body: is required');
    expect((await t.api.get(`${base}/nope/replies`)).status).toBe(404);
    expect((await t.api.get(`${replies}/nope`)).status).toBe(404);
    expect(third.status).toBe(200);
  });

  it('PUT: body by the author only, reactions by commenters, resolved resolves or reopens the comment', async () => {
    const reply = (await as.review.post(replies, markdown('Typo'))).body;
    const path = `${replies}/${reply.id}`;
    expect((await as.comment.put(path, markdown('hijacked'))).status).toBe(403);
    const edited = await as.review.put(path, markdown('Fixed'));
    expect(edited.body.editedAt).toEqual(expect.any(String));
    const reacted = await as.comment.put(path, { addedReactions: ['❤️'] });
    expect(reacted.body.reactions).toEqual([
      {
        emoji: '❤️',
        count: 1,
        users: [{ user: expect.objectContaining({ id: t.world.users.comment.id }), reactedAt: expect.any(String) }],
      },
    ]);
    // The seed's "same as PUT comment" (and the official UpdateCommentSchema): a reply's thread is its comment.
    const thread = path.slice(0, path.indexOf('/replies/'));
    const resolved = await as.comment.put(path, { resolved: true });
    expect(resolved.status).toBe(200);
    expect(resolved.body.object).toBe('comment-reply');
    expect((await t.api.get(thread)).body).toMatchObject({ status: 'resolved', resolvedBy: { id: t.world.users.comment.id } });
    expect((await as.review.put(path, { resolved: false })).status).toBe(200);
    expect((await t.api.get(thread)).body.status).toBe('open');
    expect((await as.read.put(path, { resolved: true })).status).toBe(403);
    expect((await as.review.put(path, { resolved: 'yes' })).body.error.message).toBe('resolved: must be a boolean, got string');
  });

  it('DELETE: the author or a space admin; deleting the comment removes its replies', async () => {
    const reply = (await as.review.post(replies, markdown('Bye'))).body;
    expect((await as.comment.delete(`${replies}/${reply.id}`)).status).toBe(403);
    expect((await as.review.delete(`${replies}/${reply.id}`)).status).toBe(204);
    expect((await t.api.get(`${replies}/${reply.id}`)).status).toBe(404);
    const other = (await as.comment.post(replies, markdown('Admin removes this'))).body;
    expect((await t.api.delete(`${replies}/${other.id}`)).status).toBe(204);
    expect((await as.comment.delete(`${base}/${comment.id}`)).status).toBe(204);
    expect((await t.api.get(replies)).status).toBe(404);
    const leftovers = t.upstream.db.prepare('SELECT COUNT(*) AS n FROM comment_replies WHERE comment_id = ?').get(comment.id) as {
      n: number;
    };
    expect(leftovers.n).toBe(0);
  });
});

describe('a list of large comments', () => {
  it('ends a page once its rows pass PAGE_MAX_BYTES, with a next token; following it gives every comment once, newest first', async () => {
    const crId = (await as.edit.post(`/spaces/${spaceId}/change-requests`, { subject: 'Large' })).body.id;
    const list = `/spaces/${spaceId}/change-requests/${crId}/comments`;
    const posted: string[] = [];
    for (let i = 0; i < 12; i++) posted.push((await as.comment.post(list, markdown(`${i} ${'x'.repeat(900_000)}`))).body.id);
    const seen: string[] = [];
    let page: string | undefined;
    const sizes: number[] = [];
    do {
      const res = await t.api.get(`${list}?limit=1000${page ? `&page=${page}` : ''}`);
      expect(res.status).toBe(200);
      sizes.push(JSON.stringify(res.body).length);
      expect(res.body.count).toBe(res.body.items.length);
      seen.push(...res.body.items.map((c: { id: string }) => c.id));
      page = res.body.next?.page;
    } while (page);
    expect(sizes.length).toBeGreaterThan(1);
    // A page passes the bound by one row at most.
    for (const size of sizes) expect(size).toBeLessThan(PAGE_MAX_BYTES + 1024 * 1024);
    // Newest first, as any comment list.
    expect(seen).toEqual([...posted].reverse());
  });
});

describe('a list of large comments served as documents', () => {
  it('ends a page once its items pass PAGE_MAX_BYTES as documents, not their markdown', async () => {
    const crId = (await as.edit.post(`/spaces/${spaceId}/change-requests`, { subject: 'Marks' })).body.id;
    const list = `/spaces/${spaceId}/change-requests/${crId}/comments`;
    // 200 KB of `*a* ` each: some 2 MB as a document. Two made a page of 4 MB, whose rows were 400 KB.
    const posted: string[] = [];
    for (let i = 0; i < 2; i++) posted.push((await as.comment.post(list, markdown('*a* '.repeat(50_000)))).body.id);
    const sizes: number[] = [];
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await t.api.get(`${list}?limit=10${page ? `&page=${page}` : ''}`);
      expect(res.status).toBe(200);
      sizes.push(JSON.stringify(res.body).length);
      seen.push(...res.body.items.map((c: { id: string }) => c.id));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual([...posted].reverse());
    expect(sizes).toHaveLength(2);
    for (const size of sizes) expect(size).toBeLessThan(2.5 * PAGE_MAX_BYTES);
    // As markdown the rows are what the page holds: both on one page.
    const asMarkdown = await t.api.get(`${list}?limit=10&format=markdown`);
    expect(asMarkdown.body.items).toHaveLength(2);
  });
});

describe('a comment whose document could be huge', () => {
  /** A read without the OpenAPI check: Ajv's check of a document takes seconds past a dozen levels of quotes. */
  const read = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${t.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${as.comment.token}`, 'content-type': 'application/json' },
    });
    return { status: res.status, body: await res.json() };
  };

  it('is created, read and listed as a document whose quotes nest MAX_QUOTE_DEPTH deep, the deeper `>` kept as text', async () => {
    const crId = (await as.edit.post(`/spaces/${spaceId}/change-requests`, { subject: 'Quotes' })).body.id;
    const list = `/spaces/${spaceId}/change-requests/${crId}/comments`;
    // 3,000 levels overflowed JSON.stringify, 100,000 the converter: a 500 for a stored comment.
    for (const levels of [3_000, 100_000]) {
      const created = await read(list, { method: 'POST', body: JSON.stringify(markdown(`${'>'.repeat(levels)} deep`)) });
      expect(created.status).toBe(200);
      let node = created.body.body.document.nodes[0];
      for (let depth = 1; depth < MAX_QUOTE_DEPTH; depth++) node = node.nodes[0];
      expect(node.type).toBe('blockquote');
      expect(node.nodes[0].type).toBe('paragraph');
      expect(node.nodes[0].nodes[0].leaves[0].text).toBe(`${'>'.repeat(levels - MAX_QUOTE_DEPTH)} deep`);
      expect((await read(`${list}/${created.body.id}`)).body).toEqual(created.body);
    }
    const listed = await read(list);
    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(2);
  });
  it('holds one node per 6 characters of markdown at most (and 64): the rest is one plain leaf, the text kept', async () => {
    const crId = (await as.edit.post(`/spaces/${spaceId}/change-requests`, { subject: 'Marks' })).body.id;
    const list = `/spaces/${spaceId}/change-requests/${crId}/comments`;
    // 500,000 leaves of `*a*` and ` ` made 25 MB of JSON, more of heap: one read ran `npm start` out of it.
    const text = '*a* '.repeat(240_000);
    const created = await read(`${list}?format=markdown`, { method: 'POST', body: JSON.stringify(markdown(text)) });
    expect(created.status).toBe(200);
    const got = await read(`${list}/${created.body.id}`);
    expect(got.status).toBe(200);
    const leaves: Array<{ text: string; marks: unknown[] }> = got.body.body.document.nodes.flatMap((b: any) =>
      b.nodes.flatMap((t: any) => t.leaves),
    );
    // The budget, and the rest (one leaf) with the text before the last mark (one more).
    expect(leaves.length).toBeLessThanOrEqual(64 + text.length / 6 + 2);
    expect(JSON.stringify(got.body).length).toBeLessThan(12 * text.length);
    // The marks made, then the rest as written.
    expect(leaves[0]).toEqual({ object: 'leaf', text: 'a', marks: [{ object: 'mark', type: 'italic' }] });
    const rest = leaves[leaves.length - 1];
    expect(rest.marks).toEqual([]);
    expect(text.endsWith(rest.text)).toBe(true);
    expect(rest.text.length).toBeGreaterThan(text.length / 2);
  });
  it('makes a heading of a line of spaces in one pass: created and read at once, its title as written', async () => {
    const crId = (await as.edit.post(`/spaces/${spaceId}/change-requests`, { subject: 'Spaces' })).body.id;
    const list = `/spaces/${spaceId}/change-requests/${crId}/comments`;
    // The heading pattern backtracked cubically on the spaces: 6,000 held the process a minute per
    // create and per read (the test timed out); now they take under a millisecond.
    const title = `a${' '.repeat(6_000)}b`;
    const created = await read(list, { method: 'POST', body: JSON.stringify(markdown(`# ${title}\n\n## Closed ##  \nText`)) });
    expect(created.status).toBe(200);
    const nodes = created.body.body.document.nodes;
    expect(nodes.map((n: any) => [n.type, n.nodes[0].leaves[0].text])).toEqual([
      ['heading-1', title],
      ['heading-2', 'Closed'],
      ['paragraph', 'Text'],
    ]);
    expect((await read(`${list}/${created.body.id}`)).body).toEqual(created.body);
  });
  it('tells a list item from a line that only starts like one in one pass, however many spaces follow the marker', async () => {
    const crId = (await as.edit.post(`/spaces/${spaceId}/change-requests`, { subject: 'Items' })).body.id;
    const list = `/spaces/${spaceId}/change-requests/${crId}/comments`;
    // A line break other than \n ends the item pattern's `.*`: the spaces were given back one at a
    // time, each time the rest taken again; 200,000 held the process a minute per create and per
    // read (the test timed out).
    const line = `- ${' '.repeat(200_000)}a\rb`;
    const created = await read(list, { method: 'POST', body: JSON.stringify(markdown(`- one\n-\ttwo\n\n${line}`)) });
    expect(created.status).toBe(200);
    const [items, paragraph] = created.body.body.document.nodes;
    expect(items.type).toBe('list-unordered');
    expect(items.nodes.map((item: any) => item.nodes[0].nodes[0].leaves[0].text)).toEqual(['one', 'two']);
    expect(paragraph.type).toBe('paragraph');
    expect(paragraph.nodes[0].leaves[0].text).toBe(line);
    expect((await read(`${list}/${created.body.id}`)).body).toEqual(created.body);
  });
});
