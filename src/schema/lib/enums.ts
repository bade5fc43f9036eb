/**
 * GraphQL enums derived from the REST enums of src/api/rules.ts: SCREAMING_SNAKE_CASE names whose
 * internal values are the REST strings (`SHARE_LINK` ↔ `share-link`).
 */
import { MEMBER_ROLE_FILTERS, SAML_PROVIDER_STATUSES, TEAM_MEMBER_ROLES } from '../../api/bodies/organizations.js';
import { TRANSLATION_LANGUAGES } from '../../api/bodies/orgSettings.js';
import {
  PUBLISHING_AUTH_BACKENDS,
  REDIRECT_DESTINATION_KINDS,
  SITE_SECTION_POINTER_TYPES,
  SITE_VISIBILITIES,
} from '../../api/bodies/sites.js';
import { ROLES } from '../../api/roles.js';
import * as rules from '../../api/rules.js';
import { builder } from '../builder.js';

export const screamingSnake = (v: string) =>
  v
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^a-zA-Z0-9]+/g, '_')
    .toUpperCase();

/** Every REST enum by its set of values, so a rule's enum finds its GraphQL type (src/schema/lib/resource.ts). */
const byValues = new Map<string, ReturnType<typeof restEnum>>();
const valuesKey = (values: readonly string[]) => [...values].sort().join('|');

/** The GraphQL enum of a rule's values (declared below with `restEnum`). */
export function enumOfValues(values: readonly string[]): ReturnType<typeof restEnum> {
  const type = byValues.get(valuesKey(values));
  if (!type) throw new Error(`no GraphQL enum declared for the REST values ${values.join(', ')}`);
  return type;
}

export function restEnum<const T extends string>(name: string, values: readonly T[], description?: string) {
  const type = builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((v) => [screamingSnake(v), { value: v, description: `REST \`${v}\`` }])) as Record<
      string,
      { value: T }
    >,
  });
  if (!byValues.has(valuesKey(values))) byValues.set(valuesKey(values), type);
  return type;
}

export const Role = restEnum('Role', [...ROLES].reverse(), 'A role on an organization or on content, strongest first.');
export const ContentFormat = restEnum('ContentFormat', rules.CONTENT_FORMATS, 'Output format of content bodies.');
export const SpaceVisibility = restEnum('SpaceVisibility', rules.SPACE_VISIBILITIES, 'Who can see a space (REST `visibility`).');
export const EditMode = restEnum(
  'EditMode',
  rules.EDIT_MODES,
  'Whether users edit a space directly (LIVE) or all edits are locked (LOCKED).',
);
export const ChangeRequestStatus = restEnum(
  'ChangeRequestStatus',
  rules.CHANGE_REQUEST_STATUSES,
  'Status of a change request; only mergeChangeRequest makes it MERGED.',
);
export const CommentStatusFilter = restEnum(
  'CommentStatusFilter',
  rules.COMMENT_STATUSES,
  'Which comments a list shows, by status (REST `status` filter, default ALL).',
);
export const CommentStatus = restEnum(
  'CommentStatus',
  rules.COMMENT_STATUSES.filter((s): s is 'open' | 'resolved' => s !== 'all'),
  'Status of a comment.',
);
export const SortOrder = restEnum('SortOrder', rules.ORDERS, 'Order of a list (REST `order`).');
export const LinkStatus = restEnum(
  'LinkStatus',
  rules.LINK_STATUSES,
  'Status of a link in the content: OK, BROKEN (target missing in the revision) or IN_APP (internal app link).',
);
export const MemberSort = restEnum('MemberSort', rules.MEMBER_SORTS, 'What organization members are sorted by (REST `sort`).');
export const OpenApiProcessingState = restEnum(
  'OpenApiProcessingState',
  rules.OPENAPI_PROCESSING_STATES,
  'Processing state of an OpenAPI spec: PENDING, then PROGRESS, then COMPLETE.',
);
export const OpenApiProcessErrorCode = restEnum(
  'OpenApiProcessErrorCode',
  rules.OPENAPI_ERROR_CODES,
  'Why the last processing of an OpenAPI spec failed.',
);
export const IntegrationTarget = restEnum(
  'IntegrationTarget',
  rules.INTEGRATION_TARGETS,
  'Where an integration can be installed (ALL: every target).',
);
export const IntegrationVisibility = restEnum('IntegrationVisibility', rules.INTEGRATION_VISIBILITIES, 'Who can see an integration.');
export const IntegrationCategory = restEnum('IntegrationCategory', rules.INTEGRATION_CATEGORIES, 'A category of integrations.');
export const TranslationLanguage = restEnum('TranslationLanguage', TRANSLATION_LANGUAGES, 'A language of translation settings.');
export const FontFormat = restEnum('FontFormat', ['woff2', 'woff'], 'Format of a font file.');
export const IntegrationInstallationStatus = restEnum(
  'IntegrationInstallationStatus',
  ['active', 'pending', 'paused'],
  'Status of an integration installation.',
);
export const IntegrationInstallationSelection = restEnum(
  'IntegrationInstallationSelection',
  ['all', 'selected'],
  'Whether an installation covers all spaces (or sites) or a selection.',
);
export const MemberRoleFilter = restEnum(
  'MemberRoleFilter',
  MEMBER_ROLE_FILTERS,
  'A role of organization members, or GUEST for members without one.',
);
export const TeamMemberRole = restEnum('TeamMemberRole', TEAM_MEMBER_ROLES, 'The role of a member in a team: OWNER may manage it.');
export const SamlProviderStatus = restEnum(
  'SamlProviderStatus',
  SAML_PROVIDER_STATUSES,
  'Whether a SAML provider is set up (ACTIVE) or still missing settings (PENDING).',
);
export const SiteVisibility = restEnum('SiteVisibility', SITE_VISIBILITIES, 'Who can see a published site.');
/** Official SiteType values (the REST API of this project serves `basic` sites). */
export const SiteType = restEnum(
  'SiteType',
  ['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium'],
  'The plan type of a site.',
);
export const PublishingAuthBackend = restEnum('PublishingAuthBackend', PUBLISHING_AUTH_BACKENDS, 'Backend of site visitor authentication.');
/**
 * Every kind of the official SiteRedirectDestination: a redirect is written to a section (the
 * seed's kind, REDIRECT_DESTINATION_KINDS), but the hosted API answers the others too, and one that
 * the enum could not represent failed the whole list of redirects.
 */
export const SiteRedirectDestinationKind = restEnum(
  'SiteRedirectDestinationKind',
  [...REDIRECT_DESTINATION_KINDS, 'site-space', 'site-page', 'external'],
  'The kind of a redirect destination.',
);
export const SiteSectionPointerType = restEnum('SiteSectionPointerType', SITE_SECTION_POINTER_TYPES, 'What a move position points at.');
export const ContentPointerType = restEnum(
  'ContentPointerType',
  ['space', 'collection'],
  'The type of a sibling in the content tree (a move position).',
);
