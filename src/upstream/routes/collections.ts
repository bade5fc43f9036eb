/**
 * Collections, and the content tree they form with spaces. Spaces and collections of an
 * organization share one order (`position`, REAL): "the end" is past everything in the
 * organization, and moving before/after a sibling takes the midpoint between two neighbours.
 */
import { atLeast, type Role } from '../../api/roles.js';
import { contentRole, orgMembership, requireOrg, requireRole } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import type { Db } from '../db/index.js';
import { badRequest, conflict, forbidden, lookupField, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';
import { dropForeignGrants, grantCreator } from './permissions.js';
import { dropForeignSiteSpaces } from './siteSections.js';
import { spaceRole, toSpace, type Space, type SpaceRow } from './spaces.js';

export interface CollectionRow {
  id: string;
  organization_id: string;
  parent_id: string | null;
  title: string;
  description: string | null;
  default_level: Role;
  position: number;
  created_at: string;
  updated_at: string;
}

export function findCollection(db: Db, collectionId: string): CollectionRow | undefined {
  return db.prepare('SELECT * FROM collections WHERE id = ?').get(collectionId) as CollectionRow | undefined;
}

/** The caller's role on a collection (grants on collections above it included). */
export function collectionRole(ctx: RequestContext, row: CollectionRow): Role | null {
  return contentRole(ctx.db, { type: 'collection', ...row }, ctx.caller?.id);
}

/** The collection with the caller's role: 404 when they cannot see it, 403 when below `min`. */
export function loadCollection(ctx: RequestContext, collectionId: string, min: Role = 'read') {
  const row = findCollection(ctx.db, collectionId);
  if (!row) throw notFound('Collection');
  return { row, role: requireRole(collectionRole(ctx, row), min, 'Collection') };
}

/** The seed's Collection shape, with `permissions` computed from the caller's role. */
export function toCollection(ctx: RequestContext, row: CollectionRow, role?: Role | null) {
  const r = role === undefined ? collectionRole(ctx, row) : role;
  return {
    object: 'collection' as const,
    id: row.id,
    title: row.title,
    ...(row.description !== null ? { description: row.description } : {}),
    organization: row.organization_id,
    ...(row.parent_id ? { parent: row.parent_id } : {}),
    defaultLevel: row.default_level,
    urls: { location: `${ctx.apiBase}/collections/${row.id}`, app: `${ctx.appBase}/c/${row.id}` },
    permissions: { admin: atLeast(r, 'admin'), create: canCreateIn(ctx, row.organization_id, row, r) },
  };
}

export type Collection = ReturnType<typeof toCollection>;

// ---------------------------------------------------------------------------------------------
// The content tree

/** A position past every space and collection of the organization. */
export function endPosition(db: Db, organizationId: string): number {
  const { max } = db
    .prepare(
      `SELECT MAX(position) AS max FROM (
         SELECT position FROM spaces WHERE organization_id = @org
         UNION ALL SELECT position FROM collections WHERE organization_id = @org)`,
    )
    .get({ org: organizationId }) as { max: number | null };
  return (max ?? 0) + 1;
}

/** Spaces (not deleted) and collections directly in `parentId` (null: the organization root). */
const SIBLINGS = `(
  SELECT id, position FROM spaces WHERE organization_id = @org AND parent_id IS @parent AND deleted_at IS NULL
  UNION ALL SELECT id, position FROM collections WHERE organization_id = @org AND parent_id IS @parent)`;

export interface ContentPointer {
  type: 'space' | 'collection';
  space?: string;
  collection?: string;
}

export interface ContentPosition {
  before?: ContentPointer;
  after?: ContentPointer;
}

/** The space or collection a position points at, checked to be in the organization. */
function pointed(db: Db, organizationId: string, pointer: ContentPointer, field: string) {
  const id = pointer[pointer.type]!;
  const row = db
    .prepare(
      pointer.type === 'space'
        ? 'SELECT id, parent_id, position FROM spaces WHERE id = ? AND organization_id = ? AND deleted_at IS NULL'
        : 'SELECT id, parent_id, position FROM collections WHERE id = ? AND organization_id = ?',
    )
    .get(id, organizationId) as { id: string; parent_id: string | null; position: number } | undefined;
  if (!row) throw badRequest(`${field}: no ${pointer.type} ${id} in this organization`);
  return row;
}

/** The sibling a position refers to, with its field name (for messages). */
function anchorOf(position: ContentPosition | undefined) {
  if (position?.before) return { pointer: position.before, field: 'position.before', side: 'before' as const };
  if (position?.after) return { pointer: position.after, field: 'position.after', side: 'after' as const };
  return null;
}

/**
 * Where a moved item lands: its parent (`parent` when given, else the parent of the sibling
 * the position names, else where it is) and its position (between neighbours, default the end).
 */
export function placement(
  ctx: RequestContext,
  item: { id: string; organization_id: string; parent_id: string | null },
  body: { parent?: string | null; position?: ContentPosition },
): { parentId: string | null; position: number } {
  const db = ctx.db;
  const anchor = anchorOf(body.position);
  const target = anchor && pointed(db, item.organization_id, anchor.pointer, anchor.field);
  if (target?.id === item.id) throw badRequest(`${anchor!.field}: cannot place an item next to itself`);
  const parentId = body.parent !== undefined ? body.parent : target ? target.parent_id : item.parent_id;
  if (target && target.parent_id !== parentId)
    throw badRequest(`${anchor!.field}: is not in the destination ${parentId ? `collection ${parentId}` : 'root'}`);
  if (parentId !== item.parent_id) requireCreateIn(ctx, item.organization_id, parentId, 'parent');
  if (!target) return { parentId, position: endPosition(db, item.organization_id) };
  const cmp = anchor!.side === 'before' ? '<' : '>';
  const agg = anchor!.side === 'before' ? 'MAX' : 'MIN';
  const { near } = db
    .prepare(`SELECT ${agg}(position) AS near FROM ${SIBLINGS} WHERE position ${cmp} @at AND id != @id`)
    .get({ org: item.organization_id, parent: parentId, at: target.position, id: item.id }) as { near: number | null };
  const step = anchor!.side === 'before' ? -1 : 1;
  return { parentId, position: near === null ? target.position + step : (near + target.position) / 2 };
}

/**
 * Whether the caller may create content in `parent` (null: the organization root): create role in
 * the organization, or (in a collection) create role on that collection (`parentRole`, when
 * already known). The collection's `permissions.create` flag.
 */
export function canCreateIn(ctx: RequestContext, organizationId: string, parent: CollectionRow | null, parentRole?: Role | null) {
  if (atLeast(orgMembership(ctx.db, organizationId, ctx.caller?.id)?.role, 'create')) return true;
  return parent !== null && atLeast(parentRole === undefined ? collectionRole(ctx, parent) : parentRole, 'create');
}

/**
 * Checks that the caller may create content in `parentId` (see canCreateIn). A parent that is
 * not a collection of the organization is a 400 naming `field`.
 */
export function requireCreateIn(ctx: RequestContext, organizationId: string, parentId: string | null, field: string) {
  const parent = parentId === null ? null : findCollection(ctx.db, parentId);
  if (parentId !== null && (!parent || parent.organization_id !== organizationId))
    throw badRequest(`${field}: no collection ${parentId} in this organization`);
  requireOrg(ctx.db, organizationId, ctx.caller?.id);
  if (canCreateIn(ctx, organizationId, parent ?? null)) return;
  const where = parent ? `in collection ${parent.id}` : 'in this organization';
  throw forbidden(`Your role does not allow creating content ${where}; create is required`);
}

/** The ids of every collection nested (at any depth) in `collectionId`. */
export function nestedCollectionIds(db: Db, collectionId: string): string[] {
  const rows = db
    .prepare(
      `WITH RECURSIVE nested(id) AS (
         SELECT id FROM collections WHERE parent_id = ?
         UNION SELECT c.id FROM collections c JOIN nested n ON c.parent_id = n.id)
       SELECT id FROM nested`,
    )
    .all(collectionId) as Array<{ id: string }>;
  return rows.map((r) => r.id);
}

/** `in-collection` is only for spaces in a collection: spaces leaving one become `private`. */
export function detachSpaces(db: Db, collectionIds: string[], now: string): void {
  const update = db.prepare(
    `UPDATE spaces SET parent_id = NULL, updated_at = ?,
       visibility = CASE visibility WHEN 'in-collection' THEN 'private' ELSE visibility END
     WHERE parent_id = ?`,
  );
  for (const id of collectionIds) update.run(now, id);
}

/** The organization a transfer goes to: the caller must have create (or admin) role in it. */
export function transferTarget(ctx: RequestContext, from: string, organizationId: string) {
  const { member } = lookupField('organization', () => requireOrg(ctx.db, organizationId, ctx.caller?.id));
  if (!atLeast(member.role, 'create'))
    throw forbidden(`Your role in organization ${organizationId} (${member.role ?? 'guest'}) does not allow this; create is required`);
  if (organizationId === from) throw conflict('The content already belongs to this organization');
  return organizationId;
}

// ---------------------------------------------------------------------------------------------
// Routes

function created(ctx: RequestContext, row: CollectionRow) {
  const body = toCollection(ctx, row);
  ctx.res.setHeader('location', body.urls.location);
  return new Reply(201, body);
}

function insertCollection(ctx: RequestContext, organizationId: string, parentId: string | null, title: string) {
  const id = newId();
  const now = ctx.now();
  ctx.db.transaction(() => {
    ctx.db
      .prepare(
        `INSERT INTO collections (id, organization_id, parent_id, title, position, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, organizationId, parentId, title, endPosition(ctx.db, organizationId), now, now);
    grantCreator(ctx, { type: 'collection', id, organization_id: organizationId });
  })();
  return findCollection(ctx.db, id)!;
}

/** Moves a collection, its nested collections and all their spaces to another organization's root. */
function transferCollection(ctx: RequestContext, row: CollectionRow, organizationId: string) {
  const now = ctx.now();
  const ids = [row.id, ...nestedCollectionIds(ctx.db, row.id)];
  ctx.db.transaction(() => {
    const spaces = ids.flatMap(
      (id) => ctx.db.prepare('SELECT id, position FROM spaces WHERE parent_id = ?').all(id) as Array<{ id: string; position: number }>,
    );
    const spaceIds = spaces.map((s) => s.id);
    const positions = ids.map((id) => findCollection(ctx.db, id)!.position).concat(spaces.map((s) => s.position));
    // Keep their order, past everything in the target organization.
    const shift = endPosition(ctx.db, organizationId) - Math.min(...positions);
    const moveCollection = ctx.db.prepare(
      'UPDATE collections SET organization_id = ?, position = position + ?, updated_at = ? WHERE id = ?',
    );
    const moveSpace = ctx.db.prepare('UPDATE spaces SET organization_id = ?, position = position + ?, updated_at = ? WHERE id = ?');
    for (const id of ids) moveCollection.run(organizationId, shift, now, id);
    for (const id of spaceIds) moveSpace.run(organizationId, shift, now, id);
    ctx.db.prepare('UPDATE collections SET parent_id = NULL WHERE id = ?').run(row.id);
    dropForeignGrants(ctx.db, organizationId, [
      ...ids.map((id) => ({ type: 'collection' as const, id })),
      ...spaceIds.map((id) => ({ type: 'space' as const, id })),
    ]);
    dropForeignSiteSpaces(ctx.db, organizationId, spaceIds);
  })();
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
    const { parentId, position } = placement(ctx, row, body);
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
