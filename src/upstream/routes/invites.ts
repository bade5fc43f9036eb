import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import type { Role } from '../../api/roles.js';
import { requireOrg, type OrgRow } from '../access.js';
import type { RequestContext, UpstreamServices, UserRow } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import { grantsNoMore, toInvite, type EmailInviteRow, type Invite, type LinkInviteRow } from '../domain/invites.js';

function addMembership(ctx: RequestContext, organizationId: string, userId: string, role: Role | null, sso: boolean) {
  ctx.db
    .prepare('INSERT INTO members (organization_id, user_id, role, sso, joined_at) VALUES (?, ?, ?, ?, ?)')
    .run(organizationId, userId, role, sso ? 1 : 0, ctx.now());
}

const isMember = (ctx: RequestContext, organizationId: string, userId: string) =>
  Boolean(ctx.db.prepare('SELECT 1 FROM members WHERE organization_id = ? AND user_id = ?').get(organizationId, userId));

/**
 * Whether an invitee can become an SSO member: the organization needs a SAML provider to sign
 * them in, and (as the hosted API documents for `failedSSOEmails`) a user who already belongs
 * to another organization cannot be made an SSO user here.
 */
function canInviteAsSso(ctx: RequestContext, org: OrgRow, user: UserRow | undefined): boolean {
  const saml = ctx.db.prepare('SELECT 1 FROM saml_providers WHERE organization_id = ? LIMIT 1').get(org.id);
  if (!saml) return false;
  if (!user) return true;
  return !ctx.db.prepare('SELECT 1 FROM members WHERE user_id = ? AND organization_id != ? LIMIT 1').get(user.id, org.id);
}

/** Existing users join at once (`users`); other emails get a pending invite (`invited`). */
function inviteByEmail(ctx: RequestContext) {
  const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.user().id, 'admin');
  const body = ctx.body(bodies['invite.create']);
  const role: Role | null = body.role === undefined ? org.default_role : body.role;
  const emails = [...new Set((body.emails as string[]).map((e) => e.toLowerCase()))];
  const result = { users: [] as string[], invited: 0, failedSSOEmails: [] as string[] };
  const upsertInvite = ctx.db.prepare(
    `INSERT INTO invites (id, organization_id, email, role, sso, invited_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, sso = excluded.sso`,
  );
  ctx.db.transaction(() => {
    for (const email of emails) {
      const user = ctx.db.prepare('SELECT * FROM users WHERE lower(email) = ?').get(email) as UserRow | undefined;
      const sso = body.sso === true && canInviteAsSso(ctx, org, user);
      if (body.sso === true && !sso) result.failedSSOEmails.push(email);
      if (!user) {
        upsertInvite.run(newId(), org.id, email, role, sso ? 1 : 0, ctx.user().id, ctx.now());
        result.invited++;
      } else if (!isMember(ctx, org.id, user.id)) {
        addMembership(ctx, org.id, user.id, role, sso);
        result.users.push(user.id);
      }
    }
  })();
  return result;
}

/** The caller joins with an invite: an email invite (for its addressee only, used once) or a link invite. */
function joinWithInvite(ctx: RequestContext) {
  const { organizationId, inviteId } = ctx.params;
  const me = ctx.user();
  const byEmail = ctx.db
    .prepare('SELECT * FROM invites WHERE id = ? AND organization_id = ?')
    .get(inviteId, organizationId) as EmailInviteRow | undefined;
  const byLink = ctx.db
    .prepare('SELECT * FROM link_invites WHERE id = ? AND organization_id = ?')
    .get(inviteId, organizationId) as LinkInviteRow | undefined;
  const invite = byEmail ?? byLink;
  if (!invite) throw notFound('Invite');
  if (byEmail && byEmail.email !== me.email.toLowerCase()) throw forbidden('This invite was sent to another email address');
  const existing = ctx.db
    .prepare('SELECT disabled FROM members WHERE organization_id = ? AND user_id = ?')
    .get(organizationId, me.id) as { disabled: number } | undefined;
  if (existing?.disabled) throw forbidden('Your membership of this organization is disabled');
  ctx.db.transaction(() => {
    // A member keeps their role: an invite lets people in, it does not change roles.
    if (!existing) addMembership(ctx, organizationId, me.id, invite.role, Boolean(byEmail?.sso));
    if (byEmail) ctx.db.prepare('DELETE FROM invites WHERE id = ?').run(byEmail.id);
  })();
  return {};
}

function requireLinkInvite(ctx: RequestContext, min: 'member' | 'admin'): LinkInviteRow {
  const { organizationId, inviteId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id, min);
  const row = ctx.db
    .prepare('SELECT * FROM link_invites WHERE id = ? AND organization_id = ?')
    .get(inviteId, organizationId) as LinkInviteRow | undefined;
  if (!row) throw notFound('Invite');
  return row;
}

function createLinkInvite(ctx: RequestContext) {
  const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.user().id, 'admin');
  const body = ctx.body(bodies['linkInvite.create'], { optional: true });
  const row: LinkInviteRow = {
    id: newId(),
    organization_id: org.id,
    role: body.role === undefined ? org.default_role : body.role,
    created_at: ctx.now(),
  };
  ctx.db
    .prepare('INSERT INTO link_invites (id, organization_id, role, created_by, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(row.id, row.organization_id, row.role, ctx.user().id, row.created_at);
  return new Reply(201, toInvite(ctx, row));
}

export function register(router: Router, _services: UpstreamServices) {
  const link = '/orgs/{organizationId}/link-invites/{inviteId}';

  router.post('/orgs/{organizationId}/invites', inviteByEmail);
  router.post('/orgs/{organizationId}/invites/{inviteId}', joinWithInvite);

  router.get('/orgs/{organizationId}/link-invites', (ctx) => {
    const { organizationId } = ctx.params;
    const { member } = requireOrg(ctx.db, organizationId, ctx.user().id);
    return paginate<LinkInviteRow, Invite>(ctx, {
      from: 'link_invites WHERE organization_id = ?',
      params: [organizationId],
      orderBy: ['created_at', 'id'],
      filter: (row) => grantsNoMore(member.role, row),
      map: (row) => toInvite(ctx, row),
    });
  });
  router.post('/orgs/{organizationId}/link-invites', createLinkInvite);
  router.get(link, (ctx) => toInvite(ctx, requireLinkInvite(ctx, 'member')));

  router.patch(link, (ctx) => {
    const row = requireLinkInvite(ctx, 'admin');
    const { role } = ctx.body(bodies['linkInvite.update']);
    ctx.db.prepare('UPDATE link_invites SET role = ? WHERE id = ?').run(role, row.id);
    return toInvite(ctx, { ...row, role });
  });

  router.delete(link, (ctx) => {
    const row = requireLinkInvite(ctx, 'admin');
    ctx.db.prepare('DELETE FROM link_invites WHERE id = ?').run(row.id);
    return undefined;
  });
}
