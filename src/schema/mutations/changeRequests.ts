/**
 * Change request writes and state transitions. Every write forgets the cached reads under its
 * space (the space's counts and revision, its change request lists), so a later read in the same
 * operation is fresh; payloads hold the change request and its space as they are afterwards.
 */
import type { Space as RestSpace } from '@gitbook/api';
import { bodies, type CHANGE_REQUEST_SETTABLE_STATUSES } from '../../api/rules.js';
import type { GatewayContext } from '../context.js';
import type { WriteMethod } from '../restLoader.js';
import { builder } from '../builder.js';
import { ChangeRequestStatus } from '../lib/enums.js';
import { checkInput, restBody } from '../lib/mutation.js';
import { restPath } from '../lib/node.js';
import { ChangeRequest, changeRequestPath, loadChangeRequest, type RestChangeRequest } from '../nodes/ChangeRequest.js';
import { Space, spacePath } from '../nodes/Space.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type SettableStatus = (typeof CHANGE_REQUEST_SETTABLE_STATUSES)[number];

/** A change request named by its space and its id or number; `changeRequest` when already fetched. */
interface ChangeRequestPayload {
  spaceId: string;
  changeRequestId: string;
  changeRequest?: RestChangeRequest;
}

export const changeRequestKeyFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>) => ({
  spaceId: t.string({ required: true }),
  changeRequestId: t.string({ required: true, description: 'The id or the number of the change request.' }),
});

const payloadFields = <P extends ChangeRequestPayload>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, P>) => ({
  changeRequest: t.field({
    type: ChangeRequest,
    nullable: true,
    description: 'The change request after the write.',
    resolve: (p, _args, ctx) => p.changeRequest ?? loadChangeRequest(ctx, p.spaceId, p.changeRequestId),
  }),
  space: t.field({
    type: Space,
    nullable: true,
    description: 'Its space after the write (counts, revision).',
    resolve: (p, _args, ctx) => ctx.rest.load<RestSpace>(spacePath(p.spaceId)),
  }),
});

/** Writes to the space's change requests; the answer primes the change request's own path. */
async function write(ctx: GatewayContext, method: WriteMethod, spaceId: string, path: string, body?: unknown): Promise<ChangeRequestPayload> {
  const changeRequest = await ctx.rest.write<RestChangeRequest>(method, path, body, { invalidate: [spacePath(spaceId)] });
  ctx.rest.prime(changeRequestPath(changeRequest.space, changeRequest.id), changeRequest);
  return { spaceId, changeRequestId: changeRequest.id, changeRequest };
}

/** PATCH with a body checked against the shared rules first. */
function patch(ctx: GatewayContext, input: { spaceId: string; changeRequestId: string }, body: Record<string, unknown>) {
  checkInput(bodies['changeRequest.update'], body);
  return write(ctx, 'PATCH', input.spaceId, changeRequestPath(input.spaceId, input.changeRequestId), body);
}

builder.relayMutationField(
  'createChangeRequest',
  {
    inputFields: (t) => ({
      spaceId: t.string({ required: true }),
      subject: t.string({ description: 'At most 100 characters.' }),
    }),
  },
  {
    description: 'Creates a change request, as a draft (`POST /spaces/{spaceId}/change-requests`).',
    resolve: (_root, { input }, ctx) => {
      const body = restBody(input, ['spaceId']);
      checkInput(bodies['changeRequest.create'], body);
      return write(ctx, 'POST', input.spaceId, restPath`/spaces/${input.spaceId}/change-requests`, body);
    },
  },
  { outputFields: payloadFields },
);

builder.relayMutationField(
  'updateChangeRequest',
  {
    inputFields: (t) => ({
      ...changeRequestKeyFields(t),
      subject: t.string({ description: 'At most 100 characters.' }),
      status: t.field({ type: ChangeRequestStatus, description: 'DRAFT, OPEN or ARCHIVED (MERGED only by mergeChangeRequest).' }),
    }),
  },
  {
    description: 'Changes the subject and/or the status of a change request (`PATCH .../change-requests/{changeRequestId}`).',
    resolve: (_root, { input }, ctx) => patch(ctx, input, restBody(input, ['spaceId', 'changeRequestId'])),
  },
  { outputFields: payloadFields },
);

/** A status transition: PATCH with `status`. */
function statusMutation(name: string, status: SettableStatus, description: string) {
  builder.relayMutationField(
    name,
    { inputFields: (t) => changeRequestKeyFields(t) },
    { description, resolve: (_root, { input }, ctx) => patch(ctx, input, { status }) },
    { outputFields: payloadFields },
  );
}

statusMutation('archiveChangeRequest', 'archived', 'Archives a change request (PATCH `status: archived`).');
statusMutation('reopenChangeRequest', 'open', 'Opens a draft or archived change request (PATCH `status: open`).');
statusMutation('markChangeRequestDraft', 'draft', 'Turns a change request back into a draft (PATCH `status: draft`).');

/** POST `merge` / `update`: the answer is `{revision, result}`; the change request is read afresh. */
function revisionMutation(name: string, action: 'merge' | 'update', description: string) {
  builder.relayMutationField(
    name,
    { inputFields: (t) => changeRequestKeyFields(t) },
    {
      description,
      resolve: async (_root, { input }, ctx): Promise<ChangeRequestPayload & { revision: string }> => {
        const path = `${changeRequestPath(input.spaceId, input.changeRequestId)}/${action}`;
        const { revision } = await ctx.rest.write<{ revision: string }>('POST', path, undefined, {
          invalidate: [spacePath(input.spaceId)],
        });
        return { spaceId: input.spaceId, changeRequestId: input.changeRequestId, revision };
      },
    },
    {
      outputFields: (t) => ({
        ...payloadFields(t),
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
