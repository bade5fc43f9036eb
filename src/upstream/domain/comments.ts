/** Change request comments and their replies: rows, the seed's shapes, reactions, resolution. */
import { CONTENT_FORMATS, REACTION_EMOJI_PER_POST_MAX } from '../../api/rules.js';
import { atLeast, type Role } from '../../api/roles.js';
import { markdownToDocument } from '../ask/document.js';
import type { ChangeRequestRow } from '../content/merge.js';
import type { PageRow } from '../content/revisions.js';
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { badRequest, forbidden } from '../errors.js';
import { newId } from '../ids.js';
import type { ListSpec } from '../pagination.js';
import { loadOwned, ownedRows, type OwnedTable } from './owned.js';
import type { SpaceRow } from './spaces.js';
import { userById } from './users.js';

export type Format = (typeof CONTENT_FORMATS)[number];

/** What a comment or a reply has in common. */
interface PostRow {
  id: string;
  posted_by: string;
  posted_at: string;
  edited_at: string | null;
  markdown: string;
}

export interface CommentRow extends PostRow {
  space_id: string;
  change_request_id: string;
  node_id: string | null;
  page_id: string | null;
  status: 'open' | 'resolved';
  resolved_at: string | null;
  resolved_by: string | null;
}

export interface ReplyRow extends PostRow {
  comment_id: string;
}

/** The change request a request is about, the caller's role in its space and the body format asked for. */
export interface Scope {
  space: SpaceRow;
  cr: ChangeRequestRow;
  role: Role;
  format: Format;
}

/** Comments and replies live in two tables with the same post columns. */
type PostTable = 'comments' | 'comment_replies';

/** The seed's content body: `{markdown}`, or `{document}` derived from the markdown. */
const contentBody = (markdown: string, format: Format) =>
  format === 'markdown' ? { markdown } : { document: markdownToDocument(markdown) };

const commentUrl = (ctx: RequestContext, s: Scope, commentId: string) =>
  `${ctx.apiBase}/spaces/${s.space.id}/change-requests/${s.cr.id}/comments/${commentId}`;

/** Reactions grouped per emoji (first used first), each with its users in reaction order. */
function reactionsOf(ctx: RequestContext, targetId: string) {
  const rows = ctx.db.prepare('SELECT * FROM reactions WHERE target_id = ? ORDER BY reacted_at, rowid').all(targetId) as Array<{
    emoji: string;
    user_id: string;
    reacted_at: string;
  }>;
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
  const current = ctx.db.prepare('SELECT * FROM pages WHERE revision_id = ? AND page_id = ?').get(s.cr.revision_id, row.page_id) as
    PageRow | undefined;
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

export function toComment(ctx: RequestContext, row: CommentRow, s: Scope) {
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
    ...(row.status === 'resolved' ? { resolvedAt: row.resolved_at!, resolvedBy: userById(ctx, row.resolved_by!) } : {}),
  };
}

export type Comment = ReturnType<typeof toComment>;

export function toReply(ctx: RequestContext, row: ReplyRow, s: Scope) {
  return {
    object: 'comment-reply' as const,
    ...postFields(ctx, row, s, `${commentUrl(ctx, s, row.comment_id)}/replies/${row.id}`),
  };
}

export type CommentReply = ReturnType<typeof toReply>;

const COMMENTS: OwnedTable = { table: 'comments', owner: 'change_request_id', what: 'Comment', orderBy: ['posted_at', 'id'] };
const REPLIES: OwnedTable = { table: 'comment_replies', owner: 'comment_id', what: 'Comment reply', orderBy: ['posted_at', 'id'] };

/** The comment `commentId` of the change request (404 otherwise). */
export const loadComment = (db: Db, s: Scope, commentId: string) => loadOwned<CommentRow>(db, COMMENTS, s.cr.id, commentId);

/** The reply `commentReplyId` of the comment (404 otherwise). */
export const loadReply = (db: Db, comment: CommentRow, commentReplyId: string) =>
  loadOwned<ReplyRow>(db, REPLIES, comment.id, commentReplyId);

const reloadComment = (db: Db, id: string) => db.prepare('SELECT * FROM comments WHERE id = ?').get(id) as CommentRow;
const reloadReply = (db: Db, id: string) => db.prepare('SELECT * FROM comment_replies WHERE id = ?').get(id) as ReplyRow;

/** The change request's comments with `status` (`all`: any) on `page` (when given), by posting time. */
export function commentsOf(
  ctx: RequestContext,
  s: Scope,
  only: { status: string; page?: string; order: 'asc' | 'desc' },
): ListSpec<CommentRow, Comment> {
  const where = ['change_request_id = ?'];
  const params: unknown[] = [s.cr.id];
  if (only.status !== 'all') {
    where.push('status = ?');
    params.push(only.status);
  }
  if (only.page !== undefined) {
    where.push('page_id = ?');
    params.push(only.page);
  }
  return {
    from: `comments WHERE ${where.join(' AND ')}`,
    params,
    orderBy: ['posted_at', 'id'],
    direction: only.order,
    map: (row) => toComment(ctx, row, s),
    itemsOutgrowRows: s.format === 'document',
  };
}

export const repliesOf = (ctx: RequestContext, s: Scope, comment: CommentRow): ListSpec<ReplyRow, CommentReply> => ({
  ...ownedRows(REPLIES, comment.id, (row: ReplyRow) => toReply(ctx, row, s)),
  itemsOutgrowRows: s.format === 'document',
});

/** A comment by the caller on the change request (on a `page` of it, and a `node`, when given). */
export function insertComment(ctx: RequestContext, s: Scope, input: { markdown: string; node?: string; page?: string }): CommentRow {
  if (input.page !== undefined) {
    const found = ctx.db.prepare('SELECT 1 FROM pages WHERE revision_id = ? AND page_id = ?').get(s.cr.revision_id, input.page);
    if (!found) throw badRequest('page: is not a page of the change request');
  }
  const id = newId();
  ctx.db
    .prepare(
      `INSERT INTO comments (id, space_id, change_request_id, posted_by, posted_at, markdown, node_id, page_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, s.space.id, s.cr.id, ctx.user().id, ctx.now(), input.markdown, input.node ?? null, input.page ?? null);
  return reloadComment(ctx.db, id);
}

export function insertReply(ctx: RequestContext, comment: CommentRow, markdown: string): ReplyRow {
  const id = newId();
  ctx.db
    .prepare('INSERT INTO comment_replies (id, comment_id, posted_by, posted_at, markdown) VALUES (?, ?, ?, ?, ?)')
    .run(id, comment.id, ctx.user().id, ctx.now(), markdown);
  return reloadReply(ctx.db, id);
}

/** A validated PUT body of a comment or a reply. */
export interface PostChanges {
  body?: { markdown: string };
  addedReactions?: string[];
  removedReactions?: string[];
  resolved?: boolean;
}

/** PUT on a comment or a reply: the body (its author only) and the caller's reactions (idempotent; the caller's transaction rolls back past the emoji cap). */
function editPost(ctx: RequestContext, table: PostTable, row: PostRow, changes: PostChanges) {
  const now = ctx.now();
  const userId = ctx.user().id;
  if (changes.body !== undefined) {
    if (!isAuthor(ctx, row)) throw forbidden('body: only the author can edit it');
    ctx.db.prepare(`UPDATE ${table} SET markdown = ?, edited_at = ? WHERE id = ?`).run(changes.body.markdown, now, row.id);
  }
  const add = ctx.db.prepare('INSERT OR IGNORE INTO reactions (target_id, emoji, user_id, reacted_at) VALUES (?, ?, ?, ?)');
  for (const emoji of changes.addedReactions ?? []) add.run(row.id, emoji, userId, now);
  const remove = ctx.db.prepare('DELETE FROM reactions WHERE target_id = ? AND emoji = ? AND user_id = ?');
  for (const emoji of changes.removedReactions ?? []) remove.run(row.id, emoji, userId);
  const { n } = ctx.db.prepare('SELECT COUNT(DISTINCT emoji) AS n FROM reactions WHERE target_id = ?').get(row.id) as { n: number };
  if (n > REACTION_EMOJI_PER_POST_MAX)
    throw badRequest(`addedReactions: a comment or reply holds at most ${REACTION_EMOJI_PER_POST_MAX} different emoji`);
}

/** Resolves or reopens a comment (`undefined` or its current state: nothing to do). */
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

export function updateComment(ctx: RequestContext, row: CommentRow, changes: PostChanges): CommentRow {
  ctx.db.transaction(() => {
    editPost(ctx, 'comments', row, changes);
    resolve(ctx, row, changes.resolved);
  })();
  return reloadComment(ctx.db, row.id);
}

/** As a comment's PUT; a reply has no resolution of its own, so `resolved` resolves or reopens its comment. */
export function updateReply(ctx: RequestContext, comment: CommentRow, row: ReplyRow, changes: PostChanges): ReplyRow {
  ctx.db.transaction(() => {
    editPost(ctx, 'comment_replies', row, changes);
    resolve(ctx, comment, changes.resolved);
  })();
  return reloadReply(ctx.db, row.id);
}

/** The author, or an admin of the space, may delete a comment or a reply. */
export function requireDeletable(ctx: RequestContext, row: PostRow, s: Scope) {
  if (!isAuthor(ctx, row) && !atLeast(s.role, 'admin')) throw forbidden('Only the author or a space admin can delete it');
}

/** Deletes a comment with its replies and the reactions to all of them. */
export function deleteComment(db: Db, commentId: string): void {
  db.transaction(() => {
    db.prepare('DELETE FROM reactions WHERE target_id = ? OR target_id IN (SELECT id FROM comment_replies WHERE comment_id = ?)').run(
      commentId,
      commentId,
    );
    db.prepare('DELETE FROM comments WHERE id = ?').run(commentId);
  })();
}

export function deleteReply(db: Db, replyId: string): void {
  db.transaction(() => {
    db.prepare('DELETE FROM reactions WHERE target_id = ?').run(replyId);
    db.prepare('DELETE FROM comment_replies WHERE id = ?').run(replyId);
  })();
}
