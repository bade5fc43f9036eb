/**
 * Space and collection user permissions (`/spaces/{spaceId}/permissions`,
 * `/collections/{collectionId}/permissions`), one definition for both: the lists of
 * `{permission, user}` (connections of users whose edges carry `permission`) and the writes
 * (grant, update, remove), whose payloads hold the space or collection and the user.
 */
import type { User as RestUser } from '@gitbook/api';
import { bodies } from '../../api/rules.js';
import { builder } from '../builder.js';
import { forwardArgs, itemEdgeConnection, resolveList } from '../lib/connection.js';
import { Role } from '../lib/enums.js';
import { checkInput, restBody } from '../lib/mutation.js';
import { restPath } from '../lib/node.js';
import type { Fields } from '../../api/validate.js';
import { resourceInfo, writeResource, type BuilderTypes } from '../lib/resource.js';
import { User } from './User.js';

type UserPermissionItem = { permission: string; user: RestUser };

const UserPermissionConnection = itemEdgeConnection<UserPermissionItem>(
  'UserPermission',
  User,
  'permission',
  Role,
  "The user's role on the space or collection.",
  (i) => i.permission,
);

/** A `{permission, user}` list; each user primes `/users/{userId}`. */
const userPermissionList = (path: string, query?: { role?: string }) => ({
  path,
  query,
  itemPath: (item: UserPermissionItem) => restPath`/users/${item.user.id}`,
  node: (item: UserPermissionItem) => item.user,
});

/** What a permission write's payload reads: the target's REST id, and the user's for user writes. */
interface PermissionPayload {
  target: string;
  userId?: string;
}

for (const name of ['Space', 'Collection'] as const) {
  const info = resourceInfo(name);
  const [param] = info.params;
  const field = param.replace(/Id$/, '');
  const template = `${info.spec.path}/permissions`;
  const permissions = (id: string) => `${info.path([id])}/permissions`;

  builder.objectFields(info.ref, (t) => ({
    userPermissions: t.field({
      type: UserPermissionConnection,
      nullable: true,
      description: `Users with an explicit role on the ${field} (\`GET ${template}/users\`).`,
      args: forwardArgs,
      resolve: (target, args, ctx, info) => resolveList(ctx, args, userPermissionList(`${permissions(target.id)}/users`), info),
    }),
    aggregatePermissions: t.field({
      type: UserPermissionConnection,
      nullable: true,
      description:
        `Every member with access to the ${field} (explicit, team, inherited or organization role), ` +
        `with their strongest role (\`GET ${template}/aggregate\`).`,
      args: { ...forwardArgs, role: t.arg({ type: Role, description: 'Only users with this role.' }) },
      resolve: (target, { role, ...args }, ctx, info) =>
        resolveList(ctx, args, userPermissionList(`${permissions(target.id)}/aggregate`, { role: role ?? undefined }), info),
    }),
  }));

  /** A permission write: everything cached under the target (its flags and lists) is forgotten. */
  const mutation = (
    mutationName: string,
    description: string,
    userKey: boolean,
    inputFields: (t: PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>) => object,
    method: 'POST' | 'PATCH' | 'DELETE',
    rules?: Fields,
  ) =>
    builder.relayMutationField(
      mutationName,
      {
        inputFields: (t) =>
          ({
            [param]: t.string({ required: true }),
            ...(userKey ? { userId: t.string({ required: true }) } : {}),
            ...inputFields(t),
          }) as never,
      },
      {
        description,
        resolve: async (_root, { input }, ctx): Promise<PermissionPayload> => {
          // The input's fields are the target's key, `userId` (user writes) and the REST body.
          const values = input as Record<string, unknown> & { userId?: string };
          const target = values[param] as string;
          const body = restBody(values, [param, 'userId']);
          if (rules) checkInput(rules, body);
          const suffix = userKey ? restPath`/users/${values.userId!}` : '';
          await writeResource(ctx, name, method, permissions(target) + suffix, values, method === 'DELETE' ? undefined : body);
          return { target, userId: values.userId };
        },
      },
      {
        outputFields: (t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, PermissionPayload>) => ({
          [field]: t.field({ type: info.ref, nullable: true, resolve: (p) => p.target }),
          ...(userKey ? { user: t.field({ type: User, nullable: true, resolve: (p) => p.userId }) } : {}),
        }),
      } as never,
    );

  mutation(
    `grant${name}Permission`,
    `Gives a role on the ${field} to users and/or teams of its organization (\`POST ${template}\`).`,
    false,
    (t) => ({
      role: t.field({ type: Role, required: true }),
      users: t.stringList({ description: 'User ids (members of the organization).' }),
      teams: t.stringList({ description: 'Team ids of the organization.' }),
    }),
    'POST',
    bodies['permission.invite'],
  );
  mutation(
    `update${name}UserPermission`,
    `Changes the role of a user on the ${field}; null removes it (\`PATCH ${template}/users/{userId}\`).`,
    true,
    (t) => ({
      role: t.field({ type: Role, description: "The new role; null removes the user's role." }),
    }),
    'PATCH',
    bodies['permission.update'],
  );
  mutation(
    `remove${name}UserPermission`,
    `Removes the role of a user on the ${field} (\`DELETE ${template}/users/{userId}\`).`,
    true,
    () => ({}),
    'DELETE',
  );
}
