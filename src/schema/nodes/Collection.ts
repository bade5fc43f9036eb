import type { Collection as RestCollection } from '@gitbook/api';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { Role } from '../lib/enums.js';
import { orNull, permissionsType, urlsType } from '../lib/fields.js';
import { connectionOf, edge, resourceInfo, resourceNode } from '../lib/resource.js';

/** A collection (`/collections/{collectionId}`); its list, lookup and writes are in src/schema/resources.ts. */
declare module '../lib/resource.js' {
  interface ResourceShapes {
    Collection: RestCollection;
  }
}

export const Collection = resourceNode('Collection');

const CollectionPermissions = permissionsType('CollectionPermissions', 'with the collection', ['admin', 'create']);

const CollectionUrls = urlsType('CollectionUrls', 'a collection', ['location', 'app']);

Collection.implement({
  description: 'A collection: a group of spaces (and nested collections).',
  fields: (t) => ({
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
    organization: edge(t, 'Organization', (c) => [c.organization]),
    parent: edge(t, 'Collection', (c) => [c.parent]),
    spaces: t.field({
      type: connectionOf('Space'),
      nullable: true,
      description: 'Spaces of the collection (`GET /collections/{collectionId}/spaces`).',
      args: forwardArgs,
      resolve: (c, args, ctx, info) =>
        resolveList(
          ctx,
          args,
          {
            path: `${resourceInfo('Collection').path([c.id])}/spaces`,
            itemPath: (s: { id: string }) => resourceInfo('Space').path([s.id]),
          },
          info,
        ),
    }),
  }),
});
