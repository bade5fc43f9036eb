import { orgSettingsBodies } from '../../api/bodies/orgSettings.js';
import { limits } from '../../api/rules.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { registerOrgSetting, type OrgSettingsAccess } from '../crud.js';
import { createSpec, OPENAPI_SPECS, putSpec, toOpenApiSpec, type Source } from '../domain/openApiSpecs.js';
import { startProcessing } from '../openapi/process.js';
import { Reply, type Router } from '../router.js';

export function register(router: Router, services: UpstreamServices) {
  function create(ctx: RequestContext, { org, canEdit }: OrgSettingsAccess) {
    const body = ctx.body(orgSettingsBodies['openApiSpec.create']);
    // The source rule's refinement guarantees exactly one of url and text.
    const row = createSpec(ctx.db, org.id, body.slug, body.source as Source, ctx.now());
    startProcessing(services, row.id);
    return new Reply(201, toOpenApiSpec(ctx, row, canEdit));
  }

  /** Creates the spec of the slug, or replaces its source. */
  function put(ctx: RequestContext, { org, canEdit }: OrgSettingsAccess) {
    const slug = ctx.param('specSlug', limits.openApiSlug);
    const body = ctx.body(orgSettingsBodies['openApiSpec.put']);
    const { row, created } = putSpec(ctx.db, org.id, slug, body.source as Source, ctx.now());
    startProcessing(services, row.id);
    return new Reply(created ? 201 : 200, toOpenApiSpec(ctx, row, canEdit));
  }

  registerOrgSetting(router, {
    path: 'openapi',
    param: 'specSlug',
    table: OPENAPI_SPECS,
    show: toOpenApiSpec,
    create: ['POST', create],
    upsert: ['PUT', put],
  });
}
