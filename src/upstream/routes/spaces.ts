/**
 * Spaces: the Space shape and who may see it, the space lifecycle (delete → restore within
 * 7 days → removed for good), duplicate, move, transfer and the links of the current revision.
 *
 * Roles per operation: read for GET, links and (with create in the organization or the parent
 * collection) duplicate; edit for any PATCH (`title`/`emoji`, or nothing); admin for PATCH `defaultLevel`/
 * `editMode` (they change who may do what), delete, restore, move and transfer.
 */
import { LINK_STATUSES } from '../../api/rules.js';
import { requireOrg, requireRole } from '../access.js';
import { linkStats } from '../content/links.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { placeIn, requireCreateIn, transferTarget } from '../domain/collections.js';
import {
  createSpaceFor,
  duplicateSpace,
  isRevisionOf,
  loadSpace,
  moveSpace,
  purgeExpiredSpaces,
  restoreSpace,
  softDeleteSpace,
  toSpace,
  transferSpace,
  updateSpaceSettings,
  visibleSpaces,
} from '../domain/spaces.js';
import { badRequest, conflict } from '../errors.js';
import { arrayPage, paginate, paginateArray } from '../pagination.js';
import { created, type Router } from '../router.js';

/** Any PATCH (even `{}`) needs edit; `defaultLevel`/`editMode` need admin. */
function updateSpace(ctx: RequestContext) {
  const { row, role } = loadSpace(ctx, ctx.params.spaceId, 'edit');
  const body = ctx.body('space.update');
  if (body.defaultLevel !== undefined || body.editMode !== undefined) requireRole(role, 'admin', 'Space');
  return toSpace(ctx, updateSpaceSettings(ctx.db, row, body, ctx.now()));
}

function duplicate(ctx: RequestContext) {
  const { row } = loadSpace(ctx, ctx.params.spaceId, 'read');
  requireCreateIn(ctx, row.organization_id, row.parent_id, 'parent');
  return created(ctx, toSpace(ctx, duplicateSpace(ctx, row)));
}

function move(ctx: RequestContext) {
  const { row } = loadSpace(ctx, ctx.params.spaceId, 'admin');
  const to = placeIn(ctx, row, ctx.body('space.move'));
  return toSpace(ctx, moveSpace(ctx.db, row, to, ctx.now()));
}

function transfer(ctx: RequestContext) {
  const { row } = loadSpace(ctx, ctx.params.spaceId, 'admin');
  const organizationId = transferTarget(ctx, row.organization_id, ctx.body('space.transfer').organization);
  return toSpace(ctx, transferSpace(ctx.db, row, organizationId, ctx.now()));
}

/** Links of the space's current revision; later pages keep to the revision of the first (revisions never change). */
function listLinks(ctx: RequestContext) {
  const { row } = loadSpace(ctx, ctx.params.spaceId, 'read');
  const status = ctx.query.enum('status', LINK_STATUSES);
  const revision = arrayPage(ctx)?.version ?? row.revision_id;
  if (!isRevisionOf(ctx.db, revision, row.id)) throw badRequest('page: is not a valid page token');
  const { links, stats } = linkStats(ctx.db, revision, row.id, ctx.services.origin());
  return paginateArray(
    ctx,
    links.filter((l) => !status || l.status === status),
    { stats },
    revision,
  );
}

function createSpace(ctx: RequestContext) {
  const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.caller?.id);
  // `private` is deprecated (private spaces are no longer supported): accepted and ignored.
  const body = ctx.body('space.create', { optional: true });
  const parentId: string | null = body.parent ?? null;
  requireCreateIn(ctx, org.id, parentId, 'parent');
  return created(ctx, toSpace(ctx, createSpaceFor(ctx, org.id, { parentId, title: body.title, emoji: body.emoji })));
}

export function register(router: Router, _services: UpstreamServices) {
  router.get(
    '/spaces/{spaceId}',
    (ctx) => {
      const shareKey = ctx.query.string('shareKey');
      const { row, role } = loadSpace(ctx, ctx.params.spaceId, 'read', { shareKey, deleted: true });
      return toSpace(ctx, row, role);
    },
    { anonymous: true },
  );

  router.patch('/spaces/{spaceId}', updateSpace);

  /** Soft delete: `deletedAt` is set; the space can be restored for 7 days. */
  router.delete('/spaces/{spaceId}', (ctx) => {
    softDeleteSpace(ctx.db, loadSpace(ctx, ctx.params.spaceId, 'admin').row.id, ctx.now());
    return undefined;
  });

  router.post('/spaces/{spaceId}/restore', (ctx) => {
    const { row } = loadSpace(ctx, ctx.params.spaceId, 'admin', { deleted: true });
    if (!row.deleted_at) throw conflict('The space is not deleted');
    return toSpace(ctx, restoreSpace(ctx.db, row.id, ctx.now()));
  });

  router.post('/spaces/{spaceId}/duplicate', duplicate);
  router.post('/spaces/{spaceId}/move', move);
  router.post('/spaces/{spaceId}/transfer', transfer);
  router.get('/spaces/{spaceId}/links', listLinks);

  router.get('/orgs/{organizationId}/spaces', (ctx) => {
    const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.caller?.id);
    purgeExpiredSpaces(ctx, org.id);
    return paginate(ctx, visibleSpaces(ctx, 'organization_id', org.id));
  });

  router.post('/orgs/{organizationId}/spaces', createSpace);
}
