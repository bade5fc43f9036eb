/**
 * Who may see and do what. Organization roles come from `members.role` (null for guests);
 * content roles are the strongest of the organization role capped by the content's
 * `defaultLevel`, and of explicit grants to the user or one of their teams on the content or
 * any collection above it. Organization admins are admins of all its content.
 */
import { atLeast, strongest, weakest, type Role } from '../api/roles.js';
import type { Db } from './db/index.js';
import { forbidden, notFound } from './errors.js';

export interface OrgMembership {
  role: Role | null;
  disabled: boolean;
}

export function orgMembership(db: Db, organizationId: string, userId: string | undefined): OrgMembership | null {
  if (!userId) return null;
  const row = db.prepare('SELECT role, disabled FROM members WHERE organization_id = ? AND user_id = ?').get(organizationId, userId) as
    { role: Role | null; disabled: number } | undefined;
  if (!row || row.disabled) return null;
  return { role: row.role, disabled: Boolean(row.disabled) };
}

export interface ContentTarget {
  type: 'space' | 'collection';
  id: string;
  organization_id: string;
  parent_id: string | null;
  default_level: Role;
}

/**
 * The caller's role on a space or a collection (null: no access through membership or grants).
 * Only active members (guests included) hold roles: the grants of a disabled member, or of a
 * user who is not a member, open nothing.
 */
export function contentRole(db: Db, target: ContentTarget, userId: string | undefined): Role | null {
  return contentRoles(db, userId)(target);
}

/**
 * contentRole for the rows of a list (and, with one row, contentRole itself): the user's
 * memberships, their grants (their own and their teams') and the collections above are read once,
 * not per row. A list computed the role with four queries per row: with 20,000 spaces (a space is
 * duplicated in a millisecond), one member's spaces (`GET …/members/{userId}/spaces`) held the
 * event loop, the gateway's under `npm start`, for 1.9 s, and the members list 0.6 s. Made for one
 * request: a grant written after it is not seen.
 */
export function contentRoles(db: Db, userId: string | undefined): (target: ContentTarget) => Role | null {
  if (!userId) return () => null;
  const members = new Map<string, OrgMembership | null>();
  const parents = new Map<string, string | null>();
  let grants: Map<string, Role> | undefined;
  const granted = (type: string, id: string) => {
    if (!grants) {
      grants = new Map();
      const rows = db
        .prepare(
          `SELECT target_type, target_id, role FROM content_permissions WHERE
             (principal_type = 'user' AND principal_id = ?) OR
             (principal_type = 'team' AND principal_id IN (SELECT team_id FROM team_members WHERE user_id = ?))`,
        )
        .iterate(userId, userId) as IterableIterator<{ target_type: string; target_id: string; role: Role }>;
      for (const { target_type, target_id, role } of rows) {
        const key = `${target_type}:${target_id}`;
        grants.set(key, strongest(grants.get(key), role)!);
      }
    }
    return grants.get(`${type}:${id}`);
  };
  const parentOf = (collectionId: string) => {
    if (!parents.has(collectionId)) {
      const row = db.prepare('SELECT parent_id FROM collections WHERE id = ?').get(collectionId) as
        { parent_id: string | null } | undefined;
      parents.set(collectionId, row?.parent_id ?? null);
    }
    return parents.get(collectionId)!;
  };
  return (target) => {
    if (!members.has(target.organization_id)) members.set(target.organization_id, orgMembership(db, target.organization_id, userId));
    const member = members.get(target.organization_id);
    if (!member) return null;
    if (member.role === 'admin') return 'admin';
    const base = member.role ? weakest(member.role, target.default_level) : null;
    let explicit = granted(target.type, target.id) ?? null;
    const seen = new Set<string>();
    for (let parent = target.parent_id; parent && !seen.has(parent); parent = parentOf(parent)) {
      seen.add(parent);
      explicit = strongest(explicit, granted('collection', parent));
    }
    return strongest(base, explicit);
  };
}

/**
 * SQL (with its parameters) that keeps, of the `spaces` rows of an organization, those on which
 * the user holds a role when it can only come from grants: for a member without an organization
 * role (a guest), the spaces granted to them or one of their teams, or in a collection at or below
 * a granted one; for anyone who is not a member, none. Null when the user's organization role
 * gives them a role on every space. Lists still check each row they keep; without this, a guest's
 * list read every space of the organization (300,000 under the database cap: about a second of
 * the event loop, the gateway's under `npm start`, per request).
 */
export function grantedSpacesFilter(db: Db, organizationId: string, userId: string | undefined): { sql: string; params: unknown[] } | null {
  const member = orgMembership(db, organizationId, userId);
  if (member?.role) return null;
  if (!member) return { sql: '0', params: [] };
  const granted = (type: string) =>
    `SELECT target_id FROM content_permissions WHERE target_type = '${type}' AND (
       (principal_type = 'user' AND principal_id = ?) OR
       (principal_type = 'team' AND principal_id IN (SELECT team_id FROM team_members WHERE user_id = ?)))`;
  return {
    sql: `(id IN (${granted('space')}) OR parent_id IN (
      WITH RECURSIVE below(id) AS (${granted('collection')} UNION SELECT c.id FROM collections c JOIN below ON c.parent_id = below.id)
      SELECT id FROM below))`,
    params: [userId, userId, userId, userId],
  };
}

/**
 * Checks a role: `null` (no access at all) is 404, so callers cannot probe what they cannot see;
 * a role below `min` is 403.
 */
export function requireRole(role: Role | null, min: Role, what: string): Role {
  if (!role) throw notFound(what);
  if (!atLeast(role, min)) throw forbidden(`Your role (${role}) does not allow this; ${min} is required`);
  return role;
}

export interface OrgRow {
  id: string;
  title: string;
  hostname: string;
  default_role: Role | null;
  email_domains: string;
  invite_links: number;
  sso: number;
  created_at: string;
}

/** The organization, or undefined (whoever asks: see requireOrg for a caller's access). */
export const findOrg = (db: Db, organizationId: string) =>
  db.prepare('SELECT * FROM organizations WHERE id = ?').get(organizationId) as OrgRow | undefined;

/**
 * The organization, for a caller who is a member; `min` is the organization role required
 * ('member' accepts guests too). Non-members get 404.
 */
export function requireOrg(db: Db, organizationId: string, userId: string | undefined, min: Role | 'member' = 'member') {
  const org = findOrg(db, organizationId);
  const member = org ? orgMembership(db, org.id, userId) : null;
  if (!org || !member) throw notFound('Organization');
  if (min !== 'member' && !atLeast(member.role, min))
    throw forbidden(`Your organization role (${member.role ?? 'guest'}) does not allow this; ${min} is required`);
  return { org, member };
}

/** Organization settings (OpenAPI specs, translation settings, fonts) are written with this role or above. */
export const ORG_SETTINGS_WRITE_ROLE: Role = 'create';

/**
 * Access to an organization's settings: members with a role read them (guests: 403, others: 404);
 * `write` requires ORG_SETTINGS_WRITE_ROLE. `canEdit` is the `permissions.edit` flag.
 */
export function requireOrgSettings(db: Db, organizationId: string, userId: string | undefined, write = false) {
  const { org, member } = requireOrg(db, organizationId, userId, write ? ORG_SETTINGS_WRITE_ROLE : 'read');
  return { org, canEdit: atLeast(member.role, ORG_SETTINGS_WRITE_ROLE) };
}
