import { orgSettingsBodies } from '../../api/bodies/orgSettings.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { orgSettingsAccess, registerOrgSetting } from '../crud.js';
import { FONTS, insertFont, loadFont, toFont, updateFont } from '../domain/fonts.js';
import { Reply, type Router } from '../router.js';

function createFont(ctx: RequestContext) {
  const { org, canEdit } = orgSettingsAccess(ctx, true);
  const body = ctx.body(orgSettingsBodies['font.create']);
  return new Reply(201, toFont(ctx, insertFont(ctx.db, org.id, { fontFamily: body.fontFamily, fontFaces: body.fontFaces }, ctx.now()), canEdit));
}

/** The seed answers an update with 201. */
function changeFont(ctx: RequestContext) {
  const { org, canEdit } = orgSettingsAccess(ctx, true);
  const row = loadFont(ctx.db, org.id, ctx.params.fontId);
  const body = ctx.body(orgSettingsBodies['font.update']);
  return new Reply(201, toFont(ctx, updateFont(ctx.db, row, body, ctx.now()), canEdit));
}

export function register(router: Router, _services: UpstreamServices) {
  registerOrgSetting(router, { path: 'fonts', param: 'fontId', table: FONTS, show: toFont, create: ['PUT', createFont], update: ['POST', changeFont] });
}
