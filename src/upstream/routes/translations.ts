import { orgSettingsBodies } from '../../api/bodies/orgSettings.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { registerOrgSetting, type OrgSettingsAccess } from '../crud.js';
import {
  insertTranslationSettings,
  toTranslationSettings,
  TRANSLATION_SETTINGS,
  updateTranslationSettings,
  type TranslationSettingsRow,
} from '../domain/translations.js';
import { Reply, type Router } from '../router.js';

function create(ctx: RequestContext, { org, canEdit }: OrgSettingsAccess) {
  const { title, languages } = ctx.body(orgSettingsBodies['translationSettings.create']);
  return new Reply(201, toTranslationSettings(ctx, insertTranslationSettings(ctx.db, org.id, { title, languages }, ctx.now()), canEdit));
}

function update(ctx: RequestContext, { canEdit }: OrgSettingsAccess, row: TranslationSettingsRow) {
  const { title, languages } = ctx.body(orgSettingsBodies['translationSettings.update']);
  return toTranslationSettings(ctx, updateTranslationSettings(ctx.db, row, { title, languages }, ctx.now()), canEdit);
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
