import type { InviteLinkToOrganization as RestInviteLink } from '@gitbook/api';
import { Role } from '../lib/enums.js';
import { orNull, urlsType } from '../lib/fields.js';
import { edge, resourceNode } from '../lib/resource.js';

type RestInvite = RestInviteLink & { urls?: { location: string; app: string }; organizationId: string };

/** Link invites of an organization (`/orgs/{organizationId}/link-invites/{inviteId}`). */
declare module '../lib/resource.js' {
  interface ResourceShapes {
    Invite: RestInvite;
  }
}

export const Invite = resourceNode('Invite');

const InviteUrls = urlsType('InviteUrls', 'a link invite (`app`: the page that joins)', ['location'], ['app']);

Invite.implement({
  description: 'A link invite: anyone who opens its link joins the organization with its role.',
  fields: (t) => ({
    role: t.field({
      type: Role,
      nullable: true,
      description: 'Role given to who joins; null for guests.',
      resolve: (i) => i.role as never,
    }),
    redundant: t.exposeBoolean('redundant', { description: 'True when the caller already has what the invite gives.' }),
    urls: t.field({ type: InviteUrls, nullable: true, resolve: (i) => orNull(i.urls) }),
    organization: edge(t, 'Organization', (i) => [i.organizationId]),
  }),
});
