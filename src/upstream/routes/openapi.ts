import { orgSettingsBodies } from '../../api/bodies/orgSettings.js';
import { limits } from '../../api/rules.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { registerOrgSetting, type OrgSettingsAccess } from '../crud.js';
import { findSpec, insertSpec, OPENAPI_SPECS, toOpenApiSpec, updateSource } from '../domain/openApiSpecs.js';
import { conflict } from '../errors.js';
import { startProcessing } from '../openapi/process.js';
import { Reply, type Router } from '../router.js';

export function register(router: Router, services: UpstreamServices) {
  function create(ctx: RequestContext, { org, canEdit }: OrgSettingsAccess) {
    const body = ctx.body(orgSettingsBodies['openApiSpec.create']);
    if (findSpec(ctx.db, org.id, body.slug)) throw conflict(`slug: an OpenAPI spec with the slug ${body.slug} already exists`);
    const row = insertSpec(ctx.db, org.id, body.slug, body.source, ctx.now());
    startProcessing(services, row.id);
    return new Reply(201, toOpenApiSpec(ctx, row, canEdit));
  }

  /** Creates the spec of the slug, or replaces its source. */
  function put(ctx: RequestContext, { org, canEdit }: OrgSettingsAccess) {
    const slug = ctx.param('specSlug', limits.openApiSlug);
    const body = ctx.body(orgSettingsBodies['openApiSpec.put']);
    const existing = findSpec(ctx.db, org.id, slug);
    const row = existing ? updateSource(ctx.db, existing, body.source, ctx.now()) : insertSpec(ctx.db, org.id, slug, body.source, ctx.now());
    startProcessing(services, row.id);
    return new Reply(existing ? 200 : 201, toOpenApiSpec(ctx, row, canEdit));
  }

  registerOrgSetting(router, { path: 'openapi', param: 'specSlug', table: OPENAPI_SPECS, show: toOpenApiSpec, create: ['POST', create], update: ['PUT', put] });
}
