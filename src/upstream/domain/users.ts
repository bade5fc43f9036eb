/** Users: the seed's User shape, and who may see whom. */
import type { RequestContext, UserRow } from '../context.js';
import { notFound } from '../errors.js';

/** The seed's User shape. */
export function toUser(ctx: RequestContext, row: UserRow) {
  return {
    object: 'user' as const,
    id: row.id,
    displayName: row.display_name,
    email: row.email,
    ...(row.photo_url ? { photoURL: row.photo_url } : {}),
    urls: { location: `${ctx.apiBase}/users/${row.id}` },
  };
}

export type User = ReturnType<typeof toUser>;

export function getUserRow(ctx: RequestContext, userId: string): UserRow | undefined {
  return ctx.db.prepare('SELECT * FROM users WHERE id = ?').get(userId) as UserRow | undefined;
}

/** A user serialized by id (for `createdBy`, `postedBy`, …). */
export function userById(ctx: RequestContext, userId: string): User {
  const row = getUserRow(ctx, userId);
  if (!row) throw notFound('User');
  return toUser(ctx, row);
}

/** Users visible to the caller: themselves and anyone sharing an organization with them. */
export function canSeeUser(ctx: RequestContext, userId: string): boolean {
  const me = ctx.user().id;
  if (me === userId) return true;
  return Boolean(
    ctx.db
      .prepare(
        `SELECT 1 FROM members a JOIN members b ON a.organization_id = b.organization_id
         WHERE a.user_id = ? AND b.user_id = ? AND a.disabled = 0 LIMIT 1`,
      )
      .get(me, userId),
  );
}
