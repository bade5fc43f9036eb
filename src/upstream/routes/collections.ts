/** Collections: lookup, settings, delete, move and transfer, the spaces in them, and creating them in an organization. */
import { requireOrg } from '../access.js';
import type { UpstreamServices } from '../context.js';
import {
  deleteCollection,
  insertCollection,
  loadCollection,
  moveCollection,
  placeIn,
  requireCreateIn,
  toCollection,
  transferCollection,
  transferTarget,
  updateCollection,
  visibleCollections,
} from '../domain/collections.js';
import { visibleSpaces } from '../domain/spaces.js';
import { paginate } from '../pagination.js';
import { created, type Router } from '../router.js';

export function register(router: Router, _services: UpstreamServices) {
  router.get('/collections/{collectionId}', (ctx) => {
    const { row, role } = loadCollection(ctx, ctx.params.collectionId);
    return toCollection(ctx, row, role);
  });

  /** Nested collections are deleted with it; the spaces they held move to the organization root. */
  router.delete('/collections/{collectionId}', (ctx) => {
    deleteCollection(ctx.db, loadCollection(ctx, ctx.params.collectionId, 'admin').row, ctx.now());
    return undefined;
  });

  router.patch('/collections/{collectionId}', (ctx) => {
    const { row } = loadCollection(ctx, ctx.params.collectionId, 'admin');
    return toCollection(ctx, updateCollection(ctx.db, row, ctx.body('collection.update'), ctx.now()));
  });

  router.get('/collections/{collectionId}/spaces', (ctx) => {
    const { row } = loadCollection(ctx, ctx.params.collectionId);
    return paginate(ctx, visibleSpaces(ctx, 'parent_id', row.id));
  });

  router.post('/collections/{collectionId}/move', (ctx) => {
    const { row } = loadCollection(ctx, ctx.params.collectionId, 'admin');
    const to = placeIn(ctx, row, ctx.body('collection.move'));
    return toCollection(ctx, moveCollection(ctx.db, row, to, ctx.now()));
  });

  router.post('/collections/{collectionId}/transfer', (ctx) => {
    const { row } = loadCollection(ctx, ctx.params.collectionId, 'admin');
    const organizationId = transferTarget(ctx, row.organization_id, ctx.body('collection.transfer').organization);
    return toCollection(ctx, transferCollection(ctx, row, organizationId));
  });

  router.get('/orgs/{organizationId}/collections', (ctx) => {
    const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.caller?.id);
    return paginate(ctx, visibleCollections(ctx, org.id, ctx.query.boolean('nested', true)));
  });

  router.post('/orgs/{organizationId}/collections', (ctx) => {
    const { org } = requireOrg(ctx.db, ctx.params.organizationId, ctx.caller?.id);
    const body = ctx.body('collection.create', { optional: true });
    requireCreateIn(ctx, org.id, body.parent ?? null, 'parent');
    return created(ctx, toCollection(ctx, insertCollection(ctx, org.id, body.parent ?? null, body.title ?? '')));
  });
}
