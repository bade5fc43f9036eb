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
import { pagesOf, type PageInput } from '../content/revisions.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { badRequest, conflict } from '../errors.js';
import { arrayPage, paginate, paginateArray } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import { placeIn, requireCreateIn, transferTarget } from '../domain/collections.js';
import { endPosition } from '../domain/contentTree.js';
import { dropForeignGrants, grantCreator } from '../domain/grants.js';
import { dropForeignSiteSpaces } from '../domain/siteSpaces.js';
import { copyTitle, insertSpace, loadSpace, purgeExpiredSpaces, spaceById, spaceRole, toSpace, type Space, type SpaceRow } from '../domain/spaces.js';

function created(ctx: RequestContext, row: SpaceRow) {
  const body = toSpace(ctx, row);
  ctx.res.setHeader('location', body.urls.location);
  return new Reply(201, body);
}

/** Any PATCH (even `{}`) needs edit; `defaultLevel`/`editMode` need admin. */
function updateSpace(ctx: RequestContext) {
  const { row, role } = loadSpace(ctx, ctx.params.spaceId, 'edit');
  const body = ctx.body('space.update');
  if (body.defaultLevel !== undefined || body.editMode !== undefined) requireRole(role, 'admin', 'Space');
  ctx.db
    .prepare('UPDATE spaces SET title = ?, emoji = ?, default_level = ?, edit_mode = ?, updated_at = ? WHERE id = ?')
    .run(
      body.title ?? row.title,
      body.emoji ?? row.emoji,
      body.defaultLevel ?? row.default_level,
      body.editMode ?? row.edit_mode,
      ctx.now(),
      row.id,
    );
  return toSpace(ctx, spaceById(ctx.db, row.id));
}

/** A new space beside the original with its title, emoji, settings and current pages (page ids kept, so `page:` links still resolve). */
function duplicateSpace(ctx: RequestContext) {
  const { row } = loadSpace(ctx, ctx.params.spaceId, 'read');
  requireCreateIn(ctx, row.organization_id, row.parent_id, 'parent');
  const pages: PageInput[] = pagesOf(ctx.db, row.revision_id).map((p) => ({
    page_id: p.page_id,
    title: p.title,
    emoji: p.emoji,
    path: p.path,
    markdown: p.markdown,
  }));
  const copy = ctx.db.transaction(() => {
    const inserted = insertSpace(ctx.db, ctx.now(), {
      organizationId: row.organization_id,
      parentId: row.parent_id,
      title: copyTitle(row.title),
      emoji: row.emoji,
      visibility: row.visibility,
      defaultLevel: row.default_level,
      pages,
    });
    ctx.db.prepare('UPDATE spaces SET edit_mode = ? WHERE id = ?').run(row.edit_mode, inserted.id);
    grantCreator(ctx, { type: 'space', id: inserted.id, organization_id: row.organization_id });
    return inserted;
  })();
  return created(ctx, spaceById(ctx.db, copy.id));
}

function moveSpace(ctx: RequestContext) {
  const { row } = loadSpace(ctx, ctx.params.spaceId, 'admin');
  const { parentId, position } = placeIn(ctx, row, ctx.body('space.move'));
  const visibility = !parentId && row.visibility === 'in-collection' ? 'private' : row.visibility;
  ctx.db
    .prepare('UPDATE spaces SET parent_id = ?, position = ?, visibility = ?, updated_at = ? WHERE id = ?')
    .run(parentId, position, visibility, ctx.now(), row.id);
  return toSpace(ctx, spaceById(ctx.db, row.id));
}

/** To the root of another organization; grants that make no sense there, and other organizations' sites publishing it, are dropped. */
function transferSpace(ctx: RequestContext) {
  const { row } = loadSpace(ctx, ctx.params.spaceId, 'admin');
  const organizationId = transferTarget(ctx, row.organization_id, ctx.body('space.transfer').organization);
  ctx.db.transaction(() => {
    ctx.db
      .prepare(
        `UPDATE spaces SET organization_id = ?, parent_id = NULL, position = ?, updated_at = ?,
           visibility = CASE visibility WHEN 'in-collection' THEN 'private' ELSE visibility END
         WHERE id = ?`,
      )
      .run(organizationId, endPosition(ctx.db, organizationId), ctx.now(), row.id);
    dropForeignGrants(ctx.db, organizationId, [{ type: 'space', id: row.id }]);
    dropForeignSiteSpaces(ctx.db, organizationId, [row.id]);
  })();
  return toSpace(ctx, spaceById(ctx.db, row.id));
}

/** Links of the space's current revision; later pages keep to the revision of the first (revisions never change). */
function listLinks(ctx: RequestContext) {
  const { row } = loadSpace(ctx, ctx.params.spaceId, 'read');
  const status = ctx.query.enum('status', LINK_STATUSES);
  const revision = arrayPage(ctx)?.version ?? row.revision_id;
  if (!ctx.db.prepare('SELECT 1 FROM revisions WHERE id = ? AND space_id = ?').get(revision, row.id))
    throw badRequest('page: is not a valid page token');
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
  const row = ctx.db.transaction(() => {
    const inserted = insertSpace(ctx.db, ctx.now(), { organizationId: org.id, parentId, title: body.title, emoji: body.emoji });
    grantCreator(ctx, { type: 'space', id: inserted.id, organization_id: org.id });
    return inserted;
  })();
  return created(ctx, row);
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
    const { row } = loadSpace(ctx, ctx.params.spaceId, 'admin');
    ctx.db.prepare('UPDATE spaces SET deleted_at = ? WHERE id = ?').run(ctx.now(), row.id);
    return undefined;
  });

  router.post('/spaces/{spaceId}/restore', (ctx) => {
    const { row } = loadSpace(ctx, ctx.params.spaceId, 'admin', { deleted: true });
    if (!row.deleted_at) throw conflict('The space is not deleted');
    ctx.db.prepare('UPDATE spaces SET deleted_at = NULL, updated_at = ? WHERE id = ?').run(ctx.now(), row.id);
    return toSpace(ctx, spaceById(ctx.db, row.id));
  });

  router.post('/spaces/{spaceId}/duplicate', duplicateSpace);
  router.post('/spaces/{spaceId}/move', moveSpace);
  router.post('/spaces/{spaceId}/transfer', transferSpace);
  router.get('/spaces/{spaceId}/links', listLinks);

  router.get('/orgs/{organizationId}/spaces', (ctx) => {
    const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.caller?.id);
    purgeExpiredSpaces(ctx, org.id);
    return paginate<SpaceRow, Space>(ctx, {
      from: 'spaces WHERE organization_id = ? AND deleted_at IS NULL',
      params: [org.id],
      orderBy: ['position', 'id'],
      filter: (row) => spaceRole(ctx, row) !== null,
      map: (row) => toSpace(ctx, row),
    });
  });

  router.post('/orgs/{organizationId}/spaces', createSpace);
}
