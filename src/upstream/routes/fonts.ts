import { orgSettingsBodies, REQUIRED_FONT_WEIGHT } from '../../api/bodies/orgSettings.js';
import { requireOrgSettings } from '../access.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { paginate } from '../pagination.js';
import { Reply, type Router } from '../router.js';

interface FontRow {
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

const FORMATS: Record<string, 'woff2' | 'woff'> = { woff2: 'woff2', woff: 'woff' };

/** A stored file's public URL, on the upstream's origin (the hosted API serves them from its CDN). */
function fileUrl(ctx: RequestContext, storageKey: string): string {
  return `${ctx.services.origin()}/files/${storageKey.split('/').map(encodeURIComponent).join('/')}`;
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

function getFont(ctx: RequestContext, organizationId: string, fontId: string): FontRow {
  const row = ctx.db.prepare('SELECT * FROM fonts WHERE organization_id = ? AND id = ?').get(organizationId, fontId) as
    | FontRow
    | undefined;
  if (!row) throw notFound('Font');
  return row;
}

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

export function register(router: Router, _services: UpstreamServices) {
  const base = '/orgs/{organizationId}/fonts';
  const access = (ctx: RequestContext, write = false) =>
    requireOrgSettings(ctx.db, ctx.params.organizationId, ctx.caller?.id, write);

  router.get(base, (ctx) => {
    const { org, canEdit } = access(ctx);
    return paginate<FontRow, ReturnType<typeof toFont>>(ctx, {
      from: 'fonts WHERE organization_id = ?',
      params: [org.id],
      orderBy: ['created_at', 'id'],
      map: (row) => toFont(ctx, row, canEdit),
    });
  });

  router.put(base, (ctx) => {
    const { org, canEdit } = access(ctx, true);
    const body = ctx.body(orgSettingsBodies['font.create']);
    const id = newId();
    const now = ctx.now();
    const faces = byWeight(body.fontFaces.map((f: StoredFace) => ({ weight: f.weight, storageKey: f.storageKey })));
    ctx.db
      .prepare('INSERT INTO fonts (id, organization_id, font_family, faces, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, org.id, body.fontFamily, JSON.stringify(faces), now, now);
    return new Reply(201, toFont(ctx, getFont(ctx, org.id, id), canEdit));
  });

  router.get(`${base}/{fontId}`, (ctx) => {
    const { org, canEdit } = access(ctx);
    return toFont(ctx, getFont(ctx, org.id, ctx.params.fontId), canEdit);
  });

  router.post(`${base}/{fontId}`, (ctx) => {
    const { org, canEdit } = access(ctx, true);
    const row = getFont(ctx, org.id, ctx.params.fontId);
    const body = ctx.body(orgSettingsBodies['font.update']);
    const faces = body.fontFaces ? mergeFaces(JSON.parse(row.faces), body.fontFaces) : JSON.parse(row.faces);
    ctx.db
      .prepare('UPDATE fonts SET font_family = ?, faces = ?, updated_at = ? WHERE id = ?')
      .run(body.fontFamily ?? row.font_family, JSON.stringify(faces), ctx.now(), row.id);
    return new Reply(201, toFont(ctx, getFont(ctx, org.id, row.id), canEdit));
  });

  router.delete(`${base}/{fontId}`, (ctx) => {
    const { org } = access(ctx, true);
    const row = getFont(ctx, org.id, ctx.params.fontId);
    ctx.db.prepare('DELETE FROM fonts WHERE id = ?').run(row.id);
  });
}
