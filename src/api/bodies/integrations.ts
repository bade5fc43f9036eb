/**
 * Request-body rules of the seed's Integrations section (publish), declared once: the embedded
 * upstream checks requests with them, the gateway checks mutation inputs with them.
 */
import { INTEGRATION_CATEGORIES, INTEGRATION_TARGETS, INTEGRATION_VISIBILITIES, limits } from '../rules.js';
import { fields, required, rule, type Fields, type Rule } from '../validate.js';

/** Scopes an integration may ask for (official `IntegrationScope`; the seed shows only a sample). */
export const INTEGRATION_SCOPES = [
  'space:content:read',
  'space:content:write',
  'space:metadata:read',
  'space:metadata:write',
  'space:git:sync',
  'page:feedback:read',
  'site:metadata:read',
  'site:views:read',
  'site:script:inject',
  'site:script:cookies',
  'site:visitor:auth',
  'site:visitor:claims',
  'site:adaptive:read',
  'site:adaptive:write',
  'conversations:ingest',
  'openapi:read',
  'openapi:write',
] as const;

export const INTEGRATION_PROPERTY_TYPES = ['string', 'number', 'boolean', 'button'] as const;
export const PREVIEW_IMAGES_MAX = 3;
export const EXTERNAL_LINKS_MAX = 5;
export const SECRETS_MAX = 20;

const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;

const str = (max?: number, min?: number): Extract<Rule, { kind: 'string' }> => ({
  kind: 'string',
  ...(min !== undefined ? { min } : {}),
  ...(max !== undefined ? { max } : {}),
});
const strings = rule({ kind: 'array', of: { kind: 'string' } });
const base64 = rule({ kind: 'string', pattern: BASE64_PATTERN });
const url = rule({ kind: 'string', format: 'uri', max: 2048 });
const enumArray = <const V extends readonly string[]>(values: V) => rule({ kind: 'array', of: { kind: 'enum', values } });

/** The fields a block and a content source share: an id, a title, a description and an icon. */
const componentFields = fields({
  id: required(str()),
  title: required(str(40, 2)),
  description: str(150),
  icon: str(),
});

const block = rule({
  kind: 'object',
  fields: {
    ...componentFields,
    urlUnfurl: strings,
    markdown: { kind: 'object', fields: { codeblock: required(str()), body: required(str()) } },
  },
});

const contentSource = rule({
  kind: 'object',
  fields: {
    ...componentFields,
    configuration: required({ kind: 'object', fields: { componentId: required(str()) } }),
  },
});

const configurationProperty = rule({
  kind: 'object',
  fields: {
    title: str(50, 2),
    description: str(100),
    type: required({ kind: 'enum', values: INTEGRATION_PROPERTY_TYPES }),
    default: { kind: 'any' },
    completion_url: str(),
    enum: strings,
    callback_url: str(),
    button_text: str(),
  },
});

/** One configuration: a schema `{properties, required}` or a ContentKit component `{componentId}`. */
const configuration = rule({
  kind: 'object',
  fields: { properties: { kind: 'map', of: configurationProperty }, required: strings, componentId: str() },
  refine: (c: { properties?: object; required?: string[]; componentId?: string }) => {
    if ((c.properties === undefined) === (c.componentId === undefined)) return 'must have exactly one of properties, componentId';
    const unknown = (c.required ?? []).find((name) => !Object.hasOwn(c.properties ?? {}, name));
    return unknown === undefined ? undefined : `required names ${unknown}, which is not among properties`;
  },
});

/** A policy string, or an object of directive strings (official `IntegrationContentSecurityPolicy`). */
const contentSecurityPolicy = rule({
  kind: 'any',
  refine: (v: unknown) =>
    typeof v === 'string' || (typeof v === 'object' && !Array.isArray(v) && Object.values(v as object).every((d) => typeof d === 'string'))
      ? undefined
      : 'must be a string or an object of directive strings',
});

export const integrationBodies = {
  'integration.publish': {
    icon: base64,
    title: required(limits.integrationTitle),
    description: required(limits.integrationDescription),
    summary: limits.integrationSummary,
    previewImages: { kind: 'array', of: base64, max: PREVIEW_IMAGES_MAX },
    visibility: { kind: 'enum', values: INTEGRATION_VISIBILITIES },
    target: { kind: 'enum', values: INTEGRATION_TARGETS },
    scopes: required(enumArray(INTEGRATION_SCOPES)),
    categories: enumArray(INTEGRATION_CATEGORIES),
    blocks: { kind: 'array', of: block },
    contentSources: { kind: 'array', of: contentSource },
    externalLinks: {
      kind: 'array',
      of: { kind: 'object', fields: { url: required(url), label: required(str()) } },
      max: EXTERNAL_LINKS_MAX,
    },
    configurations: {
      kind: 'object',
      fields: { account: configuration, space: configuration, site: configuration },
    },
    script: required(str()),
    organization: required(str()),
    secrets: {
      kind: 'map',
      of: { kind: 'string' },
      refine: (s: object) => (Object.keys(s).length > SECRETS_MAX ? `must have at most ${SECRETS_MAX} entries` : undefined),
    },
    contentSecurityPolicy,
  },
} satisfies Record<string, Fields>;

export type IntegrationBodyName = keyof typeof integrationBodies;
