/**
 * What the table cannot derive of space and collection writes, defined once for both kinds:
 * delete (read first, to name the organization in the payload), move (with a position; the payload
 * holds the new parent) and transfer (the source organization is unknown: every organization read
 * is forgotten).
 */
import type { Space as RestSpace } from '@gitbook/api';
import { bodies } from '../../api/rules.js';
import { builder } from '../builder.js';
import { ContentPointerType } from '../lib/enums.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { edge, resourceInfo, staleAfter } from '../lib/resource.js';

const ContentPointerInput = builder.inputType('ContentPointerInput', {
  description: 'A space or collection of the same parent: `{type: SPACE, space}` or `{type: COLLECTION, collection}`.',
  fields: (t) => ({
    type: t.field({ type: ContentPointerType, required: true }),
    space: t.string({ description: 'Space id (type SPACE).' }),
    collection: t.string({ description: 'Collection id (type COLLECTION).' }),
  }),
});

const ContentPositionInput = builder.inputType('ContentPositionInput', {
  description: 'Where a moved space or collection goes: before or after a sibling, not both (BAD_USER_INPUT); default the end.',
  fields: (t) => ({
    before: t.field({ type: ContentPointerInput }),
    after: t.field({ type: ContentPointerInput }),
  }),
});

type ContentJson = Pick<RestSpace, 'id' | 'organization' | 'parent'>;

for (const name of ['Space', 'Collection'] as const) {
  const info = resourceInfo(name);
  const [param] = info.params;
  const field = param.replace(/Id$/, '') as 'space' | 'collection';
  // The spaces of a deleted collection move to the organization root; a transfer takes them along.
  const alsoStale = name === 'Collection' ? ['/spaces'] : [];
  const organization = (t: any) => edge(t, 'Organization', (p: { json: ContentJson }) => [p.json.organization]);
  const node = (t: any) => t.field({ type: info.ref, nullable: true, resolve: (p: any) => p.node });

  /** A write to the node (`suffix` under its path) that returns it; the node primes its path. */
  const mutation = (verb: 'move' | 'transfer', description: string, inputFields: (t: any) => object, stale: string[], outputFields: (t: any) => object) =>
    builder.relayMutationField(
      `${verb}${name}`,
      { inputFields: (t) => ({ [param]: t.string({ required: true }), ...inputFields(t) }) as never },
      {
        description,
        resolve: async (_root, { input }: { input: any }, ctx) => {
          const body = restBody(input, [param]);
          checkInput(bodies[`${field}.${verb}`], body);
          const json = await ctx.rest.write<ContentJson>('POST', `${info.path([input[param]])}/${verb}`, body, { invalidate: [info.path([input[param]])] });
          ctx.rest.forget([...staleAfter(info, input, json), ...stale]);
          ctx.rest.prime(info.path([json.id]), json);
          return { json, node: info.attach(json as never, {}) };
        },
      },
      { outputFields: (t: any) => ({ [field]: node(t), ...outputFields(t) }) } as never,
    );

  mutation(
    'move',
    `Moves a ${field} in the content tree of its organization (\`POST ${info.spec.path}/move\`).`,
    (t) => ({
      parent: t.string({ description: 'The collection to move into; null: the organization root; absent: stays in its parent.' }),
      position: t.field({ type: ContentPositionInput, description: 'Before or after a sibling; default the end.' }),
    }),
    [],
    (t) => ({ parent: edge(t, 'Collection', (p: { json: ContentJson }) => [p.json.parent], { description: 'The collection holding it (null at the organization root).' }) }),
  );
  mutation(
    'transfer',
    `Transfers a ${field} to the root of another organization (\`POST ${info.spec.path}/transfer\`).`,
    (t) => ({ organization: t.string({ required: true, description: 'Id of the target organization.' }) }),
    ['/orgs', ...alsoStale],
    (t) => ({ organization: organization(t) }),
  );

  builder.relayMutationField(
    `delete${name}`,
    { inputFields: (t) => ({ [param]: t.string({ required: true }) }) as never },
    {
      description:
        `Deletes a ${field} (\`DELETE ${info.spec.path}\`)` +
        (name === 'Space' ? '; it can be restored for 7 days.' : '; its spaces move to the organization root.'),
      resolve: async (_root, { input }: { input: any }, ctx) => {
        // Read first: the payload names the organization whose list changed.
        const json = await ctx.rest.load<ContentJson>(info.path([input[param]]));
        await ctx.rest.write('DELETE', info.path([json.id]), undefined, { invalidate: [...staleAfter(info, input, json), ...alsoStale] });
        return { json, deletedId: globalId(name, json.id) };
      },
    },
    { outputFields: (t: any) => ({ deletedId: t.id({ resolve: (p: any) => p.deletedId }), organization: organization(t) }) } as never,
  );
}
