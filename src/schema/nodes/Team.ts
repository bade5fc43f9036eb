import type { OrganizationTeam as RestTeam } from '@gitbook/api';
import { permissionsType } from '../lib/fields.js';
import { edge, resourceNode } from '../lib/resource.js';

/** Teams of an organization (`/orgs/{organizationId}/teams/{teamId}`). */
declare module '../lib/resource.js' {
  interface ResourceShapes {
    Team: RestTeam & { organizationId: string };
  }
}

export const Team = resourceNode('Team');

const TeamPermissions = permissionsType('TeamPermissions', 'with the team', {
  admin: 'Whether the caller may manage the team.',
  view: 'Whether the caller may view the team.',
});

Team.implement({
  description: 'A team of organization members.',
  fields: (t) => ({
    title: t.exposeString('title'),
    membersCount: t.int({ description: 'Count of members of the team (REST `members`).', resolve: (team) => team.members }),
    spacesCount: t.int({ description: 'Count of spaces the team can access (REST `spaces`).', resolve: (team) => team.spaces }),
    createdAt: t.field({ type: 'DateTime', resolve: (team) => team.createdAt }),
    permissions: t.field({ type: TeamPermissions, resolve: (team) => team.permissions }),
    organization: edge(t, 'Organization', (team) => [team.organizationId]),
  }),
});
