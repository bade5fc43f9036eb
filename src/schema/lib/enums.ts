/**
 * GraphQL enums derived from the REST enums of src/api/rules.ts: SCREAMING_SNAKE_CASE names whose
 * internal values are the REST strings (`SHARE_LINK` ↔ `share-link`).
 */
import { ROLES } from '../../api/roles.js';
import * as rules from '../../api/rules.js';
import { builder } from '../builder.js';

export const screamingSnake = (v: string) =>
  v
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^a-zA-Z0-9]+/g, '_')
    .toUpperCase();

export function restEnum<const T extends string>(name: string, values: readonly T[], description?: string) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((v) => [screamingSnake(v), { value: v, description: `REST \`${v}\`` }])) as Record<
      string,
      { value: T }
    >,
  });
}

export const Role = restEnum('Role', [...ROLES].reverse(), 'A role on an organization or on content, strongest first.');
export const ContentFormat = restEnum('ContentFormat', rules.CONTENT_FORMATS, 'Output format of content bodies.');
export const SpaceVisibility = restEnum('SpaceVisibility', rules.SPACE_VISIBILITIES);
export const EditMode = restEnum('EditMode', rules.EDIT_MODES);
export const ChangeRequestStatus = restEnum('ChangeRequestStatus', rules.CHANGE_REQUEST_STATUSES);
export const CommentStatusFilter = restEnum('CommentStatusFilter', rules.COMMENT_STATUSES);
export const SortOrder = restEnum('SortOrder', rules.ORDERS);
export const LinkStatus = restEnum('LinkStatus', rules.LINK_STATUSES);
export const MemberSort = restEnum('MemberSort', rules.MEMBER_SORTS);
export const OpenApiProcessingState = restEnum('OpenApiProcessingState', rules.OPENAPI_PROCESSING_STATES);
export const OpenApiProcessErrorCode = restEnum('OpenApiProcessErrorCode', rules.OPENAPI_ERROR_CODES);
export const IntegrationTarget = restEnum('IntegrationTarget', rules.INTEGRATION_TARGETS);
export const IntegrationVisibility = restEnum('IntegrationVisibility', rules.INTEGRATION_VISIBILITIES);
export const IntegrationCategory = restEnum('IntegrationCategory', rules.INTEGRATION_CATEGORIES);
