import type { User as RestUser } from '@gitbook/api';
import { builder } from '../builder.js';
import { urlsType } from '../lib/fields.js';
import { resourceNode } from '../lib/resource.js';

/** Users of the platform (`/users/{userId}`). */
declare module '../lib/resource.js' {
  interface ResourceShapes {
    User: RestUser;
  }
}

export const User = resourceNode('User');

const UserUrls = urlsType('UserUrls', 'a user', ['location']);

User.implement({
  description: 'A user of the platform.',
  fields: (t) => ({
    displayName: t.exposeString('displayName'),
    email: t.string({ nullable: true, resolve: (u) => u.email ?? null }),
    photoURL: t.string({ nullable: true, resolve: (u) => u.photoURL ?? null }),
    urls: t.field({ type: UserUrls, resolve: (u) => u.urls }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: User,
    description: 'The authenticated caller (REST `GET /user`).',
    resolve: (_root, _args, ctx) => ctx.rest.load<RestUser>('/user'),
  }),
);
