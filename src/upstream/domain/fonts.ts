/** Custom fonts of an organization: rows, the font shape, faces by weight. */
import { REQUIRED_FONT_WEIGHT } from '../../api/bodies/orgSettings.js';
import { LONE_SURROGATE } from '../../api/validate.js';
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { badRequest } from '../errors.js';
import { newId } from '../ids.js';
import { loadOwned, type OwnedTable } from './owned.js';

export interface FontRow {
  id: string;
  organization_id: string;
  font_family: string;
  /** JSON array of StoredFace, sorted by weight. */
  faces: string;
  created_at: string;
  updated_at: string;
}

interface StoredFace {
  weight: number;
  storageKey: string;
}

export const FONTS: OwnedTable = { table: 'fonts', owner: 'organization_id', what: 'Font', orderBy: ['created_at', 'id'] };

const FORMATS: Record<string, 'woff2' | 'woff'> = { woff2: 'woff2', woff: 'woff' };

/** A stored file's public URL, on the upstream's origin (the hosted API serves them from its CDN). */
function fileUrl(ctx: RequestContext, storageKey: string): string {
  // A key stored before keys were checked may hold half a surrogate pair, which encodeURIComponent refuses.
  const encode = (part: string) => encodeURIComponent(part.replace(new RegExp(LONE_SURROGATE, 'g'), '\uFFFD'));
  return `${ctx.services.origin()}/files/${storageKey.split('/').map(encode).join('/')}`;
}

function toSource(ctx: RequestContext, storageKey: string) {
  const format = FORMATS[storageKey.slice(storageKey.lastIndexOf('.') + 1).toLowerCase()];
  return { url: fileUrl(ctx, storageKey), ...(format ? { format } : {}) };
}

/** The seed's custom font shape (plus the official `permissions.edit`). */
export function toFont(ctx: RequestContext, row: FontRow, canEdit: boolean) {
  const faces = JSON.parse(row.faces) as StoredFace[];
  return {
    id: row.id,
    custom: true,
    fontFamily: row.font_family,
    fontFaces: faces.map((f) => ({ weight: f.weight, sources: [toSource(ctx, f.storageKey)] })),
    permissions: { edit: canEdit },
  };
}

const loadFont = (db: Db, organizationId: string, fontId: string) => loadOwned<FontRow>(db, FONTS, organizationId, fontId);

const byWeight = (faces: StoredFace[]) => [...faces].sort((a, b) => a.weight - b.weight);

/** Applies face changes by weight: a string storageKey sets the weight, null removes it. */
function mergeFaces(current: StoredFace[], changes: Array<{ weight: number; storageKey: string | null }>): StoredFace[] {
  const byW = new Map(current.map((f) => [f.weight, f.storageKey]));
  for (const c of changes) {
    if (c.storageKey === null) byW.delete(c.weight);
    else byW.set(c.weight, c.storageKey);
  }
  if (!byW.has(REQUIRED_FONT_WEIGHT)) throw badRequest(`fontFaces: must keep a face of weight ${REQUIRED_FONT_WEIGHT}`);
  return byWeight([...byW].map(([weight, storageKey]) => ({ weight, storageKey })));
}

export function insertFont(db: Db, organizationId: string, input: { fontFamily: string; fontFaces: StoredFace[] }, now: string): FontRow {
  const id = newId();
  const faces = byWeight(input.fontFaces.map((f) => ({ weight: f.weight, storageKey: f.storageKey })));
  db.prepare('INSERT INTO fonts (id, organization_id, font_family, faces, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    id,
    organizationId,
    input.fontFamily,
    JSON.stringify(faces),
    now,
    now,
  );
  return loadFont(db, organizationId, id);
}

/** Sets the family and changes faces by weight (400 when the required weight would go). */
export function updateFont(
  db: Db,
  row: FontRow,
  changes: { fontFamily?: string; fontFaces?: Array<{ weight: number; storageKey: string | null }> },
  now: string,
): FontRow {
  const faces = changes.fontFaces ? mergeFaces(JSON.parse(row.faces), changes.fontFaces) : JSON.parse(row.faces);
  db.prepare('UPDATE fonts SET font_family = ?, faces = ?, updated_at = ? WHERE id = ?').run(
    changes.fontFamily ?? row.font_family,
    JSON.stringify(faces),
    now,
    row.id,
  );
  return loadFont(db, row.organization_id, row.id);
}
