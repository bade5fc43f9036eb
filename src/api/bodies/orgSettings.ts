/**
 * Request-body rules of the seed's organization settings (OpenAPI specs, translation settings,
 * custom fonts), declared once: the embedded upstream checks requests with them, the gateway
 * checks mutation inputs with them before any REST call.
 */
import { limits } from '../rules.js';
import { required, rule, type Fields } from '../validate.js';

/** Language codes of translation settings (official `TranslationLanguage`; the seed shows `en`). */
export const TRANSLATION_LANGUAGES = [
  'en',
  'fr',
  'de',
  'es',
  'it',
  'pt',
  'pt-br',
  'ru',
  'ja',
  'zh',
  'zh-tw',
  'yue',
  'ko',
  'ar',
  'hi',
  'nl',
  'pl',
  'tr',
  'sv',
  'no',
  'da',
  'fi',
  'el',
  'cs',
  'hu',
  'ro',
  'th',
  'vi',
  'id',
  'ms',
  'he',
  'uk',
  'sk',
  'bg',
  'hr',
  'lt',
  'lv',
  'et',
  'sl',
] as const;
export type TranslationLanguage = (typeof TRANSLATION_LANGUAGES)[number];
export const DEFAULT_TRANSLATION_LANGUAGES: TranslationLanguage[] = ['en'];

/** The weight every custom font must keep (regular). */
export const REQUIRED_FONT_WEIGHT = 400;

/** `source` of an OpenAPI spec: exactly one of `{url}` and `{text}` (official field names). */
const openApiSource = rule({
  kind: 'object',
  fields: { url: limits.openApiSourceURL, text: { kind: 'string', min: 1 } },
  refine: (source: { url?: string; text?: string }) =>
    (source.url === undefined) === (source.text === undefined) ? 'must have exactly one of url, text' : undefined,
});

const languages = rule({
  kind: 'array',
  of: { kind: 'enum', values: TRANSLATION_LANGUAGES },
  min: 1,
  refine: (codes: string[]) => (new Set(codes).size < codes.length ? 'must not repeat a language' : undefined),
});

const fontWeight = rule({ kind: 'number', int: true, min: 1, max: 1000 });
const storageKey = rule({ kind: 'string', min: 1, max: 512 });

const uniqueWeights = (faces: Array<{ weight: number }>) =>
  new Set(faces.map((f) => f.weight)).size < faces.length ? 'must not repeat a weight' : undefined;

/** Faces of a new font: at least one, weights unique, weight 400 among them. */
const newFontFaces = rule({
  kind: 'array',
  of: { kind: 'object', fields: { weight: required(fontWeight), storageKey: required(storageKey) } },
  min: 1,
  refine: (faces: Array<{ weight: number }>) =>
    uniqueWeights(faces) ??
    (faces.some((f) => f.weight === REQUIRED_FONT_WEIGHT) ? undefined : `must include a face of weight ${REQUIRED_FONT_WEIGHT}`),
});

/** Faces of a font update: a null storageKey removes that weight (that 400 stays is checked on the result). */
const fontFaceChanges = rule({
  kind: 'array',
  of: {
    kind: 'object',
    fields: { weight: required(fontWeight), storageKey: required({ ...storageKey, nullable: true }) },
  },
  refine: uniqueWeights,
});

/** Keys: `<resource>.<operation>`, as in `bodies` of src/api/rules.ts. */
export const orgSettingsBodies = {
  'openApiSpec.create': { slug: required(limits.openApiSlug), source: required(openApiSource) },
  'openApiSpec.put': { source: required(openApiSource) },
  'translationSettings.create': { title: required(limits.translationTitle), languages },
  'translationSettings.update': { title: required(limits.translationTitle), languages },
  'font.create': { fontFamily: required(limits.fontFamily), fontFaces: required(newFontFaces) },
  'font.update': { fontFamily: limits.fontFamily, fontFaces: fontFaceChanges },
} satisfies Record<string, Fields>;

export type OrgSettingsBodyName = keyof typeof orgSettingsBodies;
