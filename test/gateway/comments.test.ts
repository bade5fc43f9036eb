import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_NODES } from '../../src/upstream/ask/document.js';
import { pagesOf } from '../../src/upstream/content/revisions.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { restUrls, urls } from './urls.js';

let t: TestStack;
let spaceId: string;
let cr: { id: string; number: number; revision: string };
let pageId: string;
let base: string;

beforeAll(async () => {
  t = await startStack();
  spaceId = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Talk' })).body.id;
  await t.api.patch(`/spaces/${spaceId}`, { defaultLevel: 'admin' });
  cr = (await t.api.as(t.world.users.edit.token).post(`/spaces/${spaceId}/change-requests`, { subject: 'Discuss' })).body;
  pageId = pagesOf(t.upstream.db, cr.revision)[0].page_id;
  base = `/spaces/${spaceId}/change-requests/${cr.id}/comments`;
});
afterAll(() => t.stop());

const calls = () => t.calls.map((c) => `${c.method} ${c.path}`);
const tokenOf = (role: 'admin' | 'edit' | 'review' | 'comment' | 'read') => t.world.users[role].token;
const post = async (markdown: string, role: 'admin' | 'comment' | 'review' = 'comment', extra: object = {}) => {
  const res = await t.api.as(tokenOf(role)).post(base, { body: { markdown }, ...extra });
  expect(res.status).toBe(200);
  return res.body;
};
const reply = async (commentId: string, markdown: string, role: 'admin' | 'comment' | 'review' = 'review') =>
  (await t.api.as(tokenOf(role)).post(`${base}/${commentId}/replies`, { body: { markdown } })).body;

/** Runs a mutation named `name` with `input`, selecting `fields`; returns its payload (errors fail). */
const mutate = (name: string, input: Record<string, unknown>, fields: string, role: Parameters<typeof tokenOf>[0] = 'comment') =>
  t.payload(name, input, fields, tokenOf(role));
const mutateRaw = (name: string, input: Record<string, unknown>, fields: string, role: Parameters<typeof tokenOf>[0] = 'comment') =>
  t.mutate(name, input, fields, tokenOf(role));

const COMMENT_FIELDS = `id restId postedAt editedAt status resolvedAt repliesCount ${urls('Comment')}
  postedBy { restId displayName } resolvedBy { restId }
  body { markdown }
  reactions { emoji count users { reactedAt user { restId } } }
  permissions { view edit reply delete }
  target { revision review node page { restId title path outdated createdAt updatedAt } space { restId } changeRequest { restId number } }
  changeRequest { restId }`;

/** What the graph shows for a REST comment fetched in the same format. */
const expected = (c: any) => ({
  restId: c.id,
  postedAt: c.postedAt,
  editedAt: c.editedAt ?? null,
  status: c.status.toUpperCase(),
  resolvedAt: c.resolvedAt ?? null,
  repliesCount: c.replies,
  urls: restUrls('Comment', c.urls),
  postedBy: { restId: c.postedBy.id, displayName: c.postedBy.displayName },
  resolvedBy: c.resolvedBy ? { restId: c.resolvedBy.id } : null,
  body: { markdown: c.body.markdown },
  reactions: c.reactions.map((r: any) => ({
    emoji: r.emoji,
    count: r.count,
    users: r.users.map((u: any) => ({ reactedAt: u.reactedAt, user: { restId: u.user.id } })),
  })),
  permissions: { ...c.permissions, reply: c.permissions.reply ?? null },
  target: {
    revision: c.target.revision,
    review: c.target.review ?? null,
    node: c.target.node ?? null,
    page: c.target.page
      ? {
          restId: c.target.page.id,
          title: c.target.page.title,
          path: c.target.page.path,
          outdated: c.target.page.outdated,
          createdAt: c.target.page.createdAt,
          updatedAt: c.target.page.updatedAt,
        }
      : null,
    space: { restId: spaceId },
    changeRequest: { restId: cr.id, number: cr.number },
  },
  changeRequest: { restId: cr.id },
});

describe('ChangeRequest.comments', () => {
  const ids: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 5; i++)
      ids.push((await post(`Comment ${i}`, i % 2 ? 'review' : 'comment', i === 0 ? { page: pageId, node: 'block-1' } : {})).id);
    await t.api.put(`${base}/${ids[1]}`, { resolved: true, addedReactions: ['👍', '🎉'] });
    await t.api.as(tokenOf('comment')).put(`${base}/${ids[1]}`, { addedReactions: ['👍'] });
    await reply(ids[0], 'A reply');
  });

  const LIST = `query($s: String!, $c: String!, $first: Int, $after: String, $order: SortOrder, $status: CommentStatusFilter,
    $targetPage: String, $format: ContentFormat) {
    changeRequest(spaceId: $s, changeRequestId: $c) {
      comments(first: $first, after: $after, order: $order, status: $status, targetPage: $targetPage, format: $format) {
        nodes { ${COMMENT_FIELDS} } pageInfo { hasNextPage endCursor } } } }`;

  it('equals the REST list (markdown bodies, oldest first), walked page by page to the end', async () => {
    const rest = await t.api.all(base, { order: 'asc', format: 'markdown' });
    const seen: any[] = [];
    let after: string | undefined;
    for (;;) {
      t.resetCalls();
      // No format argument: `body { markdown }` makes the list ask for markdown.
      const conn = (await t.data(LIST, { s: spaceId, c: cr.id, first: 2, after, order: 'ASC' })).changeRequest.comments;
      seen.push(...conn.nodes);
      // The change request, then one list call; every edge (space, change request, users) is known.
      expect(calls().sort()).toEqual([`GET ${base}`, `GET /spaces/${spaceId}`, `GET /spaces/${spaceId}/change-requests/${cr.id}`].sort());
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(seen.map((c) => c.restId)).toEqual(ids);
    expect(seen).toEqual(rest.items.map((c: any) => ({ id: expect.any(String), ...expected(c) })));
    expect(seen[1]).toMatchObject({
      status: 'RESOLVED',
      resolvedBy: { restId: t.world.users.admin.id },
      reactions: [
        { emoji: '👍', count: 2 },
        { emoji: '🎉', count: 1 },
      ],
    });
    expect(seen[0]).toMatchObject({
      repliesCount: 1,
      target: { node: { id: 'block-1' }, page: { restId: pageId, title: 'Introduction' } },
    });
  });

  it('defaults as REST: newest first, every status; `body { document }` gets the document', async () => {
    const data = await t.data(LIST.replace('body { markdown }', 'body { document }'), { s: spaceId, c: cr.id });
    const nodes = data.changeRequest.comments.nodes;
    expect(nodes.map((c: any) => c.restId)).toEqual([...ids].reverse());
    expect(nodes[0].body).toEqual({ document: (await t.api.get(`${base}/${ids[4]}`)).body.body.document });
  });

  it('filters by status and page as REST', async () => {
    const ofStatus = async (status: string) =>
      (await t.data(LIST, { s: spaceId, c: cr.id, status })).changeRequest.comments.nodes.map((c: any) => c.restId);
    expect(await ofStatus('RESOLVED')).toEqual([ids[1]]);
    expect(await ofStatus('OPEN')).toEqual((await t.api.all(base, { status: 'open' })).items.map((c: any) => c.id));
    const onPage = await t.data(LIST, { s: spaceId, c: cr.id, targetPage: pageId });
    expect(onPage.changeRequest.comments.nodes.map((c: any) => c.restId)).toEqual([ids[0]]);
  });

  it('body(format:) fetches the other format only when the listed one differs', async () => {
    t.resetCalls();
    const data = await t.data(
      `query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) {
        comments(first: 1, format: MARKDOWN) { nodes { same: body(format: MARKDOWN) { markdown } other: body(format: DOCUMENT) { document } } } } }`,
      { s: spaceId, c: cr.id },
    );
    const [node] = data.changeRequest.comments.nodes;
    expect(node.same.markdown).toBe('Comment 4');
    expect(node.other.document).toEqual((await t.api.get(`${base}/${ids[4]}`)).body.body.document);
    expect(calls().filter((c) => c === `GET ${base}/${ids[4]}`)).toHaveLength(1);
  });

  it('a body format a `@skip`/`@include` leaves out is not fetched: the same calls as without it', async () => {
    const query = (extra: string) => `query($s: String!, $c: String!${extra.includes('$d') ? ', $d: Boolean!' : ''}) {
      changeRequest(spaceId: $s, changeRequestId: $c) {
      comments(first: 5) { nodes { body { markdown ${extra} } } } } }`;
    const run = async (extra: string, d = false) => {
      t.resetCalls();
      const data = await t.data(query(extra), { s: spaceId, c: cr.id, ...(extra.includes('$d') ? { d } : {}) });
      return { data, calls: calls().sort() };
    };
    const plain = await run('');
    // Before: one GET of each comment for its document, 6 calls for the 1 of the query without it.
    for (const extra of ['document @include(if: $d)', 'document @skip(if: true)', '... @include(if: $d) { document }'])
      expect(await run(extra)).toEqual(plain);
    // Included, the document is read: one more call per comment.
    expect((await run('document @include(if: $d)', true)).calls).toHaveLength(plain.calls.length + 5);
  });

  it('node(id) round-trips a comment: one call for it, one per edge', async () => {
    const listed = (await t.data(LIST, { s: spaceId, c: cr.id, first: 1, order: 'ASC' })).changeRequest.comments.nodes[0];
    t.resetCalls();
    const data = await t.data(`query($id: ID!) { node(id: $id) { id ... on Comment { ${COMMENT_FIELDS} } } }`, { id: listed.id });
    expect(data.node).toEqual(listed);
    // The comment once (node(id) asks REST for the markdown `body { markdown }` selects), then its
    // space and its change request once each (both edges share the call).
    expect(calls().sort()).toEqual(
      [`GET ${base}/${ids[0]}`, `GET /spaces/${spaceId}`, `GET /spaces/${spaceId}/change-requests/${cr.id}`].sort(),
    );
  });
});

describe('comment mutations', () => {
  let commentId: string;
  let gid: string;
  const keys = () => ({ spaceId, changeRequestId: cr.id, commentId });
  const read = async () =>
    (await t.data(
      `query($id: ID!, $s: String!, $c: String!) {
        node(id: $id) { ... on Comment { status resolvedAt resolvedBy { restId } editedAt body(format: MARKDOWN) { markdown }
          reactions { emoji count users { user { restId } } } } }
        changeRequest(spaceId: $s, changeRequestId: $c) { commentsCount } }`,
      { id: gid, s: spaceId, c: cr.id },
    )) as any;

  it('createComment posts on a page; the payload change request counts it', async () => {
    const before = (await t.api.get(`/spaces/${spaceId}/change-requests/${cr.id}`)).body.comments;
    const res = await mutate(
      'createComment',
      { spaceId, changeRequestId: cr.id, body: { markdown: 'Is this right?' }, page: pageId, node: 'n-1' },
      'comment { id restId status postedBy { restId } body(format: MARKDOWN) { markdown } target { page { restId } node } } changeRequest { commentsCount }',
    );
    commentId = res.comment.restId;
    gid = res.comment.id;
    expect(res).toMatchObject({
      comment: {
        status: 'OPEN',
        postedBy: { restId: t.world.users.comment.id },
        body: { markdown: 'Is this right?' },
        target: { page: { restId: pageId }, node: { id: 'n-1' } },
      },
      changeRequest: { commentsCount: before + 1 },
    });
    const rest = (await t.api.get(`${base}/${commentId}`, { format: 'markdown' })).body;
    expect(rest).toMatchObject({ body: { markdown: 'Is this right?' }, target: { page: { id: pageId }, node: { id: 'n-1' } } });
    expect((await read()).changeRequest.commentsCount).toBe(before + 1);
  });

  it('a change request given by number yields the same global ids', async () => {
    const res = await mutate(
      'createComment',
      { spaceId, changeRequestId: String(cr.number), body: { markdown: 'By number' } },
      'comment { id restId changeRequest { restId } }',
    );
    const node = await t.data(`query($id: ID!) { node(id: $id) { id } }`, { id: res.comment.id });
    expect(node.node.id).toBe(res.comment.id);
    const listed = await t.data(
      `query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) { comments(first: 100) { nodes { id } } } }`,
      {
        s: spaceId,
        c: cr.id,
      },
    );
    expect(listed.changeRequest.comments.nodes.map((n: any) => n.id)).toContain(res.comment.id);
    expect(res.comment.changeRequest.restId).toBe(cr.id);
  });

  it('updateComment edits the body (the author only): editedAt is set', async () => {
    const res = await mutate(
      'updateComment',
      { ...keys(), body: { markdown: 'Is this right, really?' } },
      'comment { id editedAt body(format: MARKDOWN) { markdown } }',
    );
    expect(res.comment).toMatchObject({ id: gid, editedAt: expect.any(String), body: { markdown: 'Is this right, really?' } });
    expect((await read()).node).toMatchObject({ editedAt: res.comment.editedAt, body: { markdown: 'Is this right, really?' } });
    const denied = await mutateRaw('updateComment', { ...keys(), body: { markdown: 'hijacked' } }, 'comment { id }', 'review');
    expect(denied.errors?.[0]).toMatchObject({ path: ['updateComment'], extensions: { code: 'FORBIDDEN' } });
    expect((await read()).node.body.markdown).toBe('Is this right, really?');
  });

  it('resolveComment sets resolvedAt and resolvedBy; reopenComment clears them; the open count follows', async () => {
    const open = (await read()).changeRequest.commentsCount;
    const res = await mutate(
      'resolveComment',
      keys(),
      'comment { status resolvedAt resolvedBy { restId displayName } } changeRequest { commentsCount }',
      'review',
    );
    expect(res).toEqual({
      comment: {
        status: 'RESOLVED',
        resolvedAt: expect.any(String),
        resolvedBy: { restId: t.world.users.review.id, displayName: 'Ada review' },
      },
      changeRequest: { commentsCount: open - 1 },
    });
    const resolved = await read();
    expect(resolved.node).toMatchObject({
      status: 'RESOLVED',
      resolvedAt: res.comment.resolvedAt,
      resolvedBy: { restId: t.world.users.review.id },
    });
    expect(resolved.changeRequest.commentsCount).toBe(open - 1);
    expect((await t.api.get(`${base}/${commentId}`)).body).toMatchObject({
      status: 'resolved',
      resolvedBy: { id: t.world.users.review.id },
    });

    const reopened = await mutate(
      'reopenComment',
      keys(),
      'comment { status resolvedAt resolvedBy { restId } } changeRequest { commentsCount }',
    );
    expect(reopened).toEqual({ comment: { status: 'OPEN', resolvedAt: null, resolvedBy: null }, changeRequest: { commentsCount: open } });
    expect((await read()).node).toMatchObject({ status: 'OPEN', resolvedAt: null, resolvedBy: null });
    const readOnly = await mutateRaw('resolveComment', keys(), 'comment { id }', 'read');
    expect(readOnly.errors?.[0]).toMatchObject({ path: ['resolveComment'], extensions: { code: 'FORBIDDEN' } });
  });

  it('reactions: added once per user, grouped per emoji, removed; an emoji may be a long ZWJ sequence', async () => {
    const REACT = 'comment { reactions { emoji count users { user { restId } } } }';
    await mutate('addCommentReaction', { ...keys(), emoji: '👍' }, REACT, 'comment');
    await mutate('addCommentReaction', { ...keys(), emoji: '👍' }, REACT, 'comment');
    const two = await mutate('addCommentReaction', { ...keys(), emoji: '👍' }, REACT, 'review');
    expect(two.comment.reactions).toEqual([
      { emoji: '👍', count: 2, users: [{ user: { restId: t.world.users.comment.id } }, { user: { restId: t.world.users.review.id } }] },
    ]);
    await mutate('removeCommentReaction', { ...keys(), emoji: '👍' }, REACT, 'comment');
    expect((await read()).node.reactions).toEqual([{ emoji: '👍', count: 1, users: [{ user: { restId: t.world.users.review.id } }] }]);
    const long = '👩🏽‍❤️‍💋‍👨🏿';
    await mutate('addCommentReaction', { ...keys(), emoji: long }, REACT);
    expect((await t.api.get(`${base}/${commentId}`)).body.reactions.map((r: any) => r.emoji)).toEqual(['👍', long]);
  });

  it('bad input is BAD_USER_INPUT naming the input field, with no REST call', async () => {
    t.resetCalls();
    for (const emoji of ['', 'x'.repeat(51), 'x', '👍👍']) {
      const res = await mutateRaw('addCommentReaction', { ...keys(), emoji }, 'comment { id }');
      expect(res.errors?.[0]).toMatchObject({ path: ['addCommentReaction'], extensions: { code: 'BAD_USER_INPUT', field: 'input.emoji' } });
    }
    const nullPage = await mutateRaw(
      'createComment',
      { spaceId, changeRequestId: cr.id, body: { markdown: 'x' }, page: null },
      'comment { id }',
    );
    expect(nullPage.errors?.[0]).toMatchObject({
      message: 'input.page: must not be null',
      extensions: { code: 'BAD_USER_INPUT', field: 'input.page' },
    });
    const replyEmoji = await mutateRaw('addCommentReplyReaction', { ...keys(), commentReplyId: 'any', emoji: '' }, 'commentReply { id }');
    expect(replyEmoji.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.emoji' });
    expect(t.calls).toHaveLength(0);
  });

  it('a page outside the change request is BAD_USER_INPUT from REST; an unknown comment is NOT_FOUND', async () => {
    const res = await mutateRaw(
      'createComment',
      { spaceId, changeRequestId: cr.id, body: { markdown: 'x' }, page: 'nope' },
      'comment { id }',
    );
    expect(res.errors?.[0]).toMatchObject({ path: ['createComment'], extensions: { code: 'BAD_USER_INPUT', upstream: { status: 400 } } });
    const missing = await mutateRaw('resolveComment', { ...keys(), commentId: 'nope' }, 'comment { id }');
    expect(missing.errors?.[0]).toMatchObject({ path: ['resolveComment'], extensions: { code: 'NOT_FOUND' } });
  });

  it('deleteComment returns the deleted global id; the comment is gone and no longer counted', async () => {
    const before = (await read()).changeRequest.commentsCount;
    const denied = await mutateRaw('deleteComment', keys(), 'deletedId', 'review');
    expect(denied.errors?.[0]).toMatchObject({ path: ['deleteComment'], extensions: { code: 'FORBIDDEN' } });
    const res = await mutate('deleteComment', keys(), 'deletedId changeRequest { commentsCount }');
    expect(res).toEqual({ deletedId: gid, changeRequest: { commentsCount: before - 1 } });
    const gone = await t.gql(`query($id: ID!) { node(id: $id) { id } }`, { id: gid });
    expect(gone.errors?.[0]).toMatchObject({ path: ['node'], extensions: { code: 'NOT_FOUND' } });
    expect((await t.api.get(`${base}/${commentId}`)).status).toBe(404);
  });
});

describe('replies', () => {
  let commentId: string;
  const replyIds: string[] = [];
  const keys = () => ({ spaceId, changeRequestId: cr.id, commentId });
  const REPLIES = `query($s: String!, $c: String!, $first: Int, $after: String, $format: ContentFormat) {
    changeRequest(spaceId: $s, changeRequestId: $c) { comments(first: 1) { nodes { restId repliesCount
      replies(first: $first, after: $after, format: $format) { nodes { id restId postedAt editedAt postedBy { restId }
        body { markdown } reactions { emoji count } permissions { view edit reply delete } ${urls('Comment')} comment { restId } }
        pageInfo { hasNextPage endCursor } } } } } }`;

  beforeAll(async () => {
    commentId = (await post('Thread')).id;
    for (let i = 0; i < 3; i++) replyIds.push((await reply(commentId, `Reply ${i}`, i % 2 ? 'admin' : 'review')).id);
  });

  it('Comment.replies equals the REST list, oldest first, paginated to the end', async () => {
    const rest = await t.api.all(`${base}/${commentId}/replies`, { format: 'markdown' });
    const seen: any[] = [];
    let after: string | undefined;
    for (;;) {
      const data = await t.data(REPLIES, { s: spaceId, c: cr.id, first: 2, after });
      const [comment] = data.changeRequest.comments.nodes;
      expect(comment).toMatchObject({ restId: commentId, repliesCount: 3 });
      seen.push(...comment.replies.nodes);
      if (!comment.replies.pageInfo.hasNextPage) break;
      after = comment.replies.pageInfo.endCursor;
    }
    expect(seen).toEqual(
      rest.items.map((r: any) => ({
        id: expect.any(String),
        restId: r.id,
        postedAt: r.postedAt,
        editedAt: null,
        postedBy: { restId: r.postedBy.id },
        body: { markdown: r.body.markdown },
        reactions: [],
        permissions: { ...r.permissions, reply: r.permissions.reply ?? null },
        urls: restUrls('Comment', r.urls),
        comment: { restId: commentId },
      })),
    );
    expect(seen.map((r) => r.restId)).toEqual(replyIds);
  });

  it('node(id) round-trips a reply with one call', async () => {
    const data = await t.data(REPLIES, { s: spaceId, c: cr.id, first: 1 });
    const listed = data.changeRequest.comments.nodes[0].replies.nodes[0];
    t.resetCalls();
    const node = await t.data(
      `query($id: ID!) { node(id: $id) { id ... on CommentReply { restId postedAt editedAt postedBy { restId } body { markdown }
        reactions { emoji count } permissions { view edit reply delete } ${urls('Comment')} comment { restId } } } }`,
      { id: listed.id },
    );
    expect(node.node).toEqual(listed);
    // The reply once (in markdown, as `body { markdown }` selects), then its comment (for the `comment` edge).
    expect(calls().sort()).toEqual([`GET ${base}/${commentId}/replies/${replyIds[0]}`, `GET ${base}/${commentId}`].sort());
  });

  it('createCommentReply: the payload comment counts it; updateCommentReply edits it; reactions; deleteCommentReply', async () => {
    const created = await mutate(
      'createCommentReply',
      { ...keys(), body: { markdown: 'Agreed' } },
      'commentReply { id restId body(format: MARKDOWN) { markdown } postedBy { restId } } comment { repliesCount }',
    );
    expect(created).toMatchObject({
      commentReply: { body: { markdown: 'Agreed' }, postedBy: { restId: t.world.users.comment.id } },
      comment: { repliesCount: 4 },
    });
    const replyKeys = { ...keys(), commentReplyId: created.commentReply.restId };
    const gid = created.commentReply.id;
    const readReply = async () =>
      (
        await t.data(
          `query($id: ID!) { node(id: $id) { ... on CommentReply { editedAt body(format: MARKDOWN) { markdown } reactions { emoji count } } } }`,
          { id: gid },
        )
      ).node;

    const edited = await mutate(
      'updateCommentReply',
      { ...replyKeys, body: { markdown: 'Agreed, mostly' } },
      'commentReply { id editedAt }',
    );
    expect(edited.commentReply).toEqual({ id: gid, editedAt: expect.any(String) });
    expect(await readReply()).toMatchObject({ editedAt: edited.commentReply.editedAt, body: { markdown: 'Agreed, mostly' } });
    const denied = await mutateRaw('updateCommentReply', { ...replyKeys, body: { markdown: 'no' } }, 'commentReply { id }', 'admin');
    expect(denied.errors?.[0]).toMatchObject({ path: ['updateCommentReply'], extensions: { code: 'FORBIDDEN' } });

    await mutate('addCommentReplyReaction', { ...replyKeys, emoji: '🎉' }, 'commentReply { id }', 'review');
    const added = await mutate('addCommentReplyReaction', { ...replyKeys, emoji: '🎉' }, 'commentReply { reactions { emoji count } }');
    expect(added.commentReply.reactions).toEqual([{ emoji: '🎉', count: 2 }]);
    await mutate('removeCommentReplyReaction', { ...replyKeys, emoji: '🎉' }, 'commentReply { id }', 'review');
    expect((await readReply()).reactions).toEqual([{ emoji: '🎉', count: 1 }]);

    const deleted = await mutate('deleteCommentReply', replyKeys, 'deletedId comment { repliesCount }');
    expect(deleted).toEqual({ deletedId: gid, comment: { repliesCount: 3 } });
    const gone = await t.gql(`query($id: ID!) { node(id: $id) { id } }`, { id: gid });
    expect(gone.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    expect((await t.api.get(`${base}/${commentId}/replies`)).body.items.map((r: any) => r.id)).toEqual(replyIds);
  });

  it('role boundary: a reader gets FORBIDDEN at each mutation path, a commenter succeeds', async () => {
    const res = await t.gql(
      `mutation($a: CreateCommentReplyInput!, $b: AddCommentReactionInput!) {
        createCommentReply(input: $a) { commentReply { id } }
        addCommentReaction(input: $b) { comment { reactions { emoji } } } }`,
      { a: { ...keys(), body: { markdown: 'no' } }, b: { ...keys(), emoji: '👀' } },
      tokenOf('read'),
    );
    expect(res.errors).toHaveLength(2);
    expect(res.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['createCommentReply'], 'FORBIDDEN'],
      [['addCommentReaction'], 'FORBIDDEN'],
    ]);
    const ok = await t.gql(
      `mutation($a: CreateCommentReplyInput!, $b: AddCommentReactionInput!) {
        createCommentReply(input: $a) { commentReply { id } }
        addCommentReaction(input: $b) { comment { reactions { emoji } } } }`,
      { a: { ...keys(), body: { markdown: 'no' } }, b: { ...keys(), emoji: '👀' } },
      tokenOf('comment'),
    );
    expect(ok.errors).toBeUndefined();
    expect(ok.data?.addCommentReaction.comment.reactions).toEqual([{ emoji: '👀' }]);
  });
});

describe('root lookups comment(...) and commentReply(...)', () => {
  it('take the change request id or number and a format, and keep the global id of the listed node', async () => {
    const c = await post('Lookup me');
    const r = await reply(c.id, 'Reply to lookup');
    const listed = await t.data(
      `query($s: String!, $n: String!) { changeRequest(spaceId: $s, changeRequestId: $n) {
        comments(first: 100) { nodes { id restId replies(first: 10) { nodes { id restId } } } } } }`,
      { s: spaceId, n: String(cr.number) },
    );
    const node = listed.changeRequest.comments.nodes.find((n: any) => n.restId === c.id);
    const args = { s: spaceId, n: String(cr.number), c: c.id, r: r.id };
    t.resetCalls();
    const data = await t.data(
      `query($s: String!, $n: String!, $c: String!, $r: String!) {
        md: comment(spaceId: $s, changeRequestId: $n, commentId: $c, format: MARKDOWN) { id body { markdown } }
        doc: comment(spaceId: $s, changeRequestId: $n, commentId: $c) { id body { document } }
        reply: commentReply(spaceId: $s, changeRequestId: $n, commentId: $c, commentReplyId: $r, format: MARKDOWN) { id body { markdown } }
      }`,
      args,
    );
    expect(data.md).toEqual({ id: node.id, body: { markdown: 'Lookup me' } });
    expect(data.doc.id).toBe(node.id);
    expect(data.doc.body.document).toEqual(expect.objectContaining({ object: 'document' }));
    expect(data.reply).toEqual({ id: node.replies.nodes.find((n: any) => n.restId === r.id).id, body: { markdown: 'Reply to lookup' } });
    // The change request (by number) is looked up once for all three.
    expect(calls().filter((x) => x.endsWith(`/change-requests/${cr.number}`))).toHaveLength(1);
    const missing = await t.gql('query($s: String!, $n: String!) { comment(spaceId: $s, changeRequestId: $n, commentId: "nope") { id } }', {
      s: spaceId,
      n: cr.id,
    });
    expect(missing.errors?.[0]).toMatchObject({ path: ['comment'], extensions: { code: 'NOT_FOUND' } });
  });
});

describe('a global id holding the change request number', () => {
  it('answers the object under the id it is listed by (node, nodes, _entities), with one call for the number', async () => {
    const c = await post('Reached by number');
    const r = await reply(c.id, 'Reply reached by number');
    const listed = (
      await t.data(
        `query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) {
          comments(first: 100) { nodes { id restId replies(first: 10) { nodes { id } } } } } }`,
        { s: spaceId, c: cr.id },
      )
    ).changeRequest.comments.nodes.find((n: any) => n.restId === c.id);
    // Ids the gateway never hands out, as a client could forge them: the number for the REST id.
    const forged = (type: string, keys: string[]) => Buffer.from(`${type}:${JSON.stringify(keys)}`).toString('base64');
    const comment = forged('Comment', [spaceId, String(cr.number), c.id]);
    const replyId = forged('CommentReply', [spaceId, String(cr.number), c.id, r.id]);
    t.resetCalls();
    const data = await t.data(
      `query($c: ID!, $r: ID!, $reps: [_Any!]!) {
        c: node(id: $c) { id ... on Comment { changeRequest { id } replies(first: 10) { nodes { id } } } }
        md: nodes(ids: [$c]) { id ... on Comment { body { markdown } } }
        r: node(id: $r) { id ... on CommentReply { comment { id } } }
        e: _entities(representations: $reps) { ... on Comment { id } }
      }`,
      { c: comment, r: replyId, reps: [{ __typename: 'Comment', id: comment }] },
    );
    const crId = Buffer.from(`ChangeRequest:${JSON.stringify([spaceId, cr.id])}`).toString('base64');
    expect(data).toEqual({
      c: { id: listed.id, changeRequest: { id: crId }, replies: { nodes: listed.replies.nodes } },
      md: [{ id: listed.id, body: { markdown: 'Reached by number' } }],
      r: { id: listed.replies.nodes[0].id, comment: { id: listed.id } },
      e: [{ id: listed.id }],
    });
    // The number is read once (and primes the change request by its REST id).
    expect(calls().filter((x) => x.endsWith(`/change-requests/${cr.number}`))).toHaveLength(1);
  });
});

describe('identifiers are single path segments', () => {
  it('"." or ".." as an id is BAD_USER_INPUT with no REST call, never a write to the parent resource', async () => {
    const c = await post('Must survive');
    for (const bad of ['..', '.', '']) {
      t.resetCalls();
      const res = await mutateRaw(
        'deleteCommentReply',
        { spaceId, changeRequestId: cr.id, commentId: c.id, commentReplyId: bad },
        'deletedId',
        'admin',
      );
      expect(res.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
      expect(t.calls.filter((x) => x.method === 'DELETE')).toEqual([]);
    }
    expect((await t.api.get(`${base}/${c.id}`)).status).toBe(200);
  });
});

describe('large comments listed as documents', () => {
  it('come fewer a page when their documents are large: the REST API builds no page of documents far past its bound', async () => {
    const crId = (await t.api.as(tokenOf('edit')).post(`/spaces/${spaceId}/change-requests`, { subject: 'Marks' })).body.id;
    const list = `/spaces/${spaceId}/change-requests/${crId}/comments`;
    // 32 KB of `*a* ` each, some 320 KB as a document: five made one REST page of 1.6 MB (its rows 160 KB).
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await t.api.as(tokenOf('comment')).post(list, { body: { markdown: '*a* '.repeat(8_000) } })).body.id);
    const query = (body: string) => `query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) {
      comments(first: 5) { nodes { restId body { ${body} } } } } }`;
    const listCalls = () => calls().filter((c) => c === `GET ${list}`);
    for (const [body, pages] of [
      ['document', 2],
      // As markdown the page holds them all.
      ['markdown', 1],
    ] as const) {
      t.resetCalls();
      const nodes = (await t.data(query(body), { s: spaceId, c: crId })).changeRequest.comments.nodes;
      expect(nodes.map((c: { restId: string }) => c.restId)).toEqual([...ids].reverse());
      expect(listCalls()).toHaveLength(pages);
    }
  });
});

/**
 * A stack whose gateway holds at most `answerBytesInFlight` of REST answers, with a change
 * request of the admin's (`spaceId`, `changeRequestId`, its comments' REST path `comments`).
 */
async function stackWithChangeRequest(answerBytesInFlight: number) {
  const s = await startStack({ rest: { answerBytesInFlight } });
  const spaceId: string = (await s.api.post(`/orgs/${s.world.orgId}/spaces`, { title: 'Large' })).body.id;
  const changeRequestId: string = (await s.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Large' })).body.id;
  return Object.assign(s, { spaceId, changeRequestId, comments: `/spaces/${spaceId}/change-requests/${changeRequestId}/comments` });
}

/** The REST answers budget of a heap of 16 MiB: a document of 2 MB (200 KB of `*a* `) is more than its parse may build. */
const SMALL_BUDGET = 2 * 1024 * 1024;

describe('a list selecting no body', () => {
  it('reads comments whose documents are past what the gateway reads: REST is asked for markdown', async () => {
    await using s = await stackWithChangeRequest(SMALL_BUDGET);
    const { spaceId, changeRequestId: crId, comments: list } = s;
    const id = (await s.api.post(`${list}?format=markdown`, { body: { markdown: '*a* '.repeat(50_000) } })).body.id;
    s.resetCalls();
    const res = await s.gql(
      `query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) {
        comments(first: 5) { nodes { restId postedBy { restId } } } } }`,
      { s: spaceId, c: crId },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.changeRequest.comments.nodes).toEqual([{ restId: id, postedBy: { restId: s.world.users.admin.id } }]);
    expect(s.calls.filter((c) => c.method === 'GET' && c.path === list)).toHaveLength(1);
  });
});

describe('writes of a comment whose document is past what the gateway reads', () => {
  it('ask REST for the format their payload selects, markdown when none: the write is answered', async () => {
    await using s = await stackWithChangeRequest(SMALL_BUDGET);
    const { spaceId, changeRequestId } = s;
    const markdown = '*a* '.repeat(50_000);
    const created = await s.payload('createComment', { spaceId, changeRequestId, body: { markdown } }, 'comment { restId }');
    const commentId = created.comment.restId;
    expect(commentId).toEqual(expect.any(String));
    s.resetCalls();
    const updated = await s.payload(
      'updateComment',
      { spaceId, changeRequestId, commentId, body: { markdown: `${markdown}!` } },
      'comment { restId body { markdown } }',
    );
    expect(updated.comment).toEqual({ restId: commentId, body: { markdown: `${markdown}!` } });
    // The write's answer is the body selected: no read after it.
    expect(s.calls.map((c) => c.method)).toEqual(['PUT']);
    const reacted = await s.payload(
      'addCommentReaction',
      { spaceId, changeRequestId, commentId, emoji: '👍' },
      'comment { reactions { emoji } }',
    );
    expect(reacted.comment.reactions).toEqual([{ emoji: '👍' }]);
  });
});

describe('the document of a 900 KB comment', () => {
  it("is read through the gateway under `npm start`'s REST answers budget: MAX_DOCUMENT_NODES nodes, then the rest as written", async () => {
    // An eighth of `npm start`'s heap limit (152 MiB), as the gateway's budget there.
    await using s = await stackWithChangeRequest(19 * 1024 * 1024);
    const { spaceId, changeRequestId } = s;
    const markdown = '*a* '.repeat(225_000);
    const commentId = (await s.api.post(`${s.comments}?format=markdown`, { body: { markdown } })).body.id;
    const res = await s.gql(
      `query($s: String!, $c: String!, $id: String!) { comment(spaceId: $s, changeRequestId: $c, commentId: $id) { body { document } } }`,
      { s: spaceId, c: changeRequestId, id: commentId },
    );
    // 150,000 nodes, 9 MB of JSON: more than the gateway reads (UPSTREAM_ERROR), 0.5 s to build.
    expect(res.errors).toBeUndefined();
    const leaves = res.data.comment.body.document.nodes.flatMap((b: any) => b.nodes.flatMap((t: any) => t.leaves));
    // The budget, and the rest (one leaf) with the text before the last mark (one more).
    expect(leaves.length).toBeLessThanOrEqual(MAX_DOCUMENT_NODES + 2);
    expect(leaves[0]).toEqual({ object: 'leaf', text: 'a', marks: [{ object: 'mark', type: 'italic' }] });
    expect(markdown.endsWith(leaves[leaves.length - 1].text)).toBe(true);
  });
});
