import { CHANGE_REQUEST_STATUSES } from '../../api/rules.js';
import { mergeChangeRequest, updateChangeRequest, type ChangeRequestRow } from '../content/merge.js';
import { PDF_URL_TTL_MS, renderPdf, signPdfGrant, verifyPdfGrant } from '../content/pdf.js';
import { pagesOf, type PageRow } from '../content/revisions.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { badRequest, forbidden, notFound, unauthorized } from '../errors.js';
import { paginate } from '../pagination.js';
import { created, RAW, type Router } from '../router.js';
import {
  changeRequestById,
  changeRequestsOf,
  insertChangeRequest,
  loadChangeRequest,
  reloadChangeRequest,
  requireUnlocked,
  setChangeRequestFields,
  toChangeRequest,
} from '../domain/changeRequests.js';
import { loadSpace, spaceById, type SpaceRow } from '../domain/spaces.js';

const base = '/spaces/{spaceId}/change-requests';

function list(ctx: RequestContext) {
  const { row: space } = loadSpace(ctx, ctx.params.spaceId, 'read', { members: true });
  const status = ctx.query.enum('status', CHANGE_REQUEST_STATUSES, 'open');
  return paginate(ctx, changeRequestsOf(ctx, space, status, ctx.query.string('contributor')));
}

function create(ctx: RequestContext) {
  const { row: space } = loadSpace(ctx, ctx.params.spaceId, 'edit', { members: true });
  requireUnlocked(space);
  const { subject } = ctx.body('changeRequest.create', { optional: true });
  const id = insertChangeRequest(ctx.db, space, { subject: subject ?? '', userId: ctx.user().id }, ctx.now());
  return created(ctx, reloadChangeRequest(ctx, id, space));
}

function update(ctx: RequestContext) {
  const { space, cr } = loadChangeRequest(ctx, 'edit');
  const body = ctx.body('changeRequest.update');
  setChangeRequestFields(ctx.db, cr, body, ctx.now());
  return reloadChangeRequest(ctx, cr.id, space);
}

function merge(ctx: RequestContext) {
  const { space, cr } = loadChangeRequest(ctx, 'edit');
  requireUnlocked(space);
  return { revision: mergeChangeRequest(ctx.db, cr, ctx.now()), result: 'merge' as const };
}

function pullMain(ctx: RequestContext) {
  const { space, cr } = loadChangeRequest(ctx, 'edit');
  requireUnlocked(space);
  return { revision: updateChangeRequest(ctx.db, cr, ctx.now()), result: 'update' as const };
}

/** The pages a PDF holds: all; or `page` and the pages under its path; or only `page`. */
function pdfPages(ctx: RequestContext, cr: ChangeRequestRow): string[] | undefined {
  const only = ctx.query.boolean('only', false);
  const pageId = ctx.query.string('page');
  if (pageId === undefined) {
    if (only) throw badRequest('page: is required when only is true');
    return undefined;
  }
  const pages = pagesOf(ctx.db, cr.revision_id);
  const page = pages.find((p) => p.page_id === pageId);
  if (!page) throw notFound('Page');
  if (only) return [page.page_id];
  return pages.filter((p) => p === page || p.path.startsWith(`${page.path}/`)).map((p) => p.page_id);
}

function pdfUrl(ctx: RequestContext) {
  const { space, cr } = loadChangeRequest(ctx, 'read');
  const token = signPdfGrant({
    spaceId: space.id,
    changeRequestId: cr.id,
    revisionId: cr.revision_id,
    pages: pdfPages(ctx, cr),
    expires: ctx.services.clock.now().getTime() + PDF_URL_TTL_MS,
  });
  return { url: `${ctx.apiBase}/spaces/${space.id}/change-requests/${cr.id}/pdf/render?token=${token}` };
}

/** The print URL: the signed token is the credential, so it works in a browser without a bearer token. */
async function renderPdfRoute(ctx: RequestContext) {
  const token = ctx.query.string('token');
  if (!token) throw unauthorized('token: is required');
  const grant = verifyPdfGrant(token, ctx.services.clock.now().getTime());
  if ('invalid' in grant) throw forbidden(`token: ${grant.invalid}`);
  if (grant.spaceId !== ctx.params.spaceId || grant.changeRequestId !== ctx.params.changeRequestId)
    throw forbidden('token: is for another change request');
  // The link prints what its space still holds: not once the space is deleted (it works again if
  // the space is restored within the link's hour).
  const space = spaceById(ctx.db, grant.spaceId) as SpaceRow | undefined;
  if (!space || space.deleted_at) throw notFound('Space');
  const cr = changeRequestById(ctx.db, grant.changeRequestId);
  if (!cr || cr.space_id !== space.id) throw notFound('Change request');
  const wanted = grant.pages && new Set(grant.pages);
  const pages = pagesOf(ctx.db, grant.revisionId).filter((p: PageRow) => !wanted || wanted.has(p.page_id));
  const bytes = await renderPdf({
    title: cr.subject || `Change request #${cr.number}`,
    subtitle: `Change request #${cr.number} (${cr.status}), ${pages.length} page${pages.length === 1 ? '' : 's'}`,
    pages: pages.map((p) => ({ title: p.title, markdown: p.markdown })),
  });
  ctx.res.writeHead(200, {
    'content-type': 'application/pdf',
    'content-length': bytes.byteLength,
    'content-disposition': `inline; filename="change-request-${cr.number}.pdf"`,
  });
  ctx.res.end(Buffer.from(bytes));
  return RAW;
}

export function register(router: Router, _services: UpstreamServices) {
  router.get(base, list);
  router.post(base, create);
  router.get(`${base}/{changeRequestId}`, (ctx) => {
    const { space, cr } = loadChangeRequest(ctx, 'read');
    return toChangeRequest(ctx, cr, space);
  });
  router.patch(`${base}/{changeRequestId}`, update);
  router.post(`${base}/{changeRequestId}/merge`, merge);
  router.post(`${base}/{changeRequestId}/update`, pullMain);
  router.get(`${base}/{changeRequestId}/pdf`, pdfUrl);
  router.get(`${base}/{changeRequestId}/pdf/render`, renderPdfRoute, { anonymous: true });
}
