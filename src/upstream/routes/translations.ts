import { orgSettingsBodies } from '../../api/bodies/orgSettings.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { orgSettingsAccess, registerOrgSetting } from '../crud.js';
import {
  insertTranslationSettings,
  loadTranslationSettings,
  toTranslationSettings,
  TRANSLATION_SETTINGS,
  updateTranslationSettings,
} from '../domain/translations.js';
import { Reply, type Router } from '../router.js';

function create(ctx: RequestContext) {
  const { org, canEdit } = orgSettingsAccess(ctx, true);
  const body = ctx.body(orgSettingsBodies['translationSettings.create']);
  return new Reply(201, toTranslationSettings(ctx, insertTranslationSettings(ctx.db, org.id, { title: body.title, languages: body.languages }, ctx.now()), canEdit));
}

function update(ctx: RequestContext) {
  const { org, canEdit } = orgSettingsAccess(ctx, true);
  const row = loadTranslationSettings(ctx.db, org.id, ctx.params.translationSettingsId);
  const body = ctx.body(orgSettingsBodies['translationSettings.update']);
  return toTranslationSettings(ctx, updateTranslationSettings(ctx.db, row, { title: body.title, languages: body.languages }, ctx.now()), canEdit);
}

export function register(router: Router, _services: UpstreamServices) {
  registerOrgSetting(router, {
    path: 'translations',
    param: 'translationSettingsId',
    table: TRANSLATION_SETTINGS,
    show: toTranslationSettings,
    create: ['POST', create],
    update: ['PUT', update],
  });
}
