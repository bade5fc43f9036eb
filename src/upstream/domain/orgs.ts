/** Organizations: the official Organization shape. */
import { atLeast } from '../../api/roles.js';
import type { RequestContext } from '../context.js';
import { orgMembership, type OrgRow } from '../access.js';

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