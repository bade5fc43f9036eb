/** Invites: link invites and the pending email invites (rows and the Invite shape). */
import { atLeast, type Role } from '../../api/roles.js';
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { orgMembership } from '../access.js';

export interface LinkInviteRow {
  id: string;
  organization_id: string;
  role: Role | null;
  created_at: string;
}

export interface EmailInviteRow extends LinkInviteRow {
  email: string;
  sso: number;
}

/**
 * A link invite is a key to join with its role, so a member lists only the invites that grant no
 * more than their own role (guests: those without a role; admins: all).
 */
export const grantsNoMore = (role: Role | null, invite: LinkInviteRow) => invite.role === null || atLeast(role, invite.role);

/** An invite is redundant when the caller already is a member with at least its role. */
function isRedundant(ctx: RequestContext, row: LinkInviteRow): boolean {
  const member = orgMembership(ctx.db, row.organization_id, ctx.caller?.id);
  return Boolean(member) && (row.role === null || atLeast(member?.role, row.role));
}

export function toInvite(ctx: RequestContext, row: LinkInviteRow) {
  return {
    object: 'invite' as const,
    id: row.id,
    role: row.role,
    redundant: isRedundant(ctx, row),
    urls: {
      location: `${ctx.apiBase}/orgs/${row.organization_id}/link-invites/${row.id}`,
      /** The page a user opens to join (it calls POST /orgs/{organizationId}/invites/{inviteId}). */
      app: `${ctx.appBase}/invite/${row.organization_id}/${row.id}`,
    },
  };
}

export type Invite = ReturnType<typeof toInvite>;

/**
 * What the invitation email carries: the id of the pending invite sent to `email`. No REST
 * operation reveals it (the hosted service mails it); tests read it here as from a mailbox.
 */
export function invitationFor(db: Db, organizationId: string, email: string): string | undefined {
  const row = db
    .prepare('SELECT id FROM invites WHERE organization_id = ? AND email = ?')
    .get(organizationId, email.toLowerCase()) as { id: string } | undefined;
  return row?.id;
}