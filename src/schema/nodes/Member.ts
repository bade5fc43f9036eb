import type { OrganizationMember as RestMember, OrganizationTeam as RestTeam, Space as RestSpace, User as RestUser } from '@gitbook/api';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { forwardArgs, resolveList, type Edge } from '../lib/connection.js';
import { MemberRoleFilter, MemberSort, Role, SortOrder, TeamMemberRole } from '../lib/enums.js';
import { orNull } from '../lib/fields.js';
import { encodeKeys, restPath } from '../lib/node.js';
import { orgScoped, type OrgScoped } from '../lib/orgScoped.js';
import { Organization } from './Organization.js';
import { Space, spacePath } from './Space.js';
import { embedded } from '../lib/resource.js';
import { Team } from './Team.js';
import { User } from './User.js';

/** Members of an organization, keyed by user id (`/orgs/{organizationId}/members/{userId}`). */
export const members = orgScoped<RestMember>('Member', { segment: 'members', key: (m) => m.id });
export const Member = members.ref;

/** The member's embedded user, primed so `user(userId)` or `node(id)` of it costs no call. */
function userOf(ctx: GatewayContext, member: RestMember): RestUser {
  ctx.rest.prime(restPath`/users/${member.user.id}`, member.user);
  return member.user;
}

interface MemberSpaceItem {
  permission: RestMember['role'];
  space: RestSpace;
}

interface MemberTeamItem {
  team: RestTeam;
  member: { role: string };
}

const MemberSpaceConnection = builder.connectionObject(
  { type: Space, name: 'MemberSpaceConnection' },
  {
    name: 'MemberSpaceEdge',
    fields: (t) => ({
      permission: t.field({
        type: Role,
        description: "The member's role on the space.",
        resolve: (edge) => (edge as unknown as Edge<MemberSpaceItem, RestSpace>).item.permission as never,
      }),
    }),
  },
);

const MemberTeamConnection = builder.connectionObject(
  { type: Team, name: 'MemberTeamConnection' },
  {
    name: 'MemberTeamEdge',
    fields: (t) => ({
      role: t.field({
        type: TeamMemberRole,
        description: "The member's role in the team (REST `member.role`).",
        resolve: (edge) => (edge as unknown as Edge<MemberTeamItem, RestTeam>).item.member.role as never,
      }),
    }),
  },
);

Member.implement({
  description: 'A member of an organization: a user and their role in it.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the member (the id of its user).' }),
    role: t.field({ type: Role, nullable: true, description: 'Role in the organization; null for guests.', resolve: (m) => m.role as never }),
    user: t.field({ type: User, resolve: (m, _args, ctx) => userOf(ctx, m) }),
    disabled: t.exposeBoolean('disabled'),
    joinedAt: t.field({ type: 'DateTime', resolve: (m) => m.joinedAt }),
    lastSeenAt: t.field({ type: 'DateTime', nullable: true, resolve: (m) => orNull(m.lastSeenAt) }),
    sso: t.exposeBoolean('sso', { description: 'Whether the member signs in with SSO.' }),
    spacesCount: t.int({ description: 'Count of spaces the member has a role on (REST `spaces`).', resolve: (m) => m.spaces }),
    teamsCount: t.int({ description: 'Count of teams of the member (REST `teams`).', resolve: (m) => m.teams }),
    organization: t.field({ type: Organization, nullable: true, resolve: (m) => m.organizationId }),
    spaces: t.field({
      type: MemberSpaceConnection,
      nullable: true,
      description: 'Spaces the member has a role on (`GET /orgs/{organizationId}/members/{userId}/spaces`).',
      args: { ...forwardArgs, order: t.arg({ type: SortOrder }) },
      resolve: (m, { order, ...args }, ctx) =>
        resolveList<MemberSpaceItem, RestSpace>(ctx, args, {
          path: `${members.path(m.organizationId, m.id)}/spaces`,
          query: { order: order ?? undefined },
          itemPath: (item) => spacePath(item.space.id),
          node: (item) => item.space,
        }),
    }),
    teams: t.field({
      type: MemberTeamConnection,
      nullable: true,
      description: 'Teams of the member (`GET /orgs/{organizationId}/members/{userId}/teams`).',
      args: { ...forwardArgs, title: t.arg.string({ description: 'Case-insensitive substring of the team title.' }) },
      resolve: (m, { title, ...args }, ctx) =>
        resolveList<MemberTeamItem, OrgScoped<RestTeam>>(ctx, args, {
          path: `${members.path(m.organizationId, m.id)}/teams`,
          query: { title: title ?? undefined },
          node: (item) => embedded(ctx, 'Team', item.team, { organizationId: m.organizationId }) as OrgScoped<RestTeam>,
        }),
    }),
  }),
});

export const MemberConnection = builder.connectionObject({ type: Member, name: 'MemberConnection' }, { name: 'MemberEdge' });

builder.objectField(Organization, 'members', (t) =>
  t.field({
    type: MemberConnection,
    nullable: true,
    description: 'Members of the organization (`GET /orgs/{organizationId}/members`).',
    args: {
      ...forwardArgs,
      role: t.arg({ type: MemberRoleFilter, description: 'Only members with this role (GUEST: without a role).' }),
      search: t.arg.string({ description: 'Matches the display name and the email.' }),
      sort: t.arg({ type: MemberSort, description: 'JOINED_AT (default) or LAST_SEEN_AT (active members only).' }),
      order: t.arg({ type: SortOrder, description: 'DESC by default.' }),
    },
    resolve: (org, { role, search, sort, order, ...args }, ctx) =>
      resolveList(ctx, args, {
        ...members.list(org.id),
        query: { role: role ?? undefined, search: search ?? undefined, sort: sort ?? undefined, order: order ?? undefined },
      }),
  }),
);

builder.queryFields((t) => ({
  member: t.field({
    type: Member,
    nullable: true,
    description: 'A member by user id (`GET /orgs/{organizationId}/members/{userId}`).',
    args: { organizationId: t.arg.string({ required: true }), userId: t.arg.string({ required: true }) },
    resolve: (_root, { organizationId, userId }) => encodeKeys([organizationId, userId]),
  }),
}));
