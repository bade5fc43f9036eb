/**
 * Request-body rules of the site sections of the seed (sites, site sections, section groups,
 * redirects, share links, publishing auth), declared once: the embedded upstream checks requests
 * with them, the gateway checks mutation inputs with them before any REST call.
 */
import { limits, REDIRECT_SOURCE_PATTERN } from '../rules.js';
import { acrossFields, nullable, required, rule, type Fields, type Rule } from '../validate.js';

/** Official SiteVisibility enum. */
export const SITE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth'] as const;
/** Official visitor-authentication backends (VisitorAuthCustomBackend, VisitorAuthIntegrationBackend). */
export const PUBLISHING_AUTH_BACKENDS = ['custom', 'integration'] as const;
export const REDIRECT_DESTINATION_KINDS = ['site-section'] as const;
export const SITE_SECTION_POINTER_TYPES = ['site-section'] as const;

/** Official SiteTitle: 2 to 128 characters. */
export const siteTitle = rule({ kind: 'string', min: 2, max: 128 });

const id = rule({ kind: 'string' });
const uri = rule({ kind: 'string', format: 'uri' });

type StringRule = Extract<Rule, { kind: 'string' }>;

/** The shortest title a site section may have (2). */
export const SITE_SECTION_TITLE_MIN = (limits.siteSectionTitle as StringRule).min!;

/** A created section's title: at most 64 characters, and a section title's minimum. */
const siteSectionCreateTitle = rule({ ...(limits.siteSectionCreateTitle as StringRule), min: SITE_SECTION_TITLE_MIN });

/**
 * A redirect source: the seed's pattern and length, without empty segments (`//`), which the
 * seed's pattern lets through but the official SiteRedirectSourcePath (the response field) rejects.
 */
export const redirectSource = rule({
  ...(limits.redirectSource as StringRule),
  pattern: new RegExp(`^(?!.*//)${REDIRECT_SOURCE_PATTERN.source.slice(1)}`),
});

/** `{type: 'site-section', <idField>: string}`: sections point with `siteSection`, groups with `id`. */
const pointer = <I extends 'siteSection' | 'id'>(idField: I) =>
  rule({
    kind: 'object',
    fields: { type: required({ kind: 'enum', values: SITE_SECTION_POINTER_TYPES }), [idField]: required(id) },
  });
const position = <I extends 'siteSection' | 'id'>(idField: I) =>
  rule({
    kind: 'object',
    fields: { before: pointer(idField), after: pointer(idField) },
    refine: (p: { before?: unknown; after?: unknown }) => (p.before && p.after ? 'give either before or after, not both' : undefined),
  });

const redirectDestination = rule({
  kind: 'object',
  fields: { kind: required({ kind: 'enum', values: REDIRECT_DESTINATION_KINDS }), siteSectionId: required(id) },
});

/** Keys: `<resource>.<operation>`, as in `bodies` of src/api/rules.ts. */
export const siteBodies = {
  'site.update': { title: siteTitle, visibility: { kind: 'enum', values: SITE_VISIBILITIES } },
  'sitePublishingAuth.update': {
    backend: required({ kind: 'enum', values: PUBLISHING_AUTH_BACKENDS }),
    fallbackURL: nullable(uri),
    logoutURL: nullable(uri),
  },
  'siteSection.create': { spaceId: required(id), title: siteSectionCreateTitle },
  'siteSection.update': {
    title: limits.siteSectionTitle,
    path: limits.siteSectionPath,
    defaultSiteSpace: id,
    /** Absent keeps the condition, null removes it. */
    condition: nullable(limits.siteSectionCondition),
    icon: nullable(limits.iconName),
    description: nullable(limits.siteSectionDescription),
  },
  'siteSection.move': { position: position('siteSection') },
  'siteSectionGroup.create': {
    title: required(limits.sectionGroupTitle),
    icon: nullable(limits.iconName),
    sections: { kind: 'array', of: id },
  },
  'siteSectionGroup.update': { title: limits.sectionGroupTitle, icon: nullable(limits.iconName) },
  'siteSectionGroup.addSection': { sectionId: required(id) },
  'siteSectionGroup.move': { position: position('id') },
  'siteRedirect.create': { source: required(redirectSource), destination: required(redirectDestination) },
  'siteRedirect.update': { source: redirectSource, destination: redirectDestination },
  'shareLink.create': { name: required(limits.shareLinkName) },
  'shareLink.update': acrossFields({ active: { kind: 'boolean' }, name: limits.shareLinkName }, (b) =>
    b.active === undefined && b.name === undefined ? ['active', 'give active, name or both'] : undefined,
  ),
} satisfies Record<string, Fields>;

export type SiteBodyName = keyof typeof siteBodies;
