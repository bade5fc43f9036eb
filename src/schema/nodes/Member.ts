import type { OrganizationMember as RestMember, OrganizationTeam as RestTeam, Space as RestSpace } from '@gitbook/api';
import { forwardArgs, itemEdgeConnection, resolveList } from '../lib/connection.js';
import { Role, SortOrder, TeamMemberRole } from '../lib/enums.js';
import { orNull } from '../lib/fields.js';
import { edge, embedded, resourceInfo, resourceNode } from '../lib/resource.js';
import { Space } from './Space.js';
import { Team } from './Team.js';
import { User } from './User.js';
import { EMBEDDED } from '../lib/cost.js';

type RestMemberOf = RestMember & { organizationId: string };

/** Members of an organization, keyed by user id (`/orgs/{organizationId}/members/{userId}`). */
declare module '../lib/resource.js' {
  interface ResourceShapes {
    Member: RestMemberOf;
  }
}

export const Member = resourceNode('Member');

type SpaceItem = { permission: RestMember['role']; space: RestSpace };
type TeamItem = { team: RestTeam; member: { role: string } };

const MemberSpaceConnection = itemEdgeConnection<SpaceItem>(
  'MemberSpace',
  Space,
  'permission',
  Role,
  "The member's role on the space.",
  (i) => i.permission,
);
const MemberTeamConnection = itemEdgeConnection<TeamItem>(
  'MemberTeam',
  Team,
  'role',
  TeamMemberRole,
  "The member's role in the team (REST `member.role`).",
  (i) => i.member.role,
);

const memberPath = (m: RestMemberOf) => resourceInfo('Member').path(resourceInfo('Member').keys(m));

Member.implement({
  description: 'A member of an organization: a user and their role in it.',
  fields: (t) => ({
    role: t.field({
      type: Role,
      nullable: true,
      description: 'Role in the organization; null for guests.',
      resolve: (m) => m.role as never,
    }),
    // The embedded user primes the loader: `user(userId)` or `node(id)` of it costs no call.
    user: t.field({ type: User, extensions: EMBEDDED, resolve: (m, _args, ctx) => embedded(ctx, 'User', m.user) }),
    disabled: t.exposeBoolean('disabled'),
    joinedAt: t.field({ type: 'DateTime', resolve: (m) => m.joinedAt }),
    lastSeenAt: t.field({ type: 'DateTime', nullable: true, resolve: (m) => orNull(m.lastSeenAt) }),
    sso: t.exposeBoolean('sso', { description: 'Whether the member signs in with SSO.' }),
    spacesCount: t.int({ description: 'Count of spaces the member has a role on (REST `spaces`).', resolve: (m) => m.spaces }),
    teamsCount: t.int({ description: 'Count of teams of the member (REST `teams`).', resolve: (m) => m.teams }),
    organization: edge(t, 'Organization', (m) => [m.organizationId]),
    spaces: t.field({
      type: MemberSpaceConnection,
      nullable: true,
      description: 'Spaces the member has a role on (`GET /orgs/{organizationId}/members/{userId}/spaces`).',
      args: { ...forwardArgs, order: t.arg({ type: SortOrder }) },
      resolve: (m, { order, ...args }, ctx, info) =>
        resolveList<SpaceItem, RestSpace>(
          ctx,
          args,
          {
            path: `${memberPath(m)}/spaces`,
            query: { order: order ?? undefined },
            node: (item) => embedded(ctx, 'Space', item.space),
          },
          info,
        ),
    }),
    teams: t.field({
      type: MemberTeamConnection,
      nullable: true,
      description: 'Teams of the member (`GET /orgs/{organizationId}/members/{userId}/teams`).',
      args: { ...forwardArgs, title: t.arg.string({ description: 'Case-insensitive substring of the team title.' }) },
      resolve: (m, { title, ...args }, ctx, info) =>
        resolveList<TeamItem, RestTeam>(
          ctx,
          args,
          {
            path: `${memberPath(m)}/teams`,
            query: { title: title ?? undefined },
            node: (item) => embedded(ctx, 'Team', item.team, { organizationId: m.organizationId }),
          },
          info,
        ),
    }),
  }),
});
