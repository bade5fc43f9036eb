import { organizationBodies as bodies } from '../../api/bodies/organizations.js';
import type { Role } from '../../api/roles.js';
import { requireOrg } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import { findTeam, toTeam } from '../domain/teams.js';

interface SamlProviderRow {
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

const findProvider = (ctx: RequestContext, organizationId: string, samlProviderId: string) =>
  ctx.db
    .prepare('SELECT * FROM saml_providers WHERE id = ? AND organization_id = ?')
    .get(samlProviderId, organizationId) as SamlProviderRow | undefined;

/** The provider of the path, for an organization admin. */
function requireProvider(ctx: RequestContext): SamlProviderRow {
  const { organizationId, samlProviderId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id, 'admin');
  const row = findProvider(ctx, organizationId, samlProviderId);
  if (!row) throw notFound('SAML provider');
  return row;
}

function createProvider(ctx: RequestContext) {
  const { organizationId } = ctx.params;
  requireOrg(ctx.db, organizationId, ctx.user().id, 'admin');
  const values = columnsOf(ctx, organizationId, ctx.body(bodies['samlProvider.create']));
  const row = { id: newId(), organization_id: organizationId, created_at: ctx.now(), ...values };
  const columns = Object.keys(row);
  ctx.db
    .prepare(`INSERT INTO saml_providers (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
    .run(...Object.values(row));
  return new Reply(201, toSamlProvider(ctx, findProvider(ctx, organizationId, row.id)!));
}

function updateProvider(ctx: RequestContext) {
  const row = requireProvider(ctx);
  const values = columnsOf(ctx, row.organization_id, ctx.body(bodies['samlProvider.update'], { optional: true }));
  const columns = Object.keys(values);
  if (columns.length)
    ctx.db
      .prepare(`UPDATE saml_providers SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`)
      .run(...Object.values(values), row.id);
  return toSamlProvider(ctx, findProvider(ctx, row.organization_id, row.id)!);
}

export function register(router: Router, _services: UpstreamServices) {
  const provider = '/orgs/{organizationId}/saml/{samlProviderId}';

  router.get('/orgs/{organizationId}/saml', (ctx) => {
    const { organizationId } = ctx.params;
    requireOrg(ctx.db, organizationId, ctx.user().id, 'admin');
    return paginate<SamlProviderRow, SamlProvider>(ctx, {
      from: 'saml_providers WHERE organization_id = ?',
      params: [organizationId],
      orderBy: ['created_at', 'id'],
      map: (row) => toSamlProvider(ctx, row),
    });
  });
  router.post('/orgs/{organizationId}/saml', createProvider);
  router.get(provider, (ctx) => toSamlProvider(ctx, requireProvider(ctx)));
  router.patch(provider, updateProvider);
  router.delete(provider, (ctx) => {
    ctx.db.prepare('DELETE FROM saml_providers WHERE id = ?').run(requireProvider(ctx).id);
    return undefined;
  });

  // SSO login information is what a sign-in page shows before anyone is known to the
  // organization, so any authenticated caller may read it (as with the hosted API).
  router.get('/orgs/{organizationId}/sso', (ctx) => {
    ctx.user();
    const { organizationId } = ctx.params;
    if (!ctx.db.prepare('SELECT 1 FROM organizations WHERE id = ?').get(organizationId)) throw notFound('Organization');
    const rows = ctx.db
      .prepare('SELECT * FROM saml_providers WHERE organization_id = ? ORDER BY created_at, id')
      .all(organizationId) as SamlProviderRow[];
    return { items: rows.map((row) => ({ id: row.id, label: row.label, startURL: serviceOf(ctx, row).startURL })) };
  });
}
