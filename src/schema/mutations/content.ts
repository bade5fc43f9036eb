/**
 * The content-tree inputs of space and collection moves (the writes come from
 * src/schema/resources.ts), and the `parent` a move's payload names.
 */
import { builder } from '../builder.js';
import { ContentPointerType } from '../lib/enums.js';
import { edge, inputObject, payloadFields } from '../lib/resource.js';

const ContentPointerInput = builder.inputType('ContentPointerInput', {
  description: 'A space or collection of the same parent: `{type: SPACE, space}` or `{type: COLLECTION, collection}`.',
  fields: (t) => ({
    type: t.field({ type: ContentPointerType, required: true }),
    space: t.string({ description: 'Space id (type SPACE).' }),
    collection: t.string({ description: 'Collection id (type COLLECTION).' }),
  }),
});

inputObject(
  'ContentPositionInput',
  builder.inputType('ContentPositionInput', {
    description: 'Where a moved space or collection goes: before or after a sibling, not both (BAD_USER_INPUT); default the end.',
    fields: (t) => ({ before: t.field({ type: ContentPointerInput }), after: t.field({ type: ContentPointerInput }) }),
  }),
);

for (const mutation of ['moveSpace', 'moveCollection'] as const)
  payloadFields(mutation, (t) => ({
    parent: edge(t, 'Collection', (p) => [p.node?.parent], { description: 'The collection holding it (null at the organization root).' }),
  }));
