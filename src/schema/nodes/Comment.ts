/**
 * Comments of change requests and their replies: the `Comment` node and what comments and replies
 * share (author, body, reactions, permissions, the reaction writes). Lists, lookups and the other
 * writes are in src/schema/resources.ts; the REST JSON lacks its parents' ids, so the table
 * attaches the path parameters to each object.
 */
import type { User as RestUser } from '@gitbook/api';
import type { ObjectRef } from '@pothos/core';
import { bodies } from '../../api/rules.js';
import type { Rule } from '../../api/validate.js';
import { builder } from '../builder.js';
import { CommentStatus, ContentFormat } from '../lib/enums.js';
import { ContentBody, orNull, urlsType } from '../lib/fields.js';
import { selectedFormats } from '../lib/selection.js';
import { checkInput } from '../lib/mutation.js';
import { primePath } from '../lib/node.js';
import { restRef } from '../lib/refs.js';
import {
  answeredQuery,
  canonicalKeys,
  edge,
  embedded,
  inputObject,
  resourceInfo,
  resourceNode,
  writeQuery,
  writeResource,
  type BuilderTypes,
} from '../lib/resource.js';
import { User } from './User.js';
import { EMBEDDED } from '../lib/cost.js';

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

declare module '../lib/resource.js' {
  interface ResourceShapes {
    Comment: CommentShape;
  }
}

export const Comment = resourceNode('Comment');

inputObject(
  'ContentBodyInput',
  builder.inputType('ContentBodyInput', {
    description: 'A content body, in markdown.',
    fields: (t) => ({ markdown: t.string({ required: true }) }),
  }),
);

const ReactionUser = builder.objectRef<RestReaction['users'][number]>('ReactionUser').implement({
  description: 'A user who reacted, and when.',
  fields: (t) => ({
    user: t.field({ type: User, extensions: EMBEDDED, resolve: (r, _args, ctx) => embedded(ctx, 'User', r.user) }),
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

/** The emoji rule of `addedReactions` / `removedReactions`, for an input's single `emoji`. */
const reactionsRule: Rule = bodies['comment.update'].addedReactions;
const emojiRule = { emoji: { ...(reactionsRule.kind === 'array' ? reactionsRule.of : reactionsRule), required: true } };

/** The fields of a comment or a reply (`name`), and its reaction writes. */
export function postFields<P extends RestPost>(ref: ObjectRef<BuilderTypes, unknown, P>, name: 'Comment' | 'CommentReply') {
  const info = resourceInfo(name);
  const path = (p: P) => info.path(info.keys(p));
  builder.objectFields(ref, (t) => ({
    postedBy: t.field({ type: User, extensions: EMBEDDED, resolve: (p, _args, ctx) => embedded(ctx, 'User', p.postedBy) }),
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
  for (const [verb, field, what] of [
    ['add', 'addedReactions', 'Adds'],
    ['remove', 'removedReactions', 'Removes'],
  ] as const) {
    builder.relayMutationField(
      `${verb}${name}Reaction`,
      {
        inputFields: (t) =>
          ({
            ...Object.fromEntries(info.params.map((k) => [k, t.string({ required: true })])),
            emoji: t.string({ required: true }),
          }) as never,
      },
      {
        description: `${what} the caller's emoji reaction ${verb === 'add' ? 'to' : 'from'} a ${name === 'Comment' ? 'comment' : 'reply'}${verb === 'add' ? ', idempotent' : ''} (\`PUT ${info.spec.path}\` with \`${field}\`).`,
        resolve: async (_root, { input }, ctx, gql) => {
          // The input's fields are the post's keys and `emoji`, all strings.
          const values = input as Record<string, string>;
          checkInput(emojiRule, { emoji: values.emoji });
          const body = { [field]: [values.emoji] };
          const keys = await canonicalKeys(ctx, values);
          const query = writeQuery(info, gql);
          const json = await writeResource<P>(ctx, name, 'PUT', info.path(info.params.map((k) => keys[k])), keys, body, undefined, query);
          // A 2xx without a body: the reaction was made; the post is read again (`readAgain`).
          if (json === undefined) return { keys };
          const node = info.attach(json, keys);
          const path = primePath(() => info.path(info.keys(node)));
          if (path) ctx.rest.prime(path, json, answeredQuery(json, query));
          return { node };
        },
      },
      {
        outputFields: (t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, { node?: object; keys?: Record<string, string> }>) => ({
          [name[0].toLowerCase() + name.slice(1)]: t.field({
            type: ref,
            nullable: true,
            resolve: (p, _args, ctx, gql) =>
              (p.node as P | undefined) ??
              restRef<P>(
                name,
                info.params.map((k) => p.keys![k]),
                ctx,
                gql,
              ),
          }),
        }),
      } as never,
    );
  }
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
    outdated: t.boolean({
      nullable: true,
      description: 'True when the page changed since the comment.',
      resolve: (p) => orNull(p.outdated),
    }),
  }),
});

const CommentTarget = builder.objectRef<RestCommentTarget>('CommentTarget').implement({
  description: 'What a comment is about: a space, a change request, a revision, a page and a node in it.',
  fields: (t) => ({
    space: edge(t, 'Space', (x) => [x.space]),
    changeRequest: edge(t, 'ChangeRequest', (x) => [x.space, x.changeRequest]),
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
    resolvedBy: t.field({
      type: User,
      nullable: true,
      extensions: EMBEDDED,
      resolve: (c, _args, ctx) => orNull(embedded(ctx, 'User', c.resolvedBy)),
    }),
    target: t.field({ type: CommentTarget, resolve: (c) => c.target }),
    changeRequest: edge(t, 'ChangeRequest', (c) => [c.spaceId, c.changeRequestId], {
      description: 'The change request the comment is in.',
    }),
  }),
});
postFields(Comment, 'Comment');
