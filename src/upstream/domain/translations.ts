/** Translation settings of an organization: rows and the seed's shape. */
import { DEFAULT_TRANSLATION_LANGUAGES, type TranslationLanguage } from '../../api/bodies/orgSettings.js';
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { newId } from '../ids.js';
import { loadOwned, type OwnedTable } from './owned.js';

export interface TranslationSettingsRow {
  id: string;
  organization_id: string;
  title: string;
  languages: string;
  created_at: string;
  updated_at: string;
}

export const TRANSLATION_SETTINGS: OwnedTable = {
  table: 'translation_settings',
  owner: 'organization_id',
  what: 'Translation settings',
  orderBy: ['created_at', 'id'],
};

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

const loadTranslationSettings = (db: Db, organizationId: string, id: string) =>
  loadOwned<TranslationSettingsRow>(db, TRANSLATION_SETTINGS, organizationId, id);

export function insertTranslationSettings(
  db: Db,
  organizationId: string,
  input: { title: string; languages?: TranslationLanguage[] },
  now: string,
): TranslationSettingsRow {
  const id = newId();
  db.prepare(
    'INSERT INTO translation_settings (id, organization_id, title, languages, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(id, organizationId, input.title, JSON.stringify(input.languages ?? DEFAULT_TRANSLATION_LANGUAGES), now, now);
  return loadTranslationSettings(db, organizationId, id);
}

/** Sets the title and, when given, the languages. */
export function updateTranslationSettings(
  db: Db,
  row: TranslationSettingsRow,
  changes: { title: string; languages?: TranslationLanguage[] },
  now: string,
): TranslationSettingsRow {
  const languages = changes.languages ? JSON.stringify(changes.languages) : row.languages;
  db.prepare('UPDATE translation_settings SET title = ?, languages = ?, updated_at = ? WHERE id = ?').run(
    changes.title,
    languages,
    now,
    row.id,
  );
  return loadTranslationSettings(db, row.organization_id, row.id);
}
