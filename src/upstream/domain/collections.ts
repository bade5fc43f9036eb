/** Collections: rows, the caller's role, the Collection shape, creating content in them, inserting and transferring. */
import { setColumns } from '../db/columns.js';
import { atLeast, type Role } from '../../api/roles.js';
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { badRequest, conflict, forbidden, lookupField, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { contentRole, contentRoles, orgMembership, requireOrg, requireRole } from '../access.js';
import { dropForeignGrants, dropGrants, grantCreator } from './grants.js';
import type { ListSpec } from '../pagination.js';
import { dropForeignSiteSpaces } from './siteSpaces.js';
import {
  collectionHeight,
  collectionLevel,
  detachSpaces,
  endPosition,
  MAX_COLLECTION_DEPTH,
  nestedCollectionIds,
  placement,
  type ContentPosition,
} from './contentTree.js';

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

/** The organization a transfer goes to: the caller must have create (or admin) role in it. */
export function transferTarget(ctx: RequestContext, from: string, organizationId: string) {
  const { member } = lookupField('organization', () => requireOrg(ctx.db, organizationId, ctx.caller?.id));
  if (!atLeast(member.role, 'create'))
    throw forbidden(`Your role in organization ${organizationId} (${member.role ?? 'guest'}) does not allow this; create is required`);
  if (organizationId === from) throw conflict('The content already belongs to this organization');
  return organizationId;
}

export function insertCollection(ctx: RequestContext, organizationId: string, parentId: string | null, title: string) {
  if (parentId && collectionLevel(ctx.db, parentId) >= MAX_COLLECTION_DEPTH) throw tooDeep();
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
export function transferCollection(ctx: RequestContext, row: CollectionRow, organizationId: string): CollectionRow {
  const now = ctx.now();
  const ids = [row.id, ...nestedCollectionIds(ctx.db, row.id)];
  ctx.db.transaction(() => {
    const spaces = ids.flatMap(
      (id) => ctx.db.prepare('SELECT id, position FROM spaces WHERE parent_id = ?').all(id) as Array<{ id: string; position: number }>,
    );
    const spaceIds = spaces.map((s) => s.id);
    const positions = ids.map((id) => findCollection(ctx.db, id)!.position).concat(spaces.map((s) => s.position));
    // Keep their order, past everything in the target organization. Not Math.min(...positions): past
    // about 120,000 arguments it throws (RangeError), and a collection may hold 300,000 spaces.
    const shift = endPosition(ctx.db, organizationId) - positions.reduce((a, b) => Math.min(a, b));
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
  return findCollection(ctx.db, row.id)!;
}
/** Where a moved space or collection lands (see placement); a new parent needs the create role in it. */
export function placeIn(
  ctx: RequestContext,
  item: { id: string; organization_id: string; parent_id: string | null },
  body: { parent?: string | null; position?: ContentPosition },
): { parentId: string | null; position: number } {
  const placed = placement(ctx.db, item, body);
  if (placed.parentId !== item.parent_id) requireCreateIn(ctx, item.organization_id, placed.parentId, 'parent');
  return placed;
}

/** Deletes a collection with its nested collections and their grants; the spaces they held move to the organization root. */
export function deleteCollection(db: Db, row: CollectionRow, now: string): void {
  const ids = [row.id, ...nestedCollectionIds(db, row.id)];
  db.transaction(() => {
    detachSpaces(db, ids, now);
    for (const id of ids) dropGrants(db, { type: 'collection', id });
    db.prepare('DELETE FROM collections WHERE id = ?').run(row.id);
  })();
}

/** Sets the given fields (undefined keeps one) and bumps `updated_at`. */
export function updateCollection(
  db: Db,
  row: CollectionRow,
  changes: { title?: string; description?: string; defaultLevel?: Role },
  now: string,
): CollectionRow {
  setColumns(db, 'collections', ['id', row.id], {
    title: changes.title,
    description: changes.description,
    default_level: changes.defaultLevel,
    updated_at: now,
  });
  return findCollection(db, row.id)!;
}

/** Moves a collection in its organization's tree, never into itself or a collection nested in it. */
export function moveCollection(db: Db, row: CollectionRow, to: { parentId: string | null; position: number }, now: string): CollectionRow {
  if (to.parentId === row.id || (to.parentId && nestedCollectionIds(db, row.id).includes(to.parentId)))
    throw badRequest('parent: cannot move a collection into itself or one of its nested collections');
  if (to.parentId && collectionLevel(db, to.parentId) + collectionHeight(db, row.id) > MAX_COLLECTION_DEPTH) throw tooDeep();
  db.prepare('UPDATE collections SET parent_id = ?, position = ?, updated_at = ? WHERE id = ?').run(to.parentId, to.position, now, row.id);
  return findCollection(db, row.id)!;
}

/** The organization's collections the caller can see (only those at the root unless `nested`). */
export function visibleCollections(ctx: RequestContext, organizationId: string, nested: boolean): ListSpec<CollectionRow, Collection> {
  const roles = contentRoles(ctx.db, ctx.caller?.id);
  const roleOf = (row: CollectionRow) => roles({ type: 'collection', ...row });
  return {
    from: `collections WHERE organization_id = ?${nested ? '' : ' AND parent_id IS NULL'}`,
    params: [organizationId],
    orderBy: ['position', 'id'],
    filter: (row) => roleOf(row) !== null,
    map: (row) => toCollection(ctx, row, roleOf(row)),
  };
}

const tooDeep = () => badRequest(`parent: collections nest at most ${MAX_COLLECTION_DEPTH} levels`);
