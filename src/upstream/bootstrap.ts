/**
 * Creating what the REST API cannot: users, their tokens, organizations and memberships.
 * Used by the demo content and by tests; everything else is created through the REST API.
 */
import type { Role } from '../api/roles.js';
import { issueToken } from './auth.js';
import type { Clock } from './clock.js';
import type { Db } from './db/index.js';
import { newId } from './ids.js';

export interface NewUser {
  id: string;
  token: string;
  email: string;
  displayName: string;
}

export function createUser(db: Db, clock: Clock, input: { displayName: string; email: string; photoURL?: string }): NewUser {
  const id = newId();
  const now = clock.now().toISOString();
  db.prepare('INSERT INTO users (id, display_name, email, photo_url, created_at) VALUES (?, ?, ?, ?, ?)').run(
    id,
    input.displayName,
    input.email,
    input.photoURL ?? null,
    now,
  );
  return { id, token: issueToken(db, id, now), email: input.email, displayName: input.displayName };
}

export function createOrganization(
  db: Db,
  clock: Clock,
  input: { title: string; hostname?: string; defaultRole?: Role | null; emailDomains?: string[] },
): string {
  const id = newId();
  const hostname =
    input.hostname ??
    `${input.title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')}-${id.slice(0, 6).toLowerCase()}`;
  db.prepare('INSERT INTO organizations (id, title, hostname, default_role, email_domains, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    id,
    input.title,
    hostname,
    input.defaultRole ?? 'read',
    JSON.stringify(input.emailDomains ?? []),
    clock.now().toISOString(),
  );
  return id;
}

/** Adds (or updates) a membership; `role` null makes a guest. */
export function addMember(
  db: Db,
  clock: Clock,
  organizationId: string,
  userId: string,
  role: Role | null,
  options: { sso?: boolean; disabled?: boolean; lastSeenAt?: string | null } = {},
): void {
  const now = clock.now().toISOString();
  db.prepare(
    `INSERT INTO members (organization_id, user_id, role, disabled, sso, joined_at, last_seen_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role`,
  ).run(organizationId, userId, role, options.disabled ? 1 : 0, options.sso ? 1 : 0, now, options.lastSeenAt ?? null);
}
