/**
 * Space and collection user permissions (`/spaces/{spaceId}/permissions`,
 * `/collections/{collectionId}/permissions`): both bases behave the same, so one definition serves
 * both. The lists of `{permission, user}` are connections of users whose edges carry `permission`.
 */
import type { Collection as RestCollection, Space as RestSpace, User as RestUser } from '@gitbook/api';
import { builder } from '../builder.js';
import { forwardArgs, resolveList, type Edge } from '../lib/connection.js';
import { Role } from '../lib/enums.js';
import { restPath } from '../lib/node.js';
import { collectionBase, spaceBase, type ContentBase } from './Collection.js';
import type { Space } from './Space.js';
import { User } from './User.js';

/** `/spaces/{spaceId}/permissions` or `/collections/{collectionId}/permissions`. */
export const permissionsPath = (base: ContentBase, id: string) => `${base.path(id)}/permissions`;

interface UserPermissionItem {
  permission: string;
  user: RestUser;
}

const UserPermissionConnection = builder.connectionObject(
  { type: User, name: 'UserPermissionConnection' },
  {
    name: 'UserPermissionEdge',
    fields: (t) => ({
      permission: t.field({
        type: Role,
        description: "The user's role on the space or collection.",
        resolve: (edge) => (edge as unknown as Edge<UserPermissionItem, RestUser>).item.permission as never,
      }),
    }),
  },
);

/** A `{permission, user}` list; each user primes `/users/{userId}`. */
const userPermissionList = (path: string, query?: { role?: string }) => ({
  path,
  query,
  itemPath: (item: UserPermissionItem) => restPath`/users/${item.user.id}`,
  node: (item: UserPermissionItem) => item.user,
});

function addPermissionFields(base: ContentBase) {
  // The refs of both bases differ only in their shape type; the fields read `id` alone.
  builder.objectFields(base.ref as typeof Space, (t) => ({
    userPermissions: t.field({
      type: UserPermissionConnection,
      nullable: true,
      description: `Users with an explicit role on the ${base.field} (\`GET ${base.template}/permissions/users\`).`,
      args: forwardArgs,
      resolve: (target: RestSpace | RestCollection, args, ctx) =>
        resolveList(ctx, args, userPermissionList(`${permissionsPath(base, target.id)}/users`)),
    }),
    aggregatePermissions: t.field({
      type: UserPermissionConnection,
      nullable: true,
      description:
        `Every member with access to the ${base.field} (explicit, team, inherited or organization role), ` +
        `with their strongest role (\`GET ${base.template}/permissions/aggregate\`).`,
      args: { ...forwardArgs, role: t.arg({ type: Role, description: 'Only users with this role.' }) },
      resolve: (target: RestSpace | RestCollection, { role, ...args }, ctx) =>
        resolveList(ctx, args, userPermissionList(`${permissionsPath(base, target.id)}/aggregate`, { role: role ?? undefined })),
    }),
  }));
}

addPermissionFields(spaceBase);
addPermissionFields(collectionBase);
