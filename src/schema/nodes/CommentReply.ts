/**
 * Replies to comments: the `CommentReply` node (keys: space, change request, comment, reply) and
 * `Comment.replies`. The REST JSON of a reply lacks its parents' ids: the shape is the JSON plus
 * the keys, attached wherever a reply is built (list items, refetch, mutation payloads).
 */
import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { ContentFormat } from '../lib/enums.js';
import { encodeKeys, restNodeRef, restPath } from '../lib/node.js';
import { changeRequestIdOf } from './ChangeRequest.js';
import { bodyFormat } from '../lib/fields.js';
import { Comment, commentPath, LISTED_BODIES, postFields, postList, type RestPost } from './Comment.js';

export interface ReplyKeys {
  spaceId: string;
  changeRequestId: string;
  commentId: string;
}

export type CommentReplyShape = RestPost & ReplyKeys;

export const repliesPath = (k: ReplyKeys) => `${commentPath(k.spaceId, k.changeRequestId, k.commentId)}/replies`;
export const replyPath = (k: ReplyKeys, commentReplyId: string) => `${repliesPath(k)}${restPath`/${commentReplyId}`}`;
export const attachReply = (json: RestPost, k: ReplyKeys): CommentReplyShape => ({
  ...json,
  spaceId: k.spaceId,
  changeRequestId: k.changeRequestId,
  commentId: k.commentId,
});

export const CommentReply = restNodeRef<CommentReplyShape>('CommentReply', {
  arity: 4,
  keys: (r) => [r.spaceId, r.changeRequestId, r.commentId, r.id],
  path: ([spaceId, changeRequestId, commentId, commentReplyId]) => replyPath({ spaceId, changeRequestId, commentId }, commentReplyId),
  wrap: (json: RestPost, [spaceId, changeRequestId, commentId]) => attachReply(json, { spaceId, changeRequestId, commentId }),
});

CommentReply.implement({
  description: 'A reply to a comment.',
  fields: (t) => ({
    comment: t.field({
      type: Comment,
      nullable: true,
      description: 'The comment it replies to.',
      resolve: (r) => encodeKeys([r.spaceId, r.changeRequestId, r.commentId]),
    }),
  }),
});
postFields(CommentReply, (r) => replyPath(r, r.id));

export const CommentReplyConnection = builder.connectionObject(
  { type: CommentReply, name: 'CommentReplyConnection' },
  { name: 'CommentReplyEdge' },
);

builder.objectField(Comment, 'replies', (t) =>
  t.field({
    type: CommentReplyConnection,
    nullable: true,
    description: 'Replies to the comment, oldest first (`GET .../comments/{commentId}/replies`).',
    args: { ...forwardArgs, format: t.arg({ type: ContentFormat, description: 'Format of the listed bodies.' }) },
    resolve: (c, { format, ...args }, ctx, info) => {
      const keys: ReplyKeys = { spaceId: c.spaceId, changeRequestId: c.changeRequestId, commentId: c.id };
      return resolveList(
        ctx,
        args,
        postList(ctx, {
          path: repliesPath(keys),
          format: bodyFormat(info, LISTED_BODIES, format),
          itemPath: (r: RestPost) => replyPath(keys, r.id),
          attach: (r: RestPost) => attachReply(r, keys),
        }),
      );
    },
  }),
);

builder.queryFields((t) => ({
  commentReply: t.field({
    type: CommentReply,
    nullable: true,
    description: 'A reply by REST ids (`GET …/comments/{commentId}/replies/{commentReplyId}`); `changeRequestId` may be the number.',
    args: {
      spaceId: t.arg.string({ required: true }),
      changeRequestId: t.arg.string({ required: true }),
      commentId: t.arg.string({ required: true }),
      commentReplyId: t.arg.string({ required: true }),
      format: t.arg({ type: ContentFormat, description: 'Format of the body, as REST `format`.' }),
    },
    resolve: async (_root, { spaceId, changeRequestId, commentId, commentReplyId, ...args }, ctx, info) => {
      const keys = { spaceId, changeRequestId: await changeRequestIdOf(ctx, spaceId, changeRequestId), commentId };
      const format = bodyFormat(info, [['body']], args.format);
      if (!format) return encodeKeys([keys.spaceId, keys.changeRequestId, commentId, commentReplyId]);
      return attachReply(await ctx.rest.load<RestPost>(replyPath(keys, commentReplyId), { format }), keys);
    },
  }),
}));
