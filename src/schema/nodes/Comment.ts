/**
 * Comments of change requests: the `Comment` node (keys: space, change request, comment),
 * `ChangeRequest.comments`, and what comments and replies share (author, body, reactions,
 * permissions). The REST JSON of a comment does not reliably carry its parents' ids, so the
 * shape is the JSON plus `spaceId` and `changeRequestId`, attached wherever a comment is built.
 */
import type { User as RestUser } from '@gitbook/api';
import type { ObjectRef } from '@pothos/core';
import type { CONTENT_FORMATS } from '../../api/rules.js';
import type { GatewayContext } from '../context.js';
import type { QueryParams } from '../restLoader.js';
import { builder } from '../builder.js';
import { forwardArgs, resolveList, type ListOptions } from '../lib/connection.js';
import { CommentStatus, CommentStatusFilter, ContentFormat, SortOrder } from '../lib/enums.js';
import { bodyFormat, ContentBody, orNull, selectedFormats, urlsType } from '../lib/fields.js';
import { encodeKeys, restNodeRef, restPath } from '../lib/node.js';
import { ChangeRequest, changeRequestIdOf, changeRequestPath, embeddedUser } from './ChangeRequest.js';
import { Space } from './Space.js';
import { User } from './User.js';

export type Format = (typeof CONTENT_FORMATS)[number];

export interface RestReaction {
  emoji: string;
  count: number;
  users: Array<{ user: RestUser; reactedAt: string }>;
}

const CommentUrls = urlsType('CommentUrls', 'a comment or a reply', ['location']);

/** What a comment and a reply have in common (REST JSON). */
export interface RestPost {
  id: string;
  postedBy: RestUser;
  postedAt: string;
  editedAt?: string;
  reactions: RestReaction[];
  body: { markdown?: string; document?: unknown };
  urls: { location: string };
  permissions: { view: boolean; edit: boolean; reply?: boolean; delete: boolean };
}

interface RestTargetPage {
  id: string;
  title?: string;
  emoji?: string;
  icon?: string;
  createdAt?: string;
  updatedAt?: string;
  path?: string;
  outdated?: boolean;
}

interface RestCommentTarget {
  node?: { id: string; preview?: unknown };
  changeRequest?: string;
  review?: string;
  page?: RestTargetPage;
  space: string;
  revision: string;
}

export interface RestComment extends RestPost {
  replies: number;
  target: RestCommentTarget;
  status: 'open' | 'resolved';
  resolvedAt?: string;
  resolvedBy?: RestUser;
}

export type CommentShape = RestComment & { spaceId: string; changeRequestId: string };

export const commentsPath = (spaceId: string, changeRequestId: string) => `${changeRequestPath(spaceId, changeRequestId)}/comments`;
export const commentPath = (spaceId: string, changeRequestId: string, commentId: string) =>
  `${commentsPath(spaceId, changeRequestId)}${restPath`/${commentId}`}`;
export const attachComment = (json: RestComment, spaceId: string, changeRequestId: string): CommentShape => ({
  ...json,
  spaceId,
  changeRequestId,
});

export const Comment = restNodeRef<CommentShape>('Comment', {
  arity: 3,
  keys: (c) => [c.spaceId, c.changeRequestId, c.id],
  path: ([spaceId, changeRequestId, commentId]) => commentPath(spaceId, changeRequestId, commentId),
  wrap: (json: RestComment, [spaceId, changeRequestId]) => attachComment(json, spaceId, changeRequestId),
});

const ReactionUser = builder.objectRef<RestReaction['users'][number]>('ReactionUser').implement({
  description: 'A user who reacted, and when.',
  fields: (t) => ({
    user: t.field({ type: User, resolve: (r, _args, ctx) => embeddedUser(ctx, r.user) }),
    reactedAt: t.field({ type: 'DateTime', resolve: (r) => r.reactedAt }),
  }),
});

const Reaction = builder.objectRef<RestReaction>('Reaction').implement({
  description: 'An emoji reaction and the users who reacted with it.',
  fields: (t) => ({
    emoji: t.exposeString('emoji'),
    count: t.exposeInt('count'),
    users: t.field({ type: [ReactionUser], resolve: (r) => r.users }),
  }),
});

const CommentPermissions = builder.objectRef<RestPost['permissions']>('CommentPermissions').implement({
  description: 'What the caller may do with a comment or a reply.',
  fields: (t) => ({
    view: t.exposeBoolean('view'),
    edit: t.exposeBoolean('edit'),
    reply: t.boolean({ nullable: true, description: 'May react or reply.', resolve: (p) => orNull(p.reply) }),
    delete: t.exposeBoolean('delete'),
  }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The fields of a comment or a reply; `path` is its REST path (to fetch the body in another format). */
export function postFields<P extends RestPost>(ref: ObjectRef<Types, unknown, P>, path: (post: P) => string) {
  builder.objectFields(ref, (t) => ({
    restId: t.string({ description: 'The REST id.', resolve: (p) => p.id }),
    postedBy: t.field({ type: User, resolve: (p, _args, ctx) => embeddedUser(ctx, p.postedBy) }),
    postedAt: t.field({ type: 'DateTime', resolve: (p) => p.postedAt }),
    editedAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => orNull(p.editedAt) }),
    body: t.field({
      type: ContentBody,
      nullable: true,
      description: 'The body, in the formats selected (`markdown`, `document`), whatever `format` was given.',
      args: { format: t.arg({ type: ContentFormat, description: 'Ignored: the selection decides the format.' }) },
      resolve: async (p, _args, ctx, info) => {
        const missing = selectedFormats(info, []).filter((f) => !(f in p.body));
        const others = await Promise.all(missing.map((format) => ctx.rest.load<RestPost>(path(p), { format })));
        return Object.assign({}, p.body, ...others.map((o) => o.body));
      },
    }),
    reactions: t.field({ type: [Reaction], resolve: (p) => p.reactions }),
    urls: t.field({ type: CommentUrls, resolve: (p) => p.urls }),
    permissions: t.field({ type: CommentPermissions, resolve: (p) => p.permissions }),
  }));
}

/** Where the bodies of a connection's nodes are selected. */
export const LISTED_BODIES = [
  ['edges', 'node', 'body'],
  ['nodes', 'body'],
];

/**
 * Connection options of a REST list of comments or replies: `format` goes to the list call, each
 * listed object primes its own path with the same format (so a later read of it costs no call),
 * and each node gets its parents' keys.
 */
export function postList<J extends { id: string }, S>(
  ctx: GatewayContext,
  options: { path: string; query?: QueryParams; format?: Format | null; itemPath: (item: J) => string; attach: (item: J) => S },
): ListOptions<J, S> {
  const formatQuery = options.format ? { format: options.format } : undefined;
  return {
    path: options.path,
    query: { ...options.query, ...formatQuery },
    node: (item) => {
      ctx.rest.prime(options.itemPath(item), item, formatQuery);
      return options.attach(item);
    },
  };
}

const CommentTargetPage = builder.objectRef<RestTargetPage>('CommentTargetPage').implement({
  description: 'The page a comment is about.',
  fields: (t) => ({
    // `id` is a global id everywhere in the graph (clients cache objects by it): the page's REST id is `restId`.
    restId: t.exposeString('id', { description: 'The REST id of the page.' }),
    title: t.string({ nullable: true, resolve: (p) => orNull(p.title) }),
    emoji: t.string({ nullable: true, resolve: (p) => orNull(p.emoji) }),
    icon: t.string({ nullable: true, resolve: (p) => orNull(p.icon) }),
    path: t.string({ nullable: true, resolve: (p) => orNull(p.path) }),
    createdAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => orNull(p.createdAt) }),
    updatedAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => orNull(p.updatedAt) }),
    outdated: t.boolean({ nullable: true, description: 'True when the page changed since the comment.', resolve: (p) => orNull(p.outdated) }),
  }),
});

const CommentTarget = builder.objectRef<RestCommentTarget>('CommentTarget').implement({
  description: 'What a comment is about: a space, a change request, a revision, a page and a node in it.',
  fields: (t) => ({
    space: t.field({ type: Space, nullable: true, resolve: (x) => x.space }),
    changeRequest: t.field({
      type: ChangeRequest,
      nullable: true,
      resolve: (x) => (x.changeRequest ? encodeKeys([x.space, x.changeRequest]) : null),
    }),
    revision: t.exposeString('revision'),
    review: t.string({ nullable: true, resolve: (x) => orNull(x.review) }),
    page: t.field({ type: CommentTargetPage, nullable: true, resolve: (x) => orNull(x.page) }),
    node: t.field({ type: 'JSON', nullable: true, description: 'The content node (`{id, preview}`).', resolve: (x) => orNull(x.node) }),
  }),
});

Comment.implement({
  description: 'A comment in a change request.',
  fields: (t) => ({
    repliesCount: t.int({ description: 'Count of replies (REST `replies`).', resolve: (c) => c.replies }),
    status: t.field({ type: CommentStatus, resolve: (c) => c.status }),
    resolvedAt: t.field({ type: 'DateTime', nullable: true, resolve: (c) => orNull(c.resolvedAt) }),
    resolvedBy: t.field({ type: User, nullable: true, resolve: (c, _args, ctx) => orNull(embeddedUser(ctx, c.resolvedBy)) }),
    target: t.field({ type: CommentTarget, resolve: (c) => c.target }),
    changeRequest: t.field({
      type: ChangeRequest,
      nullable: true,
      description: 'The change request the comment is in.',
      resolve: (c) => encodeKeys([c.spaceId, c.changeRequestId]),
    }),
  }),
});
postFields(Comment, (c) => commentPath(c.spaceId, c.changeRequestId, c.id));

export const CommentConnection = builder.connectionObject({ type: Comment, name: 'CommentConnection' }, { name: 'CommentEdge' });

builder.objectField(ChangeRequest, 'comments', (t) =>
  t.field({
    type: CommentConnection,
    nullable: true,
    description: 'Comments of the change request (`GET .../comments`); REST defaults: order DESC, status ALL.',
    args: {
      ...forwardArgs,
      order: t.arg({ type: SortOrder }),
      status: t.arg({ type: CommentStatusFilter }),
      targetPage: t.arg.string({ description: 'Only comments on this page (page id).' }),
      format: t.arg({ type: ContentFormat, description: 'Format of the listed bodies.' }),
    },
    resolve: (cr, { order, status, targetPage, format, ...args }, ctx, info) =>
      resolveList(
        ctx,
        args,
        postList(ctx, {
          path: commentsPath(cr.space, cr.id),
          query: { order, status, targetPage },
          format: bodyFormat(info, LISTED_BODIES, format),
          itemPath: (c: RestComment) => commentPath(cr.space, cr.id, c.id),
          attach: (c: RestComment) => attachComment(c, cr.space, cr.id),
        }),
      ),
  }),
);

builder.queryFields((t) => ({
  comment: t.field({
    type: Comment,
    nullable: true,
    description: 'A comment by REST ids (`GET /spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}`); `changeRequestId` may be the number.',
    args: {
      spaceId: t.arg.string({ required: true }),
      changeRequestId: t.arg.string({ required: true }),
      commentId: t.arg.string({ required: true }),
      format: t.arg({ type: ContentFormat, description: 'Format of the body, as REST `format`.' }),
    },
    resolve: async (_root, { spaceId, changeRequestId, commentId, ...args }, ctx, info) => {
      const crId = await changeRequestIdOf(ctx, spaceId, changeRequestId);
      const format = bodyFormat(info, [['body']], args.format);
      if (!format) return encodeKeys([spaceId, crId, commentId]);
      return attachComment(await ctx.rest.load<RestComment>(commentPath(spaceId, crId, commentId), { format }), spaceId, crId);
    },
  }),
}));
