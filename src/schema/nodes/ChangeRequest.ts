/** Change requests: the node's own fields, merge and update from main; the rest is in src/schema/resources.ts. */
import type { ChangeRequest as RestChangeRequest } from '@gitbook/api';
import { builder } from '../builder.js';
import { ChangeRequestStatus } from '../lib/enums.js';
import { urlsType } from '../lib/fields.js';
import { restRef } from '../lib/refs.js';
import { answered, canonicalKeys, edge, embedded, inputObject, resourceInfo, resourceNode, writeResource } from '../lib/resource.js';
import { User } from './User.js';
import { EMBEDDED } from '../lib/cost.js';

type ChangeRequestShape = RestChangeRequest & { spaceId: string };

declare module '../lib/resource.js' {
  interface ResourceShapes {
    ChangeRequest: ChangeRequestShape;
  }
}

export const ChangeRequest = resourceNode('ChangeRequest');
inputObject('ChangeRequestStatus', ChangeRequestStatus);

const ChangeRequestUrls = urlsType('ChangeRequestUrls', 'a change request', ['location', 'app']);

ChangeRequest.implement({
  description: 'A change request: proposed changes to the content of a space.',
  fields: (t) => ({
    number: t.exposeInt('number', { description: 'Incremental identifier within the space; usable in place of the id.' }),
    status: t.field({ type: ChangeRequestStatus, resolve: (cr) => cr.status }),
    subject: t.exposeString('subject'),
    createdBy: t.field({ type: User, extensions: EMBEDDED, resolve: (cr, _args, ctx) => embedded(ctx, 'User', cr.createdBy) }),
    createdAt: t.field({ type: 'DateTime', resolve: (cr) => cr.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (cr) => cr.updatedAt }),
    revision: t.exposeString('revision', { description: 'Active revision in the change request.' }),
    revisionInitial: t.exposeString('revisionInitial', { description: 'Revision of the space it was created from.' }),
    revisionMergedAncestor: t.exposeString('revisionMergedAncestor', {
      nullable: true,
      description: 'Latest space revision when last updated from the main content.',
    }),
    revisionMerged: t.exposeString('revisionMerged', {
      nullable: true,
      description: 'When merged, the space revision resulting from the merge.',
    }),
    commentsCount: t.int({ description: 'Count of open comments (REST `comments`).', resolve: (cr) => cr.comments }),
    outdated: t.exposeBoolean('outdated', { description: 'True while it is behind the main content of the space.' }),
    urls: t.field({ type: ChangeRequestUrls, resolve: (cr) => cr.urls }),
    space: edge(t, 'Space', (cr) => [cr.space], { description: 'The space it belongs to.' }),
    pdfUrl: t.string({
      nullable: true,
      description: 'A URL of a PDF of its content (`GET .../pdf`): all pages, `page` and its subpages, or `page` only.',
      args: {
        only: t.arg.boolean({ description: 'Only the given page (needs `page`).' }),
        page: t.arg.string({ description: 'A page id.' }),
      },
      resolve: async (cr, { only, page }, ctx) =>
        (await ctx.rest.load<{ url: string }>(`${resourceInfo('ChangeRequest').path([cr.space, cr.id])}/pdf`, { only, page })).url,
    }),
  }),
});

/** POST `merge` / `update`: the answer is `{revision, result}`; the change request is read afresh. */
function revisionMutation(name: string, action: 'merge' | 'update', description: string) {
  builder.relayMutationField(
    name,
    {
      inputFields: (t) => ({
        spaceId: t.string({ required: true }),
        changeRequestId: t.string({ required: true, description: 'The id or the number of the change request.' }),
      }),
    },
    {
      description,
      resolve: async (_root, { input }, ctx) => {
        // A number becomes the REST id first (as in derived writes): the write forgets the id's path.
        const keys = await canonicalKeys(ctx, input);
        const path = `${resourceInfo('ChangeRequest').path([keys.spaceId, keys.changeRequestId])}/${action}`;
        const { revision } = answered(await writeResource<{ revision: string } | undefined>(ctx, 'ChangeRequest', 'POST', path, keys));
        return { spaceId: keys.spaceId as string, changeRequestId: keys.changeRequestId as string, revision };
      },
    },
    {
      outputFields: (t) => ({
        changeRequest: t.field({
          type: ChangeRequest,
          nullable: true,
          description: 'The change request after the write.',
          resolve: (p, _args, ctx, info) => restRef<ChangeRequestShape>('ChangeRequest', [p.spaceId, p.changeRequestId], ctx, info),
        }),
        space: edge(t, 'Space', (p) => [p.spaceId], { description: 'Its space after the write (counts, revision).' }),
        revision: t.string({ description: 'The revision the operation produced.', resolve: (p) => p.revision }),
      }),
    },
  );
}

revisionMutation(
  'mergeChangeRequest',
  'merge',
  'Merges a change request into its space (`POST .../merge`): the space gets a new revision; merging twice is CONFLICT.',
);
revisionMutation(
  'updateChangeRequestFromMain',
  'update',
  "Pulls the space's main content into a change request (`POST .../update`); its own changes win.",
);
