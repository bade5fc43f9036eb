import { DEFAULT_TRANSLATION_LANGUAGES, orgSettingsBodies, type TranslationLanguage } from '../../api/bodies/orgSettings.js';
import { requireOrgSettings } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';

interface TranslationSettingsRow {
  id: string;
  organization_id: string;
  title: string;
  languages: string;
  created_at: string;
  updated_at: string;
}

/** The seed's translation settings shape. */
export function toTranslationSettings(ctx: RequestContext, row: TranslationSettingsRow, canEdit: boolean) {
  return {
    object: 'translation-settings' as const,
    id: row.id,
    title: row.title,
    languages: JSON.parse(row.languages) as TranslationLanguage[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    permissions: { view: true, edit: canEdit },
    urls: { location: `${ctx.apiBase}/orgs/${row.organization_id}/translations/${row.id}` },
  };
}

function getSettings(ctx: RequestContext, organizationId: string, id: string): TranslationSettingsRow {
  const row = ctx.db
    .prepare('SELECT * FROM translation_settings WHERE organization_id = ? AND id = ?')
    .get(organizationId, id) as TranslationSettingsRow | undefined;
  if (!row) throw notFound('Translation settings');
  return row;
}

export function register(router: Router, _services: UpstreamServices) {
  const base = '/orgs/{organizationId}/translations';
  const access = (ctx: RequestContext, write = false) =>
    requireOrgSettings(ctx.db, ctx.params.organizationId, ctx.caller?.id, write);

  router.get(base, (ctx) => {
    const { org, canEdit } = access(ctx);
    return paginate<TranslationSettingsRow, ReturnType<typeof toTranslationSettings>>(ctx, {
      from: 'translation_settings WHERE organization_id = ?',
      params: [org.id],
      orderBy: ['created_at', 'id'],
      map: (row) => toTranslationSettings(ctx, row, canEdit),
    });
  });

  router.post(base, (ctx) => {
    const { org, canEdit } = access(ctx, true);
    const body = ctx.body(orgSettingsBodies['translationSettings.create']);
    const id = newId();
    const now = ctx.now();
    ctx.db
      .prepare('INSERT INTO translation_settings (id, organization_id, title, languages, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, org.id, body.title, JSON.stringify(body.languages ?? DEFAULT_TRANSLATION_LANGUAGES), now, now);
    return new Reply(201, toTranslationSettings(ctx, getSettings(ctx, org.id, id), canEdit));
  });

  router.get(`${base}/{translationSettingsId}`, (ctx) => {
    const { org, canEdit } = access(ctx);
    return toTranslationSettings(ctx, getSettings(ctx, org.id, ctx.params.translationSettingsId), canEdit);
  });

  router.put(`${base}/{translationSettingsId}`, (ctx) => {
    const { org, canEdit } = access(ctx, true);
    const row = getSettings(ctx, org.id, ctx.params.translationSettingsId);
    const body = ctx.body(orgSettingsBodies['translationSettings.update']);
    const languages = body.languages ? JSON.stringify(body.languages) : row.languages;
    ctx.db
      .prepare('UPDATE translation_settings SET title = ?, languages = ?, updated_at = ? WHERE id = ?')
      .run(body.title, languages, ctx.now(), row.id);
    return toTranslationSettings(ctx, getSettings(ctx, org.id, row.id), canEdit);
  });

  router.delete(`${base}/{translationSettingsId}`, (ctx) => {
    const { org } = access(ctx, true);
    const row = getSettings(ctx, org.id, ctx.params.translationSettingsId);
    ctx.db.prepare('DELETE FROM translation_settings WHERE id = ?').run(row.id);
  });
}
