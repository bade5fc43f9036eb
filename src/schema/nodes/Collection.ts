import type { Collection as RestCollection } from '@gitbook/api';
import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { Role } from '../lib/enums.js';
import { orNull, urlsType } from '../lib/fields.js';
import { restNodeRef, restPath } from '../lib/node.js';
import { restRef } from '../lib/refs.js';
import { Organization } from './Organization.js';
import { Space, SpaceConnection, spaceList, spacePath } from './Space.js';

export const Collection = restNodeRef<RestCollection>('Collection', {
  arity: 1,
  restIdKey: true,
  keys: (c) => [c.id],
  stub: ([id]) => ({ id }),
  path: ([collectionId]) => collectionPath(collectionId),
});

export const collectionPath = (collectionId: string) => restPath`/collections/${collectionId}`;

const CollectionPermissions = builder.objectRef<RestCollection['permissions']>('CollectionPermissions').implement({
  description: 'What the caller may do with the collection (REST `permissions`).',
  fields: (t) => ({
    admin: t.exposeBoolean('admin'),
    create: t.exposeBoolean('create'),
  }),
});

const CollectionUrls = urlsType('CollectionUrls', 'a collection', ['location', 'app']);

Collection.implement({
  description: 'A collection: a group of spaces (and nested collections).',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the collection.' }),
    title: t.exposeString('title'),
    description: t.string({ nullable: true, resolve: (c) => orNull(c.description) }),
    defaultLevel: t.field({
      type: Role,
      nullable: true,
      description: 'Default role on the content for members of the organization; null when inherited (REST `inherit`).',
      resolve: (c) => (c.defaultLevel === 'inherit' ? null : (c.defaultLevel ?? null)) as never,
    }),
    urls: t.field({ type: CollectionUrls, resolve: (c) => c.urls }),
    permissions: t.field({ type: CollectionPermissions, resolve: (c) => c.permissions }),
    organization: t.field({ type: Organization, nullable: true, resolve: (c, _a, ctx, info) => restRef('Organization', [c.organization], ctx, info) }),
    parent: t.field({ type: Collection, nullable: true, resolve: (c, _a, ctx, info) => (c.parent ? restRef('Collection', [c.parent], ctx, info) : null) }),
    spaces: t.field({
      type: SpaceConnection,
      nullable: true,
      description: 'Spaces of the collection (`GET /collections/{collectionId}/spaces`).',
      args: forwardArgs,
      resolve: (c, args, ctx) => resolveList(ctx, args, spaceList(restPath`/collections/${c.id}/spaces`)),
    }),
  }),
});

const CollectionConnection = builder.connectionObject({ type: Collection, name: 'CollectionConnection' }, { name: 'CollectionEdge' });

builder.objectField(Space, 'parent', (t) =>
  t.field({ type: Collection, nullable: true, description: 'The collection holding the space.', resolve: (s, _args, ctx, info) => (s.parent ? restRef<RestCollection>('Collection', [s.parent], ctx, info) : null) }),
);

builder.objectField(Organization, 'collections', (t) =>
  t.field({
    type: CollectionConnection,
    nullable: true,
    description: 'Collections of the organization (`GET /orgs/{organizationId}/collections`).',
    args: { ...forwardArgs, nested: t.arg.boolean({ description: 'Include nested collections (default true).' }) },
    resolve: (org, { nested, ...args }, ctx) =>
      resolveList(ctx, args, {
        path: restPath`/orgs/${org.id}/collections`,
        query: { nested: nested ?? undefined },
        itemPath: (c: RestCollection) => collectionPath(c.id),
      }),
  }),
);

/**
 * A kind of content-tree node (space or collection): what the writes and permission lists shared
 * by both need to know (type name, payload field, REST path parameter and path).
 */
export interface ContentBase {
  typename: 'Space' | 'Collection';
  /** Payload field of the node, and the prefix of its rules in src/api/rules.ts `bodies`. */
  field: 'space' | 'collection';
  param: 'spaceId' | 'collectionId';
  ref: typeof Space | typeof Collection;
  path: (id: string) => string;
  /** The path as the seed writes it, for descriptions. */
  template: string;
}

export const spaceBase: ContentBase = {
  typename: 'Space',
  field: 'space',
  param: 'spaceId',
  ref: Space,
  path: spacePath,
  template: '/spaces/{spaceId}',
};

export const collectionBase: ContentBase = {
  typename: 'Collection',
  field: 'collection',
  param: 'collectionId',
  ref: Collection,
  path: collectionPath,
  template: '/collections/{collectionId}',
};

builder.queryFields((t) => ({
  collection: t.field({
    type: Collection,
    nullable: true,
    description: 'A collection by REST id (`GET /collections/{collectionId}`).',
    args: { collectionId: t.arg.string({ required: true }) },
    resolve: (_root, { collectionId }, ctx, info) => restRef<RestCollection>('Collection', [collectionId], ctx, info),
  }),
}));
