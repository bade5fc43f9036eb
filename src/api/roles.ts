/** Roles, weakest first. Shared by the embedded upstream and the gateway. */
export const ROLES = ['read', 'comment', 'review', 'edit', 'create', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function roleRank(role: Role | null | undefined): number {
  return role ? ROLES.indexOf(role) : -1;
}

/** True when `role` is `min` or stronger. */
export function atLeast(role: Role | null | undefined, min: Role): boolean {
  return roleRank(role) >= roleRank(min);
}

/** The stronger of the given roles (null when none is given). */
export function strongest(...roles: Array<Role | null | undefined>): Role | null {
  let best: Role | null = null;
  for (const r of roles) if (r && roleRank(r) > roleRank(best)) best = r;
  return best;
}

/** The weaker of two roles. */
export function weakest(a: Role, b: Role): Role {
  return roleRank(a) <= roleRank(b) ? a : b;
}
