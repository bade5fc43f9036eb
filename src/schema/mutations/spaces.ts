/**
 * Space mutations: the content-tree set shared with collections (create, update, delete, move,
 * transfer; see content.ts) plus the space-only restore and duplicate.
 */
import { builder } from '../builder.js';
import { EditMode, Role } from '../lib/enums.js';
import { Organization } from '../nodes/Organization.js';
import { spaceBase } from '../nodes/Collection.js';
import { Space } from '../nodes/Space.js';
import { contentMutations, writeNode } from './content.js';

contentMutations(spaceBase, {
  create: (t) => ({
    title: t.string({ description: 'At most 50 characters.' }),
    emoji: t.string({ description: 'At most 50 characters.' }),
    parent: t.string({ description: 'Id of the collection to create the space in (default: the organization root).' }),
  }),
  update: (t) => ({
    title: t.string({ description: 'At most 50 characters (needs edit).' }),
    emoji: t.string({ description: 'At most 50 characters (needs edit).' }),
    editMode: t.field({ type: EditMode, description: 'Needs admin.' }),
    defaultLevel: t.field({ type: Role, description: 'Needs admin.' }),
  }),
});

const spaceAndOrganization = (t: any) => ({
  space: t.field({ type: Space, nullable: true, resolve: (p: { space: { organization: string } }) => p.space }),
  organization: t.field({ type: Organization, nullable: true, resolve: (p: { space: { organization: string } }) => p.space.organization }),
});

builder.relayMutationField(
  'restoreSpace',
  { inputFields: (t) => ({ spaceId: t.string({ required: true }) }) },
  {
    description: 'Restores a space deleted in the last 7 days (`POST /spaces/{spaceId}/restore`).',
    resolve: async (_root, { input }, ctx) => ({ space: await writeNode(ctx, spaceBase, input.spaceId, 'POST', '/restore') }),
  },
  { outputFields: spaceAndOrganization },
);

builder.relayMutationField(
  'duplicateSpace',
  { inputFields: (t) => ({ spaceId: t.string({ required: true }) }) },
  {
    description: 'Duplicates a space beside the original (`POST /spaces/{spaceId}/duplicate`); the payload holds the copy.',
    resolve: async (_root, { input }, ctx) => ({ space: await writeNode(ctx, spaceBase, input.spaceId, 'POST', '/duplicate') }),
  },
  { outputFields: spaceAndOrganization },
);

/** The space lifecycle's edit-mode transition (`PATCH /spaces/{spaceId}` with `editMode`): one mutation per target state. */
function editModeMutation(name: string, editMode: 'live' | 'locked', description: string): void {
  builder.relayMutationField(
    name,
    { inputFields: (t) => ({ spaceId: t.string({ required: true }) }) },
    {
      description,
      resolve: async (_root, { input }, ctx) => ({ space: await writeNode(ctx, spaceBase, input.spaceId, 'PATCH', '', { editMode }) }),
    },
    { outputFields: (t) => ({ space: t.field({ type: Space, nullable: true, resolve: (p) => p.space as never }) }) },
  );
}

editModeMutation('lockSpace', 'locked', 'Locks a space: all edits are locked (`PATCH /spaces/{spaceId}` with `editMode: locked`); needs admin.');
editModeMutation('unlockSpace', 'live', 'Unlocks a locked space: users edit it directly (`PATCH /spaces/{spaceId}` with `editMode: live`); needs admin.');
