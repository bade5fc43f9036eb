/** SAML providers of an organization: rows, the provider shape, writes, and the SSO login list. */
import type { Role } from '../../api/roles.js';
import type { RequestContext } from '../context.js';
import { setColumns } from '../db/columns.js';
import type { Db } from '../db/index.js';
import { badRequest } from '../errors.js';
import { newId } from '../ids.js';
import { allOwned, loadOwned, type OwnedTable } from './owned.js';
import { findTeam, toTeam } from './teams.js';

export interface SamlProviderRow {
  id: string;
  organization_id: string;
  label: string;
  entity_id: string | null;
  certificate: string | null;
  sso_url: string | null;
  default_team_id: string | null;
  default_role: Role | null;
  created_at: string;
}

/** Body fields → columns. */
const COLUMNS = {
  label: 'label',
  entityID: 'entity_id',
  certificate: 'certificate',
  ssoURL: 'sso_url',
  defaultTeam: 'default_team_id',
  defaultRole: 'default_role',
} as const;

/** Where the identity provider talks to this service (absolute URLs on the upstream's origin). */
function serviceOf(ctx: RequestContext, row: SamlProviderRow) {
  const base = `${ctx.services.origin()}/sso/saml/${row.organization_id}/${row.id}`;
  return { acsURL: `${base}/acs`, startURL: `${base}/start`, entityID: base };
}

/** Unset fields are left out rather than sent empty. */
export function toSamlProvider(ctx: RequestContext, row: SamlProviderRow) {
  const team = row.default_team_id ? findTeam(ctx, row.organization_id, row.default_team_id) : undefined;
  const configured = Boolean(row.sso_url && row.entity_id && row.certificate);
  return {
    object: 'saml-provider' as const,
    id: row.id,
    label: row.label,
    ...(row.sso_url !== null ? { ssoURL: row.sso_url } : {}),
    ...(row.entity_id !== null ? { entityID: row.entity_id } : {}),
    ...(row.certificate !== null ? { certificate: row.certificate } : {}),
    ...(team ? { defaultTeam: toTeam(ctx, team) } : {}),
    defaultRole: row.default_role,
    createdAt: row.created_at,
    // Users can sign in once the identity provider's URL, entity ID and certificate are all known.
    status: configured ? ('active' as const) : ('pending' as const),
    service: serviceOf(ctx, row),
    urls: { location: `${ctx.apiBase}/orgs/${row.organization_id}/saml/${row.id}` },
  };
}

export type SamlProvider = ReturnType<typeof toSamlProvider>;

/** The validated body as column values; `defaultTeam` must be a team of the organization. */
function columnsOf(ctx: RequestContext, organizationId: string, body: Record<string, unknown>) {
  if (typeof body.defaultTeam === 'string' && !findTeam(ctx, organizationId, body.defaultTeam))
    throw badRequest('defaultTeam: is not a team of the organization');
  const out: Partial<Record<(typeof COLUMNS)[keyof typeof COLUMNS], unknown>> = {};
  for (const [field, column] of Object.entries(COLUMNS)) if (body[field] !== undefined) out[column] = body[field];
  return out;
}

export const SAML_PROVIDERS: OwnedTable = {
  table: 'saml_providers',
  owner: 'organization_id',
  what: 'SAML provider',
  orderBy: ['created_at', 'id'],
};

const loadProvider = (db: Db, organizationId: string, samlProviderId: string) =>
  loadOwned<SamlProviderRow>(db, SAML_PROVIDERS, organizationId, samlProviderId);

/** A provider from a validated create body (400 when `defaultTeam` is not a team of the organization). */
export function insertProvider(ctx: RequestContext, organizationId: string, body: Record<string, unknown>): SamlProviderRow {
  const values = columnsOf(ctx, organizationId, body);
  const row = { id: newId(), organization_id: organizationId, created_at: ctx.now(), ...values };
  const columns = Object.keys(row);
  ctx.db
    .prepare(`INSERT INTO saml_providers (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
    .run(...Object.values(row));
  return loadProvider(ctx.db, organizationId, row.id);
}

/** Sets the fields of a validated update body (undefined keeps one). */
export function updateProvider(ctx: RequestContext, row: SamlProviderRow, body: Record<string, unknown>): SamlProviderRow {
  setColumns(ctx.db, 'saml_providers', ['id', row.id], columnsOf(ctx, row.organization_id, body));
  return loadProvider(ctx.db, row.organization_id, row.id);
}

/** What a sign-in page shows: each provider's label and where its login starts. */
export function ssoLogins(ctx: RequestContext, organizationId: string) {
  const rows = allOwned<SamlProviderRow>(ctx.db, SAML_PROVIDERS, organizationId);
  return { items: rows.map((row) => ({ id: row.id, label: row.label, startURL: serviceOf(ctx, row).startURL })) };
}
