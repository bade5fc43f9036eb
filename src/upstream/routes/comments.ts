import { COMMENT_STATUSES, CONTENT_FORMATS, ORDERS, REACTION_EMOJI_PER_POST_MAX } from '../../api/rules.js';
import { atLeast, type Role } from '../../api/roles.js';
import type { ChangeRequestRow } from '../content/merge.js';
import { markdownToDocument } from '../ask/document.js';
import type { PageRow } from '../content/revisions.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { paginate } from '../pagination.js';
import type { Router } from '../router.js';
import { loadChangeRequest } from '../domain/changeRequests.js';
import type { SpaceRow } from '../domain/spaces.js';
import { userById } from '../domain/users.js';

type Format = (typeof CONTENT_FORMATS)[number];

/** What a comment or a reply has in common. */
interface PostRow {
  id: string;
  posted_by: string;
  posted_at: string;
  edited_at: string | null;
  markdown: string;
}

interface CommentRow extends PostRow {
  space_id: string;
  change_request_id: string;
  node_id: string | null;
  page_id: string | null;
  status: 'open' | 'resolved';
  resolved_at: string | null;
  resolved_by: string | null;
}

interface ReplyRow extends PostRow {
  comment_id: string;
}

/** The change request a request is about, the caller's role in its space and the body format asked for. */
interface Scope {
  space: SpaceRow;
  cr: ChangeRequestRow;
  role: Role;
  format: Format;
}

const base = '/spaces/{spaceId}/change-requests/{changeRequestId}/comments';

/** The seed's content body: `{markdown}`, or `{document}` derived from the markdown. */
const contentBody = (markdown: string, format: Format) =>
  format === 'markdown' ? { markdown } : { document: markdownToDocument(markdown) };

function scope(ctx: RequestContext, min: Role): Scope {
  // The hosted API's default body format is the JSON document.
  return { ...loadChangeRequest(ctx, min), format: ctx.query.enum('format', CONTENT_FORMATS, 'document') };
}

const commentUrl = (ctx: RequestContext, s: Scope, commentId: string) =>
  `${ctx.apiBase}/spaces/${s.space.id}/change-requests/${s.cr.id}/comments/${commentId}`;

/** Reactions grouped per emoji (first used first), each with its users in reaction order. */
function reactionsOf(ctx: RequestContext, targetId: string) {
  const rows = ctx.db
    .prepare('SELECT * FROM reactions WHERE target_id = ? ORDER BY reacted_at, rowid')
    .all(targetId) as Array<{ emoji: string; user_id: string; reacted_at: string }>;
  const byEmoji = new Map<string, Array<{ user: ReturnType<typeof userById>; reactedAt: string }>>();
  for (const r of rows) {
    const users = byEmoji.get(r.emoji) ?? [];
    users.push({ user: userById(ctx, r.user_id), reactedAt: r.reacted_at });
    byEmoji.set(r.emoji, users);
  }
  return [...byEmoji].map(([emoji, users]) => ({ emoji, count: users.length, users }));
}

function isAuthor(ctx: RequestContext, post: PostRow) {
  return ctx.caller?.id === post.posted_by;
}

/** Fields shared by comments and replies. */
function postFields(ctx: RequestContext, row: PostRow, s: Scope, location: string) {
  const canComment = atLeast(s.role, 'comment');
  return {
    id: row.id,
    postedBy: userById(ctx, row.posted_by),
    postedAt: row.posted_at,
    ...(row.edited_at ? { editedAt: row.edited_at } : {}),
    reactions: reactionsOf(ctx, row.id),
    body: contentBody(row.markdown, s.format),
    urls: { location },
    permissions: {
      view: true,
      edit: canComment && isAuthor(ctx, row),
      reply: canComment,
      delete: (canComment && isAuthor(ctx, row)) || atLeast(s.role, 'admin'),
    },
  };
}

/** The page a comment targets: as it stands in the change request, else its latest version (then outdated). */
function targetPage(ctx: RequestContext, row: CommentRow, s: Scope) {
  if (!row.page_id) return undefined;
  const current = ctx.db
    .prepare('SELECT * FROM pages WHERE revision_id = ? AND page_id = ?')
    .get(s.cr.revision_id, row.page_id) as PageRow | undefined;
  const page =
    current ??
    (ctx.db
      .prepare(
        `SELECT p.* FROM pages p JOIN revisions r ON r.id = p.revision_id
         WHERE r.space_id = ? AND p.page_id = ? ORDER BY p.updated_at DESC LIMIT 1`,
      )
      .get(s.space.id, row.page_id) as PageRow | undefined);
  if (!page) return { id: row.page_id, outdated: true };
  return {
    id: page.page_id,
    title: page.title,
    ...(page.emoji ? { emoji: page.emoji } : {}),
    createdAt: page.created_at,
    updatedAt: page.updated_at,
    path: page.path,
    outdated: !current || page.updated_at > row.posted_at,
  };
}

function toComment(ctx: RequestContext, row: CommentRow, s: Scope) {
  const page = targetPage(ctx, row, s);
  const { n: replies } = ctx.db.prepare('SELECT COUNT(*) AS n FROM comment_replies WHERE comment_id = ?').get(row.id) as {
    n: number;
  };
  return {
    object: 'comment' as const,
    ...postFields(ctx, row, s, commentUrl(ctx, s, row.id)),
    replies,
    target: {
      changeRequest: s.cr.id,
      space: s.space.id,
      revision: s.cr.revision_id,
      ...(page ? { page } : {}),
      ...(row.node_id ? { node: { id: row.node_id } } : {}),
    },
    status: row.status,
    ...(row.status === 'resolved'
      ? { resolvedAt: row.resolved_at!, resolvedBy: userById(ctx, row.resolved_by!) }
      : {}),
  };
}

function toReply(ctx: RequestContext, row: ReplyRow, s: Scope) {
  return {
    object: 'comment-reply' as const,
    ...postFields(ctx, row, s, `${commentUrl(ctx, s, row.comment_id)}/replies/${row.id}`),
  };
}

function loadComment(ctx: RequestContext, s: Scope): CommentRow {
  const row = ctx.db
    .prepare('SELECT * FROM comments WHERE id = ? AND change_request_id = ?')
    .get(ctx.params.commentId, s.cr.id) as CommentRow | undefined;
  if (!row) throw notFound('Comment');
  return row;
}

function loadReply(ctx: RequestContext, comment: CommentRow): ReplyRow {
  const row = ctx.db
    .prepare('SELECT * FROM comment_replies WHERE id = ? AND comment_id = ?')
    .get(ctx.params.commentReplyId, comment.id) as ReplyRow | undefined;
  if (!row) throw notFound('Comment reply');
  return row;
}

/** PUT on a comment or a reply: the body (its author only) and the caller's reactions (idempotent; the caller's transaction rolls back past the emoji cap). */
function editPost(ctx: RequestContext, table: 'comments' | 'comment_replies', row: PostRow, body: Record<string, any>) {
  const now = ctx.now();
  const userId = ctx.user().id;
  if (body.body !== undefined) {
    if (!isAuthor(ctx, row)) throw forbidden('body: only the author can edit it');
    ctx.db.prepare(`UPDATE ${table} SET markdown = ?, edited_at = ? WHERE id = ?`).run(body.body.markdown, now, row.id);
  }
  const add = ctx.db.prepare('INSERT OR IGNORE INTO reactions (target_id, emoji, user_id, reacted_at) VALUES (?, ?, ?, ?)');
  for (const emoji of (body.addedReactions ?? []) as string[]) add.run(row.id, emoji, userId, now);
  const remove = ctx.db.prepare('DELETE FROM reactions WHERE target_id = ? AND emoji = ? AND user_id = ?');
  for (const emoji of (body.removedReactions ?? []) as string[]) remove.run(row.id, emoji, userId);
  const { n } = ctx.db.prepare('SELECT COUNT(DISTINCT emoji) AS n FROM reactions WHERE target_id = ?').get(row.id) as { n: number };
  if (n > REACTION_EMOJI_PER_POST_MAX)
    throw badRequest(`addedReactions: a comment or reply holds at most ${REACTION_EMOJI_PER_POST_MAX} different emoji`);
}

/** The author, or an admin of the space, may delete a comment or a reply. */
function requireDeletable(ctx: RequestContext, row: PostRow, s: Scope) {
  if (!isAuthor(ctx, row) && !atLeast(s.role, 'admin')) throw forbidden('Only the author or a space admin can delete it');
}

function resolve(ctx: RequestContext, row: CommentRow, resolved: boolean | undefined) {
  if (resolved === undefined || resolved === (row.status === 'resolved')) return;
  if (resolved) {
    ctx.db
      .prepare(`UPDATE comments SET status = 'resolved', resolved_at = ?, resolved_by = ? WHERE id = ?`)
      .run(ctx.now(), ctx.user().id, row.id);
  } else {
    ctx.db.prepare(`UPDATE comments SET status = 'open', resolved_at = NULL, resolved_by = NULL WHERE id = ?`).run(row.id);
  }
}

const reloadComment = (ctx: RequestContext, id: string) =>
  ctx.db.prepare('SELECT * FROM comments WHERE id = ?').get(id) as CommentRow;
const reloadReply = (ctx: RequestContext, id: string) =>
  ctx.db.prepare('SELECT * FROM comment_replies WHERE id = ?').get(id) as ReplyRow;

function listComments(ctx: RequestContext) {
  const s = scope(ctx, 'read');
  const order = ctx.query.enum('order', ORDERS, 'desc');
  const status = ctx.query.enum('status', COMMENT_STATUSES, 'all');
  const page = ctx.query.string('targetPage');
  const where = ['change_request_id = ?'];
  const params: unknown[] = [s.cr.id];
  if (status !== 'all') {
    where.push('status = ?');
    params.push(status);
  }
  if (page !== undefined) {
    where.push('page_id = ?');
    params.push(page);
  }
  return paginate<CommentRow, ReturnType<typeof toComment>>(ctx, {
    from: `comments WHERE ${where.join(' AND ')}`,
    params,
    orderBy: ['posted_at', 'id'],
    direction: order,
    map: (row) => toComment(ctx, row, s),
  });
}

function createComment(ctx: RequestContext) {
  const s = scope(ctx, 'comment');
  const body = ctx.body('comment.create');
  if (body.page !== undefined) {
    const found = ctx.db.prepare('SELECT 1 FROM pages WHERE revision_id = ? AND page_id = ?').get(s.cr.revision_id, body.page);
    if (!found) throw badRequest('page: is not a page of the change request');
  }
  const id = newId();
  ctx.db
    .prepare(
      `INSERT INTO comments (id, space_id, change_request_id, posted_by, posted_at, markdown, node_id, page_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, s.space.id, s.cr.id, ctx.user().id, ctx.now(), body.body.markdown, body.node ?? null, body.page ?? null);
  return toComment(ctx, reloadComment(ctx, id), s);
}

function updateComment(ctx: RequestContext) {
  const s = scope(ctx, 'comment');
  const body = ctx.body('comment.update');
  const row = loadComment(ctx, s);
  ctx.db.transaction(() => {
    editPost(ctx, 'comments', row, body);
    resolve(ctx, row, body.resolved);
  })();
  return toComment(ctx, reloadComment(ctx, row.id), s);
}

function deleteComment(ctx: RequestContext) {
  const s = scope(ctx, 'comment');
  const row = loadComment(ctx, s);
  requireDeletable(ctx, row, s);
  ctx.db.transaction(() => {
    ctx.db
      .prepare('DELETE FROM reactions WHERE target_id = ? OR target_id IN (SELECT id FROM comment_replies WHERE comment_id = ?)')
      .run(row.id, row.id);
    ctx.db.prepare('DELETE FROM comments WHERE id = ?').run(row.id);
  })();
}

function listReplies(ctx: RequestContext) {
  const s = scope(ctx, 'read');
  const comment = loadComment(ctx, s);
  return paginate<ReplyRow, ReturnType<typeof toReply>>(ctx, {
    from: 'comment_replies WHERE comment_id = ?',
    params: [comment.id],
    orderBy: ['posted_at', 'id'],
    map: (row) => toReply(ctx, row, s),
  });
}

function createReply(ctx: RequestContext) {
  const s = scope(ctx, 'comment');
  const body = ctx.body('reply.create');
  const comment = loadComment(ctx, s);
  const id = newId();
  ctx.db
    .prepare('INSERT INTO comment_replies (id, comment_id, posted_by, posted_at, markdown) VALUES (?, ?, ?, ?, ?)')
    .run(id, comment.id, ctx.user().id, ctx.now(), body.body.markdown);
  return toReply(ctx, reloadReply(ctx, id), s);
}

/** As PUT on a comment; a reply has no resolution of its own, so `resolved` resolves or reopens its comment. */
function updateReply(ctx: RequestContext) {
  const s = scope(ctx, 'comment');
  const body = ctx.body('reply.update');
  const comment = loadComment(ctx, s);
  const row = loadReply(ctx, comment);
  ctx.db.transaction(() => {
    editPost(ctx, 'comment_replies', row, body);
    resolve(ctx, comment, body.resolved);
  })();
  return toReply(ctx, reloadReply(ctx, row.id), s);
}

function deleteReply(ctx: RequestContext) {
  const s = scope(ctx, 'comment');
  const row = loadReply(ctx, loadComment(ctx, s));
  requireDeletable(ctx, row, s);
  ctx.db.transaction(() => {
    ctx.db.prepare('DELETE FROM reactions WHERE target_id = ?').run(row.id);
    ctx.db.prepare('DELETE FROM comment_replies WHERE id = ?').run(row.id);
  })();
}

export function register(router: Router, _services: UpstreamServices) {
  router.get(base, listComments);
  router.post(base, createComment);
  router.get(`${base}/{commentId}`, (ctx) => {
    const s = scope(ctx, 'read');
    return toComment(ctx, loadComment(ctx, s), s);
  });
  router.put(`${base}/{commentId}`, updateComment);
  router.delete(`${base}/{commentId}`, deleteComment);
  router.get(`${base}/{commentId}/replies`, listReplies);
  router.post(`${base}/{commentId}/replies`, createReply);
  router.get(`${base}/{commentId}/replies/{commentReplyId}`, (ctx) => {
    const s = scope(ctx, 'read');
    return toReply(ctx, loadReply(ctx, loadComment(ctx, s)), s);
  });
  router.put(`${base}/{commentId}/replies/{commentReplyId}`, updateReply);
  router.delete(`${base}/{commentId}/replies/{commentReplyId}`, deleteReply);
}
