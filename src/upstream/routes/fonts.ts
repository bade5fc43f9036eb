import { orgSettingsBodies } from '../../api/bodies/orgSettings.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { registerOrgSetting, type OrgSettingsAccess } from '../crud.js';
import { FONTS, insertFont, toFont, updateFont, type FontRow } from '../domain/fonts.js';
import { Reply, type Router } from '../router.js';

function createFont(ctx: RequestContext, { org, canEdit }: OrgSettingsAccess) {
  const { fontFamily, fontFaces } = ctx.body(orgSettingsBodies['font.create']);
  return new Reply(201, toFont(ctx, insertFont(ctx.db, org.id, { fontFamily, fontFaces }, ctx.now()), canEdit));
}

/** The seed answers an update with 201. */
function changeFont(ctx: RequestContext, { canEdit }: OrgSettingsAccess, row: FontRow) {
  return new Reply(201, toFont(ctx, updateFont(ctx.db, row, ctx.body(orgSettingsBodies['font.update']), ctx.now()), canEdit));
}

export function register(router: Router, _services: UpstreamServices) {
  registerOrgSetting(router, {
    path: 'fonts',
    param: 'fontId',
    table: FONTS,
    show: toFont,
    create: ['PUT', createFont],
    update: ['POST', changeFont],
  });
}
