import type { CustomizationFontDefinition as RestCustomFont, FontFace as RestFontFace, FontSource as RestFontSource } from '@gitbook/api';
import { builder } from '../builder.js';
import { FontFormat } from '../lib/enums.js';
import { orNull, permissionsType } from '../lib/fields.js';
import { edge, resourceNode } from '../lib/resource.js';

/** Custom fonts of an organization (`/orgs/{organizationId}/fonts/{fontId}`). */
declare module '../lib/resource.js' {
  interface ResourceShapes {
    CustomFont: RestCustomFont & { organizationId: string };
  }
}

export const CustomFont = resourceNode('CustomFont');

const FontSource = builder.objectRef<RestFontSource>('FontSource').implement({
  description: 'A font file of a font face.',
  fields: (t) => ({
    url: t.exposeString('url'),
    format: t.field({ type: FontFormat, nullable: true, resolve: (s) => orNull(s.format) }),
  }),
});

const FontFace = builder.objectRef<RestFontFace>('FontFace').implement({
  description: 'One weight of a font and its files.',
  fields: (t) => ({ weight: t.exposeInt('weight'), sources: t.field({ type: [FontSource], resolve: (f) => f.sources }) }),
});

const CustomFontPermissions = permissionsType('CustomFontPermissions', 'with the font', ['edit']);

CustomFont.implement({
  description: 'A custom font uploaded to an organization.',
  fields: (t) => ({
    custom: t.exposeBoolean('custom', { description: 'False when the font is provided by the platform.' }),
    fontFamily: t.exposeString('fontFamily'),
    fontFaces: t.field({ type: [FontFace], resolve: (f) => f.fontFaces }),
    permissions: t.field({ type: CustomFontPermissions, resolve: (f) => f.permissions }),
    organization: edge(t, 'Organization', (f) => [f.organizationId]),
  }),
});
