import type { User as RestUser } from '@gitbook/api';
import { builder } from '../builder.js';
import { urlsType } from '../lib/fields.js';
import { restNodeRef, restPath } from '../lib/node.js';

export const User = restNodeRef<RestUser>('User', {
  arity: 1,
  restIdKey: true,
  keys: (u) => [u.id],
  path: ([userId]) => restPath`/users/${userId}`,
});

const UserUrls = urlsType('UserUrls', 'a user', ['location']);

User.implement({
  description: 'A user of the platform.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the user.' }),
    displayName: t.exposeString('displayName'),
    email: t.string({ nullable: true, resolve: (u) => u.email ?? null }),
    photoURL: t.string({ nullable: true, resolve: (u) => u.photoURL ?? null }),
    urls: t.field({ type: UserUrls, resolve: (u) => u.urls }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.field({
    type: User,
    description: 'The authenticated caller (REST `GET /user`).',
    resolve: (_root, _args, ctx) => ctx.rest.load<RestUser>('/user'),
  }),
  user: t.field({
    type: User,
    nullable: true,
    description: 'A user by REST id (`GET /users/{userId}`).',
    args: { userId: t.arg.string({ required: true }) },
    resolve: (_root, { userId }) => userId,
  }),
}));
