import { TranslationLanguage } from '../lib/enums.js';
import { permissionsType, urlsType } from '../lib/fields.js';
import { edge, resourceNode } from '../lib/resource.js';

/** The seed's translation settings (the official description has no type for them). */
export interface RestTranslationSettings {
  object: 'translation-settings';
  id: string;
  title: string;
  languages: string[];
  createdAt: string;
  updatedAt: string;
  permissions: { view?: boolean; edit: boolean };
  urls: { location: string };
}

/** Translation settings of an organization (`/orgs/{organizationId}/translations/{translationSettingsId}`). */
declare module '../lib/resource.js' {
  interface ResourceShapes {
    TranslationSettings: RestTranslationSettings & { organizationId: string };
  }
}

export const TranslationSettings = resourceNode('TranslationSettings');

const TranslationSettingsPermissions = permissionsType('TranslationSettingsPermissions', 'with the translation settings', ['edit']);

const TranslationSettingsUrls = urlsType('TranslationSettingsUrls', 'translation settings', ['location']);

TranslationSettings.implement({
  description: 'Translation settings of an organization: the languages its content is translated into.',
  fields: (t) => ({
    title: t.exposeString('title'),
    languages: t.field({ type: [TranslationLanguage], resolve: (s) => s.languages as never }),
    createdAt: t.field({ type: 'DateTime', resolve: (s) => s.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (s) => s.updatedAt }),
    permissions: t.field({ type: TranslationSettingsPermissions, resolve: (s) => s.permissions }),
    urls: t.field({ type: TranslationSettingsUrls, resolve: (s) => s.urls }),
    organization: edge(t, 'Organization', (s) => [s.organizationId]),
  }),
});
