/** Invites: link invites and the pending email invites (rows, the Invite shape, inviting and joining). */
import { atLeast, type Role } from '../../api/roles.js';
import type { RequestContext, UserRow } from '../context.js';
import type { Db } from '../db/index.js';
import { forbidden, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { ListSpec } from '../pagination.js';
import { orgMembership, type OrgRow } from '../access.js';
import { hasMembership } from './grants.js';
import { findMember } from './members.js';
import { findOwned, loadOwned, ownedRows, type OwnedTable } from './owned.js';

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
  const row = db.prepare('SELECT id FROM invites WHERE organization_id = ? AND email = ?').get(organizationId, email.toLowerCase()) as
    { id: string } | undefined;
  return row?.id;
}
function addMembership(db: Db, organizationId: string, userId: string, role: Role | null, sso: boolean, now: string) {
  db.prepare('INSERT INTO members (organization_id, user_id, role, sso, joined_at) VALUES (?, ?, ?, ?, ?)').run(
    organizationId,
    userId,
    role,
    sso ? 1 : 0,
    now,
  );
}

const hasSamlProvider = (db: Db, organizationId: string) =>
  Boolean(db.prepare('SELECT 1 FROM saml_providers WHERE organization_id = ? LIMIT 1').get(organizationId));

/**
 * Whether an invitee can become an SSO member of an organization with a SAML provider (one
 * signs them in): as the hosted API documents for `failedSSOEmails`, a user who already belongs
 * to another organization cannot be made an SSO user here.
 */
const canInviteAsSso = (db: Db, org: OrgRow, user: UserRow | undefined) =>
  !user || !db.prepare('SELECT 1 FROM members WHERE user_id = ? AND organization_id != ? LIMIT 1').get(user.id, org.id);

/** Existing users join at once (`users`); other emails get a pending invite (`invited`). */
export function inviteByEmail(ctx: RequestContext, org: OrgRow, input: { emails: string[]; role: Role | null; sso?: boolean }) {
  const { db } = ctx;
  const emails = [...new Set(input.emails.map((e) => e.toLowerCase()))];
  const result = { users: [] as string[], invited: 0, failedSSOEmails: [] as string[] };
  const upsertInvite = db.prepare(
    `INSERT INTO invites (id, organization_id, email, role, sso, invited_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, sso = excluded.sso`,
  );
  db.transaction(() => {
    const ssoPossible = input.sso === true && hasSamlProvider(db, org.id);
    for (const email of emails) {
      const user = db.prepare('SELECT * FROM users WHERE lower(email) = ?').get(email) as UserRow | undefined;
      const sso = ssoPossible && canInviteAsSso(db, org, user);
      if (input.sso === true && !sso) result.failedSSOEmails.push(email);
      if (!user) {
        upsertInvite.run(newId(), org.id, email, input.role, sso ? 1 : 0, ctx.user().id, ctx.now());
        result.invited++;
      } else if (!hasMembership(db, org.id, user.id)) {
        addMembership(db, org.id, user.id, input.role, sso, ctx.now());
        result.users.push(user.id);
      }
    }
  })();
  return result;
}

/** The caller joins with an invite: an email invite (for its addressee only, used once) or a link invite. */
export function joinWithInvite(ctx: RequestContext, organizationId: string, inviteId: string): void {
  const { db } = ctx;
  const me = ctx.user();
  const byEmail = db.prepare('SELECT * FROM invites WHERE id = ? AND organization_id = ?').get(inviteId, organizationId) as
    EmailInviteRow | undefined;
  const byLink = findLinkInvite(db, organizationId, inviteId);
  const invite = byEmail ?? byLink;
  if (!invite) throw notFound('Invite');
  if (byEmail && byEmail.email !== me.email.toLowerCase()) throw forbidden('This invite was sent to another email address');
  const existing = findMember(db, organizationId, me.id);
  if (existing?.disabled) throw forbidden('Your membership of this organization is disabled');
  db.transaction(() => {
    // A member keeps their role: an invite lets people in, it does not change roles.
    if (!existing) addMembership(db, organizationId, me.id, invite.role, Boolean(byEmail?.sso), ctx.now());
    if (byEmail) db.prepare('DELETE FROM invites WHERE id = ?').run(byEmail.id);
  })();
}

export const LINK_INVITES: OwnedTable = { table: 'link_invites', owner: 'organization_id', what: 'Invite', orderBy: ['created_at', 'id'] };

const findLinkInvite = (db: Db, organizationId: string, inviteId: string) =>
  findOwned<LinkInviteRow>(db, LINK_INVITES, organizationId, inviteId);

/** The organization's link invite (404 otherwise). */
export const loadLinkInvite = (db: Db, organizationId: string, inviteId: string) =>
  loadOwned<LinkInviteRow>(db, LINK_INVITES, organizationId, inviteId);

/** The organization's link invites that grant no more than `role` (see grantsNoMore). */
export const linkInvitesOf = (ctx: RequestContext, organizationId: string, role: Role | null): ListSpec<LinkInviteRow, Invite> => ({
  ...ownedRows(LINK_INVITES, organizationId, (row: LinkInviteRow) => toInvite(ctx, row)),
  filter: (row) => grantsNoMore(role, row),
});

export function insertLinkInvite(
  db: Db,
  input: { organizationId: string; role: Role | null; createdBy: string },
  now: string,
): LinkInviteRow {
  const row: LinkInviteRow = { id: newId(), organization_id: input.organizationId, role: input.role, created_at: now };
  db.prepare('INSERT INTO link_invites (id, organization_id, role, created_by, created_at) VALUES (?, ?, ?, ?, ?)').run(
    row.id,
    row.organization_id,
    row.role,
    input.createdBy,
    row.created_at,
  );
  return row;
}

export function setLinkInviteRole(db: Db, row: LinkInviteRow, role: Role | null): LinkInviteRow {
  db.prepare('UPDATE link_invites SET role = ? WHERE id = ?').run(role, row.id);
  return { ...row, role };
}
