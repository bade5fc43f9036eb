/**
 * Request-body rules of the seed's organization sections (members, teams, invites, SAML and
 * SSO), declared once: the embedded upstream checks requests with them, the gateway checks
 * mutation inputs with them before any REST call.
 */
import { ROLES } from '../roles.js';
import { limits, roleOrNull } from '../rules.js';
import { required, rule, type Fields } from '../validate.js';

/** `role` query filter of the member list: a Role, or `guest` for members without one. */
export const MEMBER_ROLE_FILTERS = [...ROLES, 'guest'] as const;

/** Roles of a team's members: `owner` may manage the team. */
export const TEAM_MEMBER_ROLES = ['owner', 'member'] as const;

/** A SAML provider is `active` once its identity provider is fully configured, `pending` before. */
export const SAML_PROVIDER_STATUSES = ['active', 'pending'] as const;

/** A plain address check (one `@`, a dot in the domain, no spaces); the seed gives no stricter rule. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

const email = rule({ kind: 'string', pattern: EMAIL_PATTERN });
const ids = rule({ kind: 'array', of: { kind: 'string' } });

const samlProviderFields = {
  label: limits.samlLabel,
  entityID: limits.samlEntityID,
  certificate: limits.samlCertificate,
  ssoURL: limits.samlSsoURL,
  /** A team of the organization; null clears it. */
  defaultTeam: { kind: 'string', nullable: true },
  defaultRole: roleOrNull,
} satisfies Fields;

/** The most people one invite request names. */
export const INVITES_MAX = 1000;

/** Keys: `<resource>.<operation>`, as in `bodies` of src/api/rules.ts. */
export const organizationBodies = {
  'member.update': { role: roleOrNull },
  'team.create': { title: required(limits.teamTitle), members: ids },
  'team.update': { title: required(limits.teamTitle) },
  'invite.create': {
    // One invite row each: 60,000 in a 1 MB body took the REST API's process 0.9 s to write.
    emails: required({ kind: 'array', of: email, min: 1, max: INVITES_MAX }),
    role: roleOrNull,
    sso: { kind: 'boolean' },
  },
  'linkInvite.create': { role: roleOrNull },
  'linkInvite.update': { role: required(roleOrNull) },
  'samlProvider.create': { ...samlProviderFields, label: required(limits.samlLabel) },
  'samlProvider.update': samlProviderFields,
} satisfies Record<string, Fields>;

export type OrganizationBodyName = keyof typeof organizationBodies;
