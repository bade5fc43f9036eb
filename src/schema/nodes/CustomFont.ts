import type { CustomizationFontDefinition as RestCustomFont, FontFace as RestFontFace, FontSource as RestFontSource } from '@gitbook/api';
import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { FontFormat } from '../lib/enums.js';
import { orNull } from '../lib/fields.js';
import { encodeKeys } from '../lib/node.js';
import { orgScoped } from '../lib/orgScoped.js';
import { Organization } from './Organization.js';

/** Custom fonts of an organization (`/orgs/{organizationId}/fonts/{fontId}`). */
export const customFonts = orgScoped<RestCustomFont>('CustomFont', { segment: 'fonts', key: (f) => f.id });
export const CustomFont = customFonts.ref;

const FontSource = builder.objectRef<RestFontSource>('FontSource').implement({
  description: 'A font file of a font face.',
  fields: (t) => ({
    url: t.exposeString('url'),
    format: t.field({ type: FontFormat, nullable: true, resolve: (s) => orNull(s.format) }),
  }),
});

const FontFace = builder.objectRef<RestFontFace>('FontFace').implement({
  description: 'One weight of a font and its files.',
  fields: (t) => ({
    weight: t.exposeInt('weight'),
    sources: t.field({ type: [FontSource], resolve: (f) => f.sources }),
  }),
});

const CustomFontPermissions = builder.objectRef<RestCustomFont['permissions']>('CustomFontPermissions').implement({
  description: 'What the caller may do with the font (REST `permissions`).',
  fields: (t) => ({
    edit: t.exposeBoolean('edit'),
  }),
});

CustomFont.implement({
  description: 'A custom font uploaded to an organization.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the font.' }),
    custom: t.exposeBoolean('custom', { description: 'False when the font is provided by the platform.' }),
    fontFamily: t.exposeString('fontFamily'),
    fontFaces: t.field({ type: [FontFace], resolve: (f) => f.fontFaces }),
    permissions: t.field({ type: CustomFontPermissions, resolve: (f) => f.permissions }),
    organization: t.field({ type: Organization, nullable: true, resolve: (f) => f.organizationId }),
  }),
});

export const CustomFontConnection = builder.connectionObject(
  { type: CustomFont, name: 'CustomFontConnection' },
  { name: 'CustomFontEdge' },
);

builder.objectField(Organization, 'fonts', (t) =>
  t.field({
    type: CustomFontConnection,
    nullable: true,
    description: 'Custom fonts of the organization (`GET /orgs/{organizationId}/fonts`).',
    args: forwardArgs,
    resolve: (org, args, ctx) => resolveList(ctx, args, customFonts.list(org.id)),
  }),
);

builder.queryFields((t) => ({
  customFont: t.field({
    type: CustomFont,
    nullable: true,
    description: 'A custom font by REST id (`GET /orgs/{organizationId}/fonts/{fontId}`).',
    args: { organizationId: t.arg.string({ required: true }), fontId: t.arg.string({ required: true }) },
    resolve: (_root, { organizationId, fontId }) => encodeKeys([organizationId, fontId]),
  }),
}));
