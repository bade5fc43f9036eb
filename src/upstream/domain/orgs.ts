/** Organizations: lookups, the caller's organizations and the official Organization shape. */
import { atLeast } from '../../api/roles.js';
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import type { ListSpec } from '../pagination.js';
import { orgMembership, type OrgRow } from '../access.js';

/** The id of the organization named by its id or its hostname. */
export function orgIdByIdOrHostname(db: Db, organization: string): string | undefined {
  const found = db.prepare('SELECT id FROM organizations WHERE id = ? OR hostname = ?').get(organization, organization) as
    { id: string } | undefined;
  return found?.id;
}

/** The organizations the user is an active member of. */
export function orgsOf(ctx: RequestContext, userId: string): ListSpec<OrgRow, Organization> {
  return {
    from: `organizations WHERE id IN (SELECT organization_id FROM members WHERE user_id = ? AND disabled = 0)`,
    params: [userId],
    orderBy: ['created_at', 'id'],
    map: (row) => toOrganization(ctx, row),
  };
}
/** The official Organization shape (seed: "Organization (as embedded in an integration)"). */
export function toOrganization(ctx: RequestContext, row: OrgRow) {
  const member = orgMembership(ctx.db, row.id, ctx.caller?.id);
  return {
    object: 'organization' as const,
    id: row.id,
    title: row.title,
    createdAt: row.created_at,
    emailDomains: JSON.parse(row.email_domains) as string[],
    hostname: row.hostname,
    type: 'business' as const,
    useCase: 'internalDocs' as const,
    ...(row.default_role ? { defaultRole: row.default_role } : {}),
    sso: Boolean(row.sso),
    ai: true,
    inviteLinks: Boolean(row.invite_links),
    plan: 'free_2024',
    mergeRules: { type: 'none' as const },
    trial: { status: 'notapplicable' as const },
    urls: {
      location: `${ctx.apiBase}/orgs/${row.id}`,
      app: `${ctx.appBase}/o/${row.id}`,
    },
    permissions: {
      admin: member?.role === 'admin',
      createContent: atLeast(member?.role, 'create'),
    },
  };
}

export type Organization = ReturnType<typeof toOrganization>;
