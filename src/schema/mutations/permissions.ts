/**
 * Space and collection user permissions, one implementation for both bases:
 * `grantSpacePermission` / `grantCollectionPermission` (POST …/permissions),
 * `update…UserPermission` (PATCH …/permissions/users/{userId}) and `remove…UserPermission`
 * (DELETE …/permissions/users/{userId}). Payloads hold the space or collection (whose permission
 * lists changed) and, for one user, the user.
 */
import { bodies } from '../../api/rules.js';
import type { GatewayContext } from '../context.js';
import type { WriteMethod } from '../restLoader.js';
import { Role } from '../lib/enums.js';
import { checkInput, restBody } from '../lib/mutation.js';
import { restPath } from '../lib/node.js';
import { collectionBase, spaceBase, type ContentBase } from '../nodes/Collection.js';
import { permissionsPath } from '../nodes/Permission.js';
import type { Space } from '../nodes/Space.js';
import { User } from '../nodes/User.js';
import { contentMutation } from './content.js';

/**
 * A permission write; everything cached under the target (its flags and permission lists) is
 * forgotten, so the payload's target and later reads are fresh.
 */
async function writePermission(ctx: GatewayContext, base: ContentBase, id: string, method: WriteMethod, suffix: string, body?: unknown) {
  await ctx.rest.write(method, permissionsPath(base, id) + suffix, body, { invalidate: [base.path(id)] });
  return { target: id };
}

function permissionMutations(base: ContentBase) {
  const { typename, field, param, template } = base;
  const target = (t: any) => ({ [field]: t.field({ type: base.ref as typeof Space, nullable: true, resolve: (p: any) => p.target }) });
  const user = (t: any) => ({ user: t.field({ type: User, nullable: true, resolve: (p: any) => p.userId }) });
  const userPath = (userId: string) => restPath`/users/${userId}`;

  contentMutation({
    name: `grant${typename}Permission`,
    description: `Gives a role on the ${field} to users and/or teams of its organization (\`POST ${template}/permissions\`).`,
    inputFields: (t) => ({
      [param]: t.string({ required: true }),
      role: t.field({ type: Role, required: true }),
      users: t.stringList({ description: 'User ids (members of the organization).' }),
      teams: t.stringList({ description: 'Team ids of the organization.' }),
    }),
    resolve: async (input, ctx) => {
      const body = restBody(input, [param]);
      checkInput(bodies['permission.invite'], body);
      return writePermission(ctx, base, input[param], 'POST', '', body);
    },
    outputFields: [target],
  });

  contentMutation({
    name: `update${typename}UserPermission`,
    description: `Changes the role of a user on the ${field}; null removes it (\`PATCH ${template}/permissions/users/{userId}\`).`,
    inputFields: (t) => ({
      [param]: t.string({ required: true }),
      userId: t.string({ required: true }),
      role: t.field({ type: Role, description: 'The new role; null removes the user\'s role.' }),
    }),
    resolve: async (input, ctx) => {
      const body = restBody(input, [param, 'userId']);
      checkInput(bodies['permission.update'], body);
      const result = await writePermission(ctx, base, input[param], 'PATCH', userPath(input.userId), body);
      return { ...result, userId: input.userId };
    },
    outputFields: [target, user],
  });

  contentMutation({
    name: `remove${typename}UserPermission`,
    description: `Removes the role of a user on the ${field} (\`DELETE ${template}/permissions/users/{userId}\`).`,
    inputFields: (t) => ({ [param]: t.string({ required: true }), userId: t.string({ required: true }) }),
    resolve: async (input, ctx) => {
      const result = await writePermission(ctx, base, input[param], 'DELETE', userPath(input.userId));
      return { ...result, userId: input.userId };
    },
    outputFields: [target, user],
  });
}

permissionMutations(spaceBase);
permissionMutations(collectionBase);
