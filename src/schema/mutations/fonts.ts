import { orgSettingsBodies, REQUIRED_FONT_WEIGHT } from '../../api/bodies/orgSettings.js';
import { builder } from '../builder.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { CustomFont, customFonts } from '../nodes/CustomFont.js';
import { Organization } from '../nodes/Organization.js';

const CustomFontFaceInput = builder.inputType('CustomFontFaceInput', {
  description: 'One weight of a new font and the storage key of its file.',
  fields: (t) => ({
    weight: t.int({ required: true }),
    storageKey: t.string({ required: true, description: 'Path of the uploaded file in storage.' }),
  }),
});

const CustomFontFaceChangeInput = builder.inputType('CustomFontFaceChangeInput', {
  description: 'Sets the file of a weight, or removes the weight with `storageKey: null` (required, may be null).',
  fields: (t) => ({
    weight: t.int({ required: true }),
    storageKey: t.string(),
  }),
});

builder.relayMutationField(
  'createCustomFont',
  {
    inputFields: (t) => ({
      organizationId: t.string({ required: true }),
      fontFamily: t.string({ required: true }),
      fontFaces: t.field({
        type: [CustomFontFaceInput],
        required: true,
        description: `At least one face; weight ${REQUIRED_FONT_WEIGHT} is required.`,
      }),
    }),
  },
  {
    description: 'Creates a custom font (`PUT /orgs/{organizationId}/fonts`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, ['organizationId']);
      checkInput(orgSettingsBodies['font.create'], body);
      return { customFont: await customFonts.save(ctx, 'PUT', input.organizationId, body) };
    },
  },
  {
    outputFields: (t) => ({
      customFont: t.field({ type: CustomFont, nullable: true, resolve: (p) => p.customFont }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.customFont.organizationId }),
    }),
  },
);

builder.relayMutationField(
  'updateCustomFont',
  {
    inputFields: (t) => ({
      organizationId: t.string({ required: true }),
      fontId: t.string({ required: true }),
      fontFamily: t.string(),
      fontFaces: t.field({ type: [CustomFontFaceChangeInput], description: `Changes by weight; weight ${REQUIRED_FONT_WEIGHT} must stay.` }),
    }),
  },
  {
    description: 'Updates a custom font (`POST /orgs/{organizationId}/fonts/{fontId}`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, ['organizationId', 'fontId']);
      checkInput(orgSettingsBodies['font.update'], body);
      return { customFont: await customFonts.save(ctx, 'POST', input.organizationId, body, input.fontId) };
    },
  },
  {
    outputFields: (t) => ({
      customFont: t.field({ type: CustomFont, nullable: true, resolve: (p) => p.customFont }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.customFont.organizationId }),
    }),
  },
);

builder.relayMutationField(
  'deleteCustomFont',
  { inputFields: (t) => ({ organizationId: t.string({ required: true }), fontId: t.string({ required: true }) }) },
  {
    description: 'Deletes a custom font (`DELETE /orgs/{organizationId}/fonts/{fontId}`).',
    resolve: async (_root, { input }, ctx) => {
      await customFonts.remove(ctx, input.organizationId, input.fontId);
      return { deletedId: globalId('CustomFont', input.organizationId, input.fontId), organizationId: input.organizationId };
    },
  },
  {
    outputFields: (t) => ({
      deletedId: t.id({ resolve: (p) => p.deletedId }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.organizationId }),
    }),
  },
);
