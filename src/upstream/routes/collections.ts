/**
 * Collections, and the content tree they form with spaces. Spaces and collections of an
 * organization share one order (`position`, REAL): "the end" is past everything in the
 * organization, and moving before/after a sibling takes the midpoint between two neighbours.
 */
import { requireOrg } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { badRequest } from '../errors.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import { collectionRole, findCollection, insertCollection, loadCollection, placeIn, requireCreateIn, toCollection, transferCollection, transferTarget, type Collection, type CollectionRow } from '../domain/collections.js';
import { detachSpaces, nestedCollectionIds } from '../domain/contentTree.js';
import { spaceRole, toSpace, type Space, type SpaceRow } from '../domain/spaces.js';

// ---------------------------------------------------------------------------------------------
// Routes

function created(ctx: RequestContext, row: CollectionRow) {
  const body = toCollection(ctx, row);
  ctx.res.setHeader('location', body.urls.location);
  return new Reply(201, body);
}

export function register(router: Router, _services: UpstreamServices) {
  router.get('/collections/{collectionId}', (ctx) => {
    const { row, role } = loadCollection(ctx, ctx.params.collectionId);
    return toCollection(ctx, row, role);
  });

  /** Nested collections are deleted with it; the spaces they held move to the organization root. */
  router.delete('/collections/{collectionId}', (ctx) => {
    const { row } = loadCollection(ctx, ctx.params.collectionId, 'admin');
    const ids = [row.id, ...nestedCollectionIds(ctx.db, row.id)];
    ctx.db.transaction(() => {
      detachSpaces(ctx.db, ids, ctx.now());
      const drop = ctx.db.prepare(`DELETE FROM content_permissions WHERE target_type = 'collection' AND target_id = ?`);
      for (const id of ids) drop.run(id);
      ctx.db.prepare('DELETE FROM collections WHERE id = ?').run(row.id);
    })();
    return undefined;
  });

  router.patch('/collections/{collectionId}', (ctx) => {
    const { row } = loadCollection(ctx, ctx.params.collectionId, 'admin');
    const body = ctx.body('collection.update');
    const next = {
      title: body.title ?? row.title,
      description: body.description ?? row.description,
      default_level: body.defaultLevel ?? row.default_level,
    };
    ctx.db
      .prepare('UPDATE collections SET title = ?, description = ?, default_level = ?, updated_at = ? WHERE id = ?')
      .run(next.title, next.description, next.default_level, ctx.now(), row.id);
    return toCollection(ctx, findCollection(ctx.db, row.id)!);
  });

  router.get('/collections/{collectionId}/spaces', (ctx) => {
    const { row } = loadCollection(ctx, ctx.params.collectionId);
    return paginate<SpaceRow, Space>(ctx, {
      from: 'spaces WHERE parent_id = ? AND deleted_at IS NULL',
      params: [row.id],
      orderBy: ['position', 'id'],
      filter: (space) => spaceRole(ctx, space) !== null,
      map: (space) => toSpace(ctx, space),
    });
  });

  router.post('/collections/{collectionId}/move', (ctx) => {
    const { row } = loadCollection(ctx, ctx.params.collectionId, 'admin');
    const body = ctx.body('collection.move');
    const { parentId, position } = placeIn(ctx, row, body);
    if (parentId === row.id || (parentId && nestedCollectionIds(ctx.db, row.id).includes(parentId)))
      throw badRequest('parent: cannot move a collection into itself or one of its nested collections');
    ctx.db
      .prepare('UPDATE collections SET parent_id = ?, position = ?, updated_at = ? WHERE id = ?')
      .run(parentId, position, ctx.now(), row.id);
    return toCollection(ctx, findCollection(ctx.db, row.id)!);
  });

  router.post('/collections/{collectionId}/transfer', (ctx) => {
    const { row } = loadCollection(ctx, ctx.params.collectionId, 'admin');
    const body = ctx.body('collection.transfer');
    transferCollection(ctx, row, transferTarget(ctx, row.organization_id, body.organization));
    return toCollection(ctx, findCollection(ctx.db, row.id)!);
  });

  router.get('/orgs/{organizationId}/collections', (ctx) => {
    const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.caller?.id);
    const nested = ctx.query.boolean('nested', true);
    return paginate<CollectionRow, Collection>(ctx, {
      from: `collections WHERE organization_id = ?${nested ? '' : ' AND parent_id IS NULL'}`,
      params: [org.id],
      orderBy: ['position', 'id'],
      filter: (row) => collectionRole(ctx, row) !== null,
      map: (row) => toCollection(ctx, row),
    });
  });

  router.post('/orgs/{organizationId}/collections', (ctx) => {
    const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.caller?.id);
    const body = ctx.body('collection.create', { optional: true });
    requireCreateIn(ctx, org.id, body.parent ?? null, 'parent');
    return created(ctx, insertCollection(ctx, org.id, body.parent ?? null, body.title ?? ''));
  });
}
