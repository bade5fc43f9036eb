import type { InviteLinkToOrganization as RestInviteLink } from '@gitbook/api';
import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { Role } from '../lib/enums.js';
import { orNull, urlsType } from '../lib/fields.js';
import { encodeKeys } from '../lib/node.js';
import { orgScoped } from '../lib/orgScoped.js';
import { Organization } from './Organization.js';

type RestInvite = RestInviteLink & { urls?: { location: string; app: string } };

/** Link invites of an organization (`/orgs/{organizationId}/link-invites/{inviteId}`). */
export const linkInvites = orgScoped<RestInvite>('Invite', { segment: 'link-invites', key: (invite) => invite.id });
export const Invite = linkInvites.ref;

const InviteUrls = urlsType('InviteUrls', 'a link invite (`app`: the page that joins)', ['location'], ['app']);

Invite.implement({
  description: 'A link invite: anyone who opens its link joins the organization with its role.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the invite.' }),
    role: t.field({ type: Role, nullable: true, description: 'Role given to who joins; null for guests.', resolve: (i) => i.role as never }),
    redundant: t.exposeBoolean('redundant', { description: 'True when the caller already has what the invite gives.' }),
    urls: t.field({ type: InviteUrls, nullable: true, resolve: (i) => orNull(i.urls) }),
    organization: t.field({ type: Organization, nullable: true, resolve: (i) => i.organizationId }),
  }),
});

export const InviteConnection = builder.connectionObject({ type: Invite, name: 'InviteConnection' }, { name: 'InviteEdge' });

builder.objectField(Organization, 'linkInvites', (t) =>
  t.field({
    type: InviteConnection,
    nullable: true,
    description: 'Link invites of the organization (`GET /orgs/{organizationId}/link-invites`).',
    args: forwardArgs,
    resolve: (org, args, ctx) => resolveList(ctx, args, linkInvites.list(org.id)),
  }),
);

builder.queryFields((t) => ({
  linkInvite: t.field({
    type: Invite,
    nullable: true,
    description: 'A link invite by REST id (`GET /orgs/{organizationId}/link-invites/{inviteId}`).',
    args: { organizationId: t.arg.string({ required: true }), inviteId: t.arg.string({ required: true }) },
    resolve: (_root, { organizationId, inviteId }) => encodeKeys([organizationId, inviteId]),
  }),
}));
