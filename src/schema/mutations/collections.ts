/** Collection mutations: the content-tree set shared with spaces (see content.ts). */
import { Role } from '../lib/enums.js';
import { collectionBase } from '../nodes/Collection.js';
import { contentMutations } from './content.js';

contentMutations(collectionBase, {
  create: (t) => ({
    title: t.string({ description: 'At most 50 characters.' }),
    parent: t.string({ description: 'Id of the collection to nest it in (default: the organization root).' }),
  }),
  update: (t) => ({
    title: t.string({ description: 'At most 50 characters.' }),
    description: t.string({ description: 'At most 100 characters.' }),
    defaultLevel: t.field({ type: Role }),
  }),
  // The spaces of a deleted collection move to the organization root; a transfer takes them along.
  alsoStale: ['/spaces'],
});
