/**
 * Change requests: the `ChangeRequest` node (keys: space, change request), `Space.changeRequests`
 * and the root lookup `changeRequest(spaceId, changeRequestId)` (id or number, as in REST).
 */
import type { ChangeRequest as RestChangeRequest, Space as RestSpace, User as RestUser } from '@gitbook/api';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { ChangeRequestStatus } from '../lib/enums.js';
import { orNull, urlsType } from '../lib/fields.js';
import { restNodeRef, restPath } from '../lib/node.js';
import { restRef } from '../lib/refs.js';
import { Space } from './Space.js';
import { User } from './User.js';

export type { RestChangeRequest };

export const changeRequestPath = (spaceId: string, changeRequestId: string) =>
  restPath`/spaces/${spaceId}/change-requests/${changeRequestId}`;

/** A user the REST object embeds in full: primes `/users/{id}`, so the User node costs no call. */
export function embeddedUser<U extends RestUser | undefined>(ctx: GatewayContext, user: U): U {
  if (user) ctx.rest.prime(restPath`/users/${user.id}`, user);
  return user;
}

/** The change request at a path given by id or number; primes its canonical (id) path too. */
export async function loadChangeRequest(ctx: GatewayContext, spaceId: string, changeRequestId: string): Promise<RestChangeRequest> {
  const cr = await ctx.rest.load<RestChangeRequest>(changeRequestPath(spaceId, changeRequestId));
  ctx.rest.prime(changeRequestPath(cr.space, cr.id), cr);
  return cr;
}

/** What REST reads as a number in `{changeRequestId}` (the same test as the upstream's). */
const CHANGE_REQUEST_NUMBER = /^[1-9]\d{0,15}$/;

/** The REST id of a change request given by id or number (one cached GET only for a number), so
 * the global ids of its comments and replies do not depend on how the caller named it. */
export async function changeRequestIdOf(ctx: GatewayContext, spaceId: string, changeRequestId: string): Promise<string> {
  if (!CHANGE_REQUEST_NUMBER.test(changeRequestId)) return changeRequestId;
  return (await loadChangeRequest(ctx, spaceId, changeRequestId)).id;
}

export const ChangeRequest = restNodeRef<RestChangeRequest>('ChangeRequest', {
  arity: 2,
  keys: (cr) => [cr.space, cr.id],
  stub: ([space, id]) => ({ space, id }),
  path: ([spaceId, changeRequestId]) => changeRequestPath(spaceId, changeRequestId),
});

const ChangeRequestUrls = urlsType('ChangeRequestUrls', 'a change request', ['location', 'app']);

ChangeRequest.implement({
  description: 'A change request: proposed changes to the content of a space.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the change request.' }),
    number: t.exposeInt('number', { description: 'Incremental identifier within the space; usable in place of the id.' }),
    status: t.field({ type: ChangeRequestStatus, resolve: (cr) => cr.status }),
    subject: t.exposeString('subject'),
    createdBy: t.field({ type: User, resolve: (cr, _args, ctx) => embeddedUser(ctx, cr.createdBy) }),
    createdAt: t.field({ type: 'DateTime', resolve: (cr) => cr.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (cr) => cr.updatedAt }),
    revision: t.exposeString('revision', { description: 'Active revision in the change request.' }),
    revisionInitial: t.exposeString('revisionInitial', { description: 'Revision of the space it was created from.' }),
    revisionMergedAncestor: t.string({
      nullable: true,
      description: 'Latest space revision when last updated from the main content.',
      resolve: (cr) => orNull(cr.revisionMergedAncestor),
    }),
    revisionMerged: t.string({
      nullable: true,
      description: 'When merged, the space revision resulting from the merge.',
      resolve: (cr) => orNull(cr.revisionMerged),
    }),
    commentsCount: t.int({ description: 'Count of open comments (REST `comments`).', resolve: (cr) => cr.comments }),
    outdated: t.exposeBoolean('outdated', { description: 'True while it is behind the main content of the space.' }),
    urls: t.field({ type: ChangeRequestUrls, resolve: (cr) => cr.urls }),
    space: t.field({ type: Space, nullable: true, description: 'The space it belongs to.', resolve: (cr, _args, ctx, info) => restRef<RestSpace>('Space', [cr.space], ctx, info) }),
    pdfUrl: t.string({
      nullable: true,
      description: 'A URL of a PDF of its content (`GET .../pdf`): all pages, `page` and its subpages, or `page` only.',
      args: {
        only: t.arg.boolean({ description: 'Only the given page (needs `page`).' }),
        page: t.arg.string({ description: 'A page id.' }),
      },
      resolve: async (cr, { only, page }, ctx) =>
        (await ctx.rest.load<{ url: string }>(`${changeRequestPath(cr.space, cr.id)}/pdf`, { only, page })).url,
    }),
  }),
});

export const ChangeRequestConnection = builder.connectionObject(
  { type: ChangeRequest, name: 'ChangeRequestConnection' },
  { name: 'ChangeRequestEdge' },
);

builder.objectField(Space, 'changeRequests', (t) =>
  t.field({
    type: ChangeRequestConnection,
    nullable: true,
    description: 'Change requests of the space (`GET /spaces/{spaceId}/change-requests`); `status` defaults to OPEN, as in REST.',
    args: {
      ...forwardArgs,
      status: t.arg({ type: ChangeRequestStatus }),
      contributor: t.arg.string({ description: 'Only change requests this user (REST id) contributed to.' }),
    },
    resolve: (space, { status, contributor, ...args }, ctx) =>
      resolveList(ctx, args, {
        path: restPath`/spaces/${space.id}/change-requests`,
        query: { status, contributor },
        itemPath: (cr: RestChangeRequest) => changeRequestPath(cr.space, cr.id),
      }),
  }),
);

builder.queryFields((t) => ({
  changeRequest: t.field({
    type: ChangeRequest,
    nullable: true,
    description: 'A change request by its REST id or number (`GET /spaces/{spaceId}/change-requests/{changeRequestId}`).',
    args: {
      spaceId: t.arg.string({ required: true }),
      changeRequestId: t.arg.string({ required: true, description: 'The id or the number of the change request.' }),
    },
    // By number: its GET first, so its global id is the one by id.
    resolve: (_root, { spaceId, changeRequestId }, ctx, info) =>
      CHANGE_REQUEST_NUMBER.test(changeRequestId)
        ? loadChangeRequest(ctx, spaceId, changeRequestId)
        : restRef<RestChangeRequest>('ChangeRequest', [spaceId, changeRequestId], ctx, info),
  }),
}));
