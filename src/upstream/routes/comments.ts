import { COMMENT_STATUSES, CONTENT_FORMATS, ORDERS } from '../../api/rules.js';
import type { Role } from '../../api/roles.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { loadChangeRequest } from '../domain/changeRequests.js';
import {
  commentsOf,
  deleteComment,
  deleteReply,
  insertComment,
  insertReply,
  loadComment,
  loadReply,
  repliesOf,
  requireDeletable,
  toComment,
  toReply,
  updateComment,
  updateReply,
  type Scope,
} from '../domain/comments.js';
import { paginate } from '../pagination.js';
import type { Router } from '../router.js';

const base = '/spaces/{spaceId}/change-requests/{changeRequestId}/comments';

function scope(ctx: RequestContext, min: Role): Scope {
  // The hosted API's default body format is the JSON document.
  return { ...loadChangeRequest(ctx, min), format: ctx.query.enum('format', CONTENT_FORMATS, 'document') };
}

const commentOf = (ctx: RequestContext, s: Scope) => loadComment(ctx.db, s, ctx.params.commentId);
const replyOf = (ctx: RequestContext, s: Scope) => loadReply(ctx.db, commentOf(ctx, s), ctx.params.commentReplyId);

function listComments(ctx: RequestContext) {
  const s = scope(ctx, 'read');
  const order = ctx.query.enum('order', ORDERS, 'desc');
  const status = ctx.query.enum('status', COMMENT_STATUSES, 'all');
  return paginate(ctx, commentsOf(ctx, s, { status, page: ctx.query.string('targetPage'), order }));
}

function createComment(ctx: RequestContext) {
  const s = scope(ctx, 'comment');
  const body = ctx.body('comment.create');
  return toComment(ctx, insertComment(ctx, s, { markdown: body.body.markdown, node: body.node, page: body.page }), s);
}

function putComment(ctx: RequestContext) {
  const s = scope(ctx, 'comment');
  const body = ctx.body('comment.update');
  return toComment(ctx, updateComment(ctx, commentOf(ctx, s), body), s);
}

function removeComment(ctx: RequestContext) {
  const s = scope(ctx, 'comment');
  const row = commentOf(ctx, s);
  requireDeletable(ctx, row, s);
  deleteComment(ctx.db, row.id);
}

function createReply(ctx: RequestContext) {
  const s = scope(ctx, 'comment');
  const body = ctx.body('reply.create');
  return toReply(ctx, insertReply(ctx, commentOf(ctx, s), body.body.markdown), s);
}

function putReply(ctx: RequestContext) {
  const s = scope(ctx, 'comment');
  const body = ctx.body('reply.update');
  const comment = commentOf(ctx, s);
  return toReply(ctx, updateReply(ctx, comment, loadReply(ctx.db, comment, ctx.params.commentReplyId), body), s);
}

function removeReply(ctx: RequestContext) {
  const s = scope(ctx, 'comment');
  const row = replyOf(ctx, s);
  requireDeletable(ctx, row, s);
  deleteReply(ctx.db, row.id);
}

export function register(router: Router, _services: UpstreamServices) {
  router.get(base, listComments);
  router.post(base, createComment);
  router.get(`${base}/{commentId}`, (ctx) => {
    const s = scope(ctx, 'read');
    return toComment(ctx, commentOf(ctx, s), s);
  });
  router.put(`${base}/{commentId}`, putComment);
  router.delete(`${base}/{commentId}`, removeComment);
  router.get(`${base}/{commentId}/replies`, (ctx) => {
    const s = scope(ctx, 'read');
    return paginate(ctx, repliesOf(ctx, s, commentOf(ctx, s)));
  });
  router.post(`${base}/{commentId}/replies`, createReply);
  router.get(`${base}/{commentId}/replies/{commentReplyId}`, (ctx) => {
    const s = scope(ctx, 'read');
    return toReply(ctx, replyOf(ctx, s), s);
  });
  router.put(`${base}/{commentId}/replies/{commentReplyId}`, putReply);
  router.delete(`${base}/{commentId}/replies/{commentReplyId}`, removeReply);
}
