import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { TranslationLanguage } from '../lib/enums.js';
import { urlsType } from '../lib/fields.js';
import { encodeKeys } from '../lib/node.js';
import { orgScoped } from '../lib/orgScoped.js';
import { Organization } from './Organization.js';

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
export const translationSettings = orgScoped<RestTranslationSettings>('TranslationSettings', {
  segment: 'translations',
  key: (s) => s.id,
});
export const TranslationSettings = translationSettings.ref;

const TranslationSettingsPermissions = builder
  .objectRef<RestTranslationSettings['permissions']>('TranslationSettingsPermissions')
  .implement({
    description: 'What the caller may do with the translation settings (REST `permissions`).',
    fields: (t) => ({
      edit: t.exposeBoolean('edit'),
    }),
  });

const TranslationSettingsUrls = urlsType('TranslationSettingsUrls', 'translation settings', ['location']);

TranslationSettings.implement({
  description: 'Translation settings of an organization: the languages its content is translated into.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the translation settings.' }),
    title: t.exposeString('title'),
    languages: t.field({ type: [TranslationLanguage], resolve: (s) => s.languages as never }),
    createdAt: t.field({ type: 'DateTime', resolve: (s) => s.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (s) => s.updatedAt }),
    permissions: t.field({ type: TranslationSettingsPermissions, resolve: (s) => s.permissions }),
    urls: t.field({ type: TranslationSettingsUrls, resolve: (s) => s.urls }),
    organization: t.field({ type: Organization, nullable: true, resolve: (s) => s.organizationId }),
  }),
});

export const TranslationSettingsConnection = builder.connectionObject(
  { type: TranslationSettings, name: 'TranslationSettingsConnection' },
  { name: 'TranslationSettingsEdge' },
);

builder.objectField(Organization, 'translations', (t) =>
  t.field({
    type: TranslationSettingsConnection,
    nullable: true,
    description: 'Translation settings of the organization (`GET /orgs/{organizationId}/translations`).',
    args: forwardArgs,
    resolve: (org, args, ctx) => resolveList(ctx, args, translationSettings.list(org.id)),
  }),
);

builder.queryFields((t) => ({
  translationSettings: t.field({
    type: TranslationSettings,
    nullable: true,
    description: 'Translation settings by REST id (`GET /orgs/{organizationId}/translations/{translationSettingsId}`).',
    args: { organizationId: t.arg.string({ required: true }), translationSettingsId: t.arg.string({ required: true }) },
    resolve: (_root, { organizationId, translationSettingsId }) => encodeKeys([organizationId, translationSettingsId]),
  }),
}));
