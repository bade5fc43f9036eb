/**
 * Comment and reply writes: post, edit, resolve / reopen, react, delete. Every write forgets the
 * cached reads under the space (its open-comment counts, the change request's count, the lists),
 * the written object primes its own path, and payloads hold the changed object and its parent.
 * A change request given by number is resolved to its id first, so global ids stay stable.
 */
import { bodies } from '../../api/rules.js';
import type { Rule } from '../../api/validate.js';
import type { GatewayContext } from '../context.js';
import type { WriteMethod } from '../restLoader.js';
import { builder } from '../builder.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { ChangeRequest, changeRequestIdOf, loadChangeRequest } from '../nodes/ChangeRequest.js';
import { attachComment, Comment, commentPath, commentsPath, type CommentShape, type RestComment, type RestPost } from '../nodes/Comment.js';
import { attachReply, CommentReply, replyPath, repliesPath, type ReplyKeys } from '../nodes/CommentReply.js';
import { spacePath } from '../nodes/Space.js';
import { changeRequestKeyFields } from './changeRequests.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type InputFields = PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>;

const ContentBodyInput = builder.inputType('ContentBodyInput', {
  description: 'A content body, in markdown.',
  fields: (t) => ({ markdown: t.string({ required: true }) }),
});

const commentKeyFields = (t: InputFields) => ({ ...changeRequestKeyFields(t), commentId: t.string({ required: true }) });
const replyKeyFields = (t: InputFields) => ({ ...commentKeyFields(t), commentReplyId: t.string({ required: true }) });

/** The emoji rule of `addedReactions` / `removedReactions`, for an input's single `emoji`. */
const reactionsRule: Rule = bodies['comment.update'].addedReactions;
const emojiRule = { emoji: { ...(reactionsRule.kind === 'array' ? reactionsRule.of : reactionsRule), required: true } };

/** The keys of the comment an input names, with the change request's id (not its number). */
async function commentKeys(ctx: GatewayContext, input: { spaceId: string; changeRequestId: string; commentId: string }): Promise<ReplyKeys> {
  return { spaceId: input.spaceId, changeRequestId: await changeRequestIdOf(ctx, input.spaceId, input.changeRequestId), commentId: input.commentId };
}

const write = <T>(ctx: GatewayContext, method: WriteMethod, spaceId: string, path: string, body?: unknown) =>
  ctx.rest.write<T>(method, path, body, { invalidate: [spacePath(spaceId)] });

/** A comment write (POST to the list, PUT on one); the answer primes the comment's path. */
async function writeComment(ctx: GatewayContext, method: WriteMethod, k: Omit<ReplyKeys, 'commentId'>, path: string, body: unknown) {
  const json = await write<RestComment>(ctx, method, k.spaceId, path, body);
  ctx.rest.prime(commentPath(k.spaceId, k.changeRequestId, json.id), json);
  return { comment: attachComment(json, k.spaceId, k.changeRequestId), keys: k };
}

/** A reply write (POST to the list, PUT on one); the answer primes the reply's path. */
async function writeReply(ctx: GatewayContext, method: WriteMethod, k: ReplyKeys, path: string, body: unknown) {
  const json = await write<RestPost>(ctx, method, k.spaceId, path, body);
  ctx.rest.prime(replyPath(k, json.id), json);
  return { commentReply: attachReply(json, k), keys: k };
}

/** PUT on a comment; the body is checked against the shared rules first. */
async function putComment(ctx: GatewayContext, input: { spaceId: string; changeRequestId: string; commentId: string }, body: object) {
  checkInput(bodies['comment.update'], body as Record<string, unknown>);
  const k = await commentKeys(ctx, input);
  return writeComment(ctx, 'PUT', k, commentPath(k.spaceId, k.changeRequestId, k.commentId), body);
}

/** PUT on a reply; the body is checked against the shared rules first. */
async function putReply(ctx: GatewayContext, input: Parameters<typeof commentKeys>[1] & { commentReplyId: string }, body: object) {
  checkInput(bodies['reply.update'], body as Record<string, unknown>);
  const k = await commentKeys(ctx, input);
  return writeReply(ctx, 'PUT', k, replyPath(k, input.commentReplyId), body);
}

const loadComment = async (ctx: GatewayContext, k: ReplyKeys): Promise<CommentShape> =>
  attachComment(await ctx.rest.load<RestComment>(commentPath(k.spaceId, k.changeRequestId, k.commentId)), k.spaceId, k.changeRequestId);

/** Payload fields: the change request / the comment a write changed (read afresh). */
const changeRequestField = <P extends { keys: Omit<ReplyKeys, 'commentId'> }>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, P>) =>
  t.field({
    type: ChangeRequest,
    nullable: true,
    description: 'The change request, as it is after the write (comment count).',
    resolve: (p, _args, ctx) => loadChangeRequest(ctx, p.keys.spaceId, p.keys.changeRequestId),
  });
const parentCommentField = <P extends { keys: ReplyKeys }>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, P>) =>
  t.field({
    type: Comment,
    nullable: true,
    description: 'The comment replied to, as it is after the write (reply count).',
    resolve: (p, _args, ctx) => loadComment(ctx, p.keys),
  });
const commentField = <P extends { comment: CommentShape }>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, P>) =>
  t.field({ type: Comment, nullable: true, resolve: (p) => p.comment });
const replyField = <P extends { commentReply: RestPost & ReplyKeys }>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, P>) =>
  t.field({ type: CommentReply, nullable: true, resolve: (p) => p.commentReply });

// Comments.

builder.relayMutationField(
  'createComment',
  {
    inputFields: (t) => ({
      ...changeRequestKeyFields(t),
      body: t.field({ type: ContentBodyInput, required: true }),
      page: t.string({ description: 'The page (id) the comment is about.' }),
      node: t.string({ description: 'The content node (id) the comment is about.' }),
    }),
  },
  {
    description: 'Posts a comment in a change request (`POST .../comments`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, ['spaceId', 'changeRequestId']);
      checkInput(bodies['comment.create'], body);
      const k = { spaceId: input.spaceId, changeRequestId: await changeRequestIdOf(ctx, input.spaceId, input.changeRequestId) };
      return writeComment(ctx, 'POST', k, commentsPath(k.spaceId, k.changeRequestId), body);
    },
  },
  { outputFields: (t) => ({ comment: commentField(t), changeRequest: changeRequestField(t) }) },
);

builder.relayMutationField(
  'updateComment',
  { inputFields: (t) => ({ ...commentKeyFields(t), body: t.field({ type: ContentBodyInput, required: true }) }) },
  {
    description: 'Edits the body of a comment; its author only (`PUT .../comments/{commentId}`).',
    resolve: (_root, { input }, ctx) => putComment(ctx, input, { body: input.body }),
  },
  { outputFields: (t) => ({ comment: commentField(t) }) },
);

/** Resolve / reopen: PUT `resolved`. */
function resolutionMutation(name: string, resolved: boolean, description: string) {
  builder.relayMutationField(
    name,
    { inputFields: (t) => commentKeyFields(t) },
    { description, resolve: (_root, { input }, ctx) => putComment(ctx, input, { resolved }) },
    { outputFields: (t) => ({ comment: commentField(t), changeRequest: changeRequestField(t) }) },
  );
}

resolutionMutation('resolveComment', true, 'Resolves a comment (PUT `resolved: true`): sets `resolvedAt` and `resolvedBy`.');
resolutionMutation('reopenComment', false, 'Reopens a resolved comment (PUT `resolved: false`).');

type ReactionField = 'addedReactions' | 'removedReactions';

function commentReactionMutation(name: string, field: ReactionField, description: string) {
  builder.relayMutationField(
    name,
    { inputFields: (t) => ({ ...commentKeyFields(t), emoji: t.string({ required: true }) }) },
    {
      description,
      resolve: (_root, { input }, ctx) => {
        checkInput(emojiRule, { emoji: input.emoji });
        return putComment(ctx, input, { [field]: [input.emoji] });
      },
    },
    { outputFields: (t) => ({ comment: commentField(t) }) },
  );
}

commentReactionMutation('addCommentReaction', 'addedReactions', "Adds the caller's emoji reaction to a comment, idempotent (`PUT .../comments/{commentId}` with `addedReactions`).");
commentReactionMutation('removeCommentReaction', 'removedReactions', "Removes the caller's emoji reaction from a comment (`PUT .../comments/{commentId}` with `removedReactions`).");

builder.relayMutationField(
  'deleteComment',
  { inputFields: (t) => commentKeyFields(t) },
  {
    description: 'Deletes a comment and its replies; its author or a space admin (`DELETE .../comments/{commentId}`).',
    resolve: async (_root, { input }, ctx) => {
      const k = await commentKeys(ctx, input);
      await write(ctx, 'DELETE', k.spaceId, commentPath(k.spaceId, k.changeRequestId, k.commentId));
      return { deletedId: globalId('Comment', k.spaceId, k.changeRequestId, k.commentId), keys: k };
    },
  },
  { outputFields: (t) => ({ deletedId: t.id({ resolve: (p) => p.deletedId }), changeRequest: changeRequestField(t) }) },
);

// Replies.

builder.relayMutationField(
  'createCommentReply',
  { inputFields: (t) => ({ ...commentKeyFields(t), body: t.field({ type: ContentBodyInput, required: true }) }) },
  {
    description: 'Replies to a comment (`POST .../comments/{commentId}/replies`).',
    resolve: async (_root, { input }, ctx) => {
      const body = { body: input.body };
      checkInput(bodies['reply.create'], body);
      const k = await commentKeys(ctx, input);
      return writeReply(ctx, 'POST', k, repliesPath(k), body);
    },
  },
  { outputFields: (t) => ({ commentReply: replyField(t), comment: parentCommentField(t) }) },
);

builder.relayMutationField(
  'updateCommentReply',
  { inputFields: (t) => ({ ...replyKeyFields(t), body: t.field({ type: ContentBodyInput, required: true }) }) },
  {
    description: 'Edits the body of a reply; its author only (`PUT .../replies/{commentReplyId}`).',
    resolve: (_root, { input }, ctx) => putReply(ctx, input, { body: input.body }),
  },
  { outputFields: (t) => ({ commentReply: replyField(t) }) },
);

function replyReactionMutation(name: string, field: ReactionField, description: string) {
  builder.relayMutationField(
    name,
    { inputFields: (t) => ({ ...replyKeyFields(t), emoji: t.string({ required: true }) }) },
    {
      description,
      resolve: (_root, { input }, ctx) => {
        checkInput(emojiRule, { emoji: input.emoji });
        return putReply(ctx, input, { [field]: [input.emoji] });
      },
    },
    { outputFields: (t) => ({ commentReply: replyField(t) }) },
  );
}

replyReactionMutation('addCommentReplyReaction', 'addedReactions', "Adds the caller's emoji reaction to a reply, idempotent (`PUT .../replies/{commentReplyId}` with `addedReactions`).");
replyReactionMutation('removeCommentReplyReaction', 'removedReactions', "Removes the caller's emoji reaction from a reply (`PUT .../replies/{commentReplyId}` with `removedReactions`).");

builder.relayMutationField(
  'deleteCommentReply',
  { inputFields: (t) => replyKeyFields(t) },
  {
    description: 'Deletes a reply; its author or a space admin (`DELETE .../replies/{commentReplyId}`).',
    resolve: async (_root, { input }, ctx) => {
      const k = await commentKeys(ctx, input);
      await write(ctx, 'DELETE', k.spaceId, replyPath(k, input.commentReplyId));
      return { deletedId: globalId('CommentReply', k.spaceId, k.changeRequestId, k.commentId, input.commentReplyId), keys: k };
    },
  },
  { outputFields: (t) => ({ deletedId: t.id({ resolve: (p) => p.deletedId }), comment: parentCommentField(t) }) },
);
