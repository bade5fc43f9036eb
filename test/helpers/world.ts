/**
 * The fixture every upstream test starts from: organization `acme` with one member per role,
 * a guest, a disabled member, an outsider with an organization of their own (`globex`).
 */
import { ROLES, type Role } from '../../src/api/roles.js';
import { addMember, createOrganization, createUser, type NewUser } from '../../src/upstream/bootstrap.js';
import type { Clock } from '../../src/upstream/clock.js';
import type { Db } from '../../src/upstream/db/index.js';

export type WorldUser = Role | 'guest' | 'outsider' | 'disabled';

export interface World {
  orgId: string;
  otherOrgId: string;
  users: Record<WorldUser, NewUser>;
}

export function createWorld(db: Db, clock: Clock): World {
  const orgId = createOrganization(db, clock, { title: 'Acme', hostname: 'acme' });
  const otherOrgId = createOrganization(db, clock, { title: 'Globex', hostname: 'globex' });
  const users = {} as Record<WorldUser, NewUser>;
  for (const role of [...ROLES].reverse()) {
    users[role] = createUser(db, clock, { displayName: `Ada ${role}`, email: `${role}@acme.test` });
    addMember(db, clock, orgId, users[role].id, role, { lastSeenAt: clock.now().toISOString() });
  }
  users.guest = createUser(db, clock, { displayName: 'Gus Guest', email: 'guest@acme.test' });
  addMember(db, clock, orgId, users.guest.id, null);
  users.disabled = createUser(db, clock, { displayName: 'Dis Abled', email: 'disabled@acme.test' });
  addMember(db, clock, orgId, users.disabled.id, 'edit', { disabled: true });
  users.outsider = createUser(db, clock, { displayName: 'Otto Outsider', email: 'otto@globex.test' });
  addMember(db, clock, otherOrgId, users.outsider.id, 'admin');
  // The acme admin also administers globex, so transfers between the two can be tried.
  addMember(db, clock, otherOrgId, users.admin.id, 'admin');
  return { orgId, otherOrgId, users };
}
