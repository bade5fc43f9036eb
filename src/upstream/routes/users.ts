import type { UpstreamServices } from '../context.js';
import { notFound } from '../errors.js';
import type { Router } from '../router.js';
import { canSeeUser, getUserRow, toUser } from '../domain/users.js';

export function register(router: Router, _services: UpstreamServices) {
  router.get('/user', (ctx) => toUser(ctx, ctx.user()));

  router.get('/users/{userId}', (ctx) => {
    const row = getUserRow(ctx, ctx.params.userId);
    if (!row || !canSeeUser(ctx, row.id)) throw notFound('User');
    return toUser(ctx, row);
  });
}
