import { orgSettingsBodies } from '../../api/bodies/orgSettings.js';
import { builder } from '../builder.js';
import { TranslationLanguage } from '../lib/enums.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { Organization } from '../nodes/Organization.js';
import { TranslationSettings, translationSettings } from '../nodes/TranslationSettings.js';

builder.relayMutationField(
  'createTranslationSettings',
  {
    inputFields: (t) => ({
      organizationId: t.string({ required: true }),
      title: t.string({ required: true }),
      languages: t.field({ type: [TranslationLanguage], description: 'Default: English only.' }),
    }),
  },
  {
    description: 'Creates translation settings (`POST /orgs/{organizationId}/translations`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, ['organizationId']);
      checkInput(orgSettingsBodies['translationSettings.create'], body);
      return { translationSettings: await translationSettings.save(ctx, 'POST', input.organizationId, body) };
    },
  },
  {
    outputFields: (t) => ({
      translationSettings: t.field({ type: TranslationSettings, nullable: true, resolve: (p) => p.translationSettings }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.translationSettings.organizationId }),
    }),
  },
);

builder.relayMutationField(
  'updateTranslationSettings',
  {
    inputFields: (t) => ({
      organizationId: t.string({ required: true }),
      translationSettingsId: t.string({ required: true }),
      title: t.string({ required: true }),
      languages: t.field({ type: [TranslationLanguage], description: 'Unchanged when absent.' }),
    }),
  },
  {
    description: 'Updates translation settings (`PUT /orgs/{organizationId}/translations/{translationSettingsId}`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, ['organizationId', 'translationSettingsId']);
      checkInput(orgSettingsBodies['translationSettings.update'], body);
      const saved = await translationSettings.save(ctx, 'PUT', input.organizationId, body, input.translationSettingsId);
      return { translationSettings: saved };
    },
  },
  {
    outputFields: (t) => ({
      translationSettings: t.field({ type: TranslationSettings, nullable: true, resolve: (p) => p.translationSettings }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.translationSettings.organizationId }),
    }),
  },
);

builder.relayMutationField(
  'deleteTranslationSettings',
  {
    inputFields: (t) => ({
      organizationId: t.string({ required: true }),
      translationSettingsId: t.string({ required: true }),
    }),
  },
  {
    description: 'Deletes translation settings (`DELETE /orgs/{organizationId}/translations/{translationSettingsId}`).',
    resolve: async (_root, { input }, ctx) => {
      await translationSettings.remove(ctx, input.organizationId, input.translationSettingsId);
      return {
        deletedId: globalId('TranslationSettings', input.organizationId, input.translationSettingsId),
        organizationId: input.organizationId,
      };
    },
  },
  {
    outputFields: (t) => ({
      deletedId: t.id({ resolve: (p) => p.deletedId }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.organizationId }),
    }),
  },
);
