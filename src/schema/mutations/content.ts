/**
 * The writes spaces and collections share, defined once for both kinds: create, update, delete,
 * move and transfer (`createSpace`, `moveCollection`, …), and what every content-tree write makes
 * stale in the request's loader.
 */
import { bodies } from '../../api/rules.js';
import type { GatewayContext } from '../context.js';
import type { WriteMethod } from '../restLoader.js';
import { builder } from '../builder.js';
import { ContentPointerType } from '../lib/enums.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { restPath } from '../lib/node.js';
import { Collection, type ContentBase } from '../nodes/Collection.js';
import { Organization } from '../nodes/Organization.js';
import type { Space } from '../nodes/Space.js';

/** What the gateway reads of a space or collection JSON to settle the loader after a write. */
export interface ContentJson {
  id: string;
  organization: string;
  parent?: string;
}

type InputFields = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];
type FieldsOf = (t: InputFields) => Record<string, any>;
type Input = Record<string, any>;

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

const orgPath = (organizationId: string) => restPath`/orgs/${organizationId}`;

/**
 * Forgets what a content write may have changed: the organization's space and collection lists,
 * every collection read (a moved space's old parent is not known) and `stale`.
 */
function forgetTree(ctx: GatewayContext, organizationId: string, stale: string[] = []): void {
  const org = orgPath(organizationId);
  ctx.rest.forget([`${org}/spaces`, `${org}/collections`, '/collections', ...stale]);
}

/** After a write that returned the node: forgets the tree, then primes the node with the written
 * JSON so later reads in the operation are fresh and free. */
function settle<T extends ContentJson>(ctx: GatewayContext, base: ContentBase, json: T, stale: string[] = []): T {
  forgetTree(ctx, json.organization, stale);
  ctx.rest.prime(base.path(json.id), json);
  return json;
}

/** A write to the node (`suffix` under its path, e.g. `/move`) that returns it, then settles. */
export async function writeNode(
  ctx: GatewayContext,
  base: ContentBase,
  id: string,
  method: WriteMethod,
  suffix: string,
  body?: unknown,
  stale: string[] = [],
): Promise<ContentJson> {
  const json = await ctx.rest.write<ContentJson>(method, base.path(id) + suffix, body, { invalidate: [base.path(id)] });
  return settle(ctx, base, json, stale);
}

/** Payload fields: the node under its kind's name, and its organization or its parent. */
function nodeField(base: ContentBase) {
  return (t: any) => ({ [base.field]: t.field({ type: base.ref as typeof Space, nullable: true, resolve: (p: any) => p.node }) });
}
const organizationField = (t: any) => ({
  organization: t.field({ type: Organization, nullable: true, resolve: (p: any) => p.node?.organization ?? p.organization }),
});
const parentField = (t: any) => ({
  parent: t.field({
    type: Collection,
    nullable: true,
    description: 'The collection holding it (null at the organization root).',
    resolve: (p: any) => p.node.parent ?? null,
  }),
});

interface MutationSpec {
  name: string;
  description: string;
  inputFields: FieldsOf;
  resolve: (input: Input, ctx: GatewayContext) => Promise<Record<string, unknown>>;
  outputFields: Array<(t: any) => Record<string, any>>;
}

/** One relay mutation from a spec (the untyped part of the shared definitions lives here). */
export function contentMutation(spec: MutationSpec): void {
  builder.relayMutationField(
    spec.name,
    { inputFields: spec.inputFields as never },
    { description: spec.description, resolve: (_root, { input }, ctx) => spec.resolve(input as Input, ctx) as never },
    { outputFields: ((t: any) => Object.assign({}, ...spec.outputFields.map((f) => f(t)))) as never },
  );
}

export interface KindFields {
  /** Body fields of create (besides `organizationId`) and of update (besides the id). */
  create: FieldsOf;
  update: FieldsOf;
  /** What else a delete or a transfer makes stale (a collection's spaces change parent or organization). */
  alsoStale?: string[];
}

/** create, update, delete, move and transfer for one kind. */
export function contentMutations(base: ContentBase, fields: KindFields): void {
  const { typename, field, param, template } = base;
  const rules = (op: 'create' | 'update' | 'move' | 'transfer') => bodies[`${field}.${op}`];
  const idOf = (input: Input) => input[param] as string;
  const idField: FieldsOf = (t) => ({ [param]: t.string({ required: true }) });

  contentMutation({
    name: `create${typename}`,
    description: `Creates a ${field} (\`POST /orgs/{organizationId}/${field}s\`).`,
    inputFields: (t) => ({ organizationId: t.string({ required: true }), ...fields.create(t) }),
    resolve: async (input, ctx) => {
      const body = restBody(input, ['organizationId']);
      checkInput(rules('create'), body);
      const json = await ctx.rest.write<ContentJson>('POST', `${orgPath(input.organizationId)}/${field}s`, body);
      return { node: settle(ctx, base, json) };
    },
    outputFields: [nodeField(base), organizationField],
  });

  contentMutation({
    name: `update${typename}`,
    description: `Updates a ${field} (\`PATCH ${template}\`).`,
    inputFields: (t) => ({ ...idField(t), ...fields.update(t) }),
    resolve: async (input, ctx) => {
      const body = restBody(input, [param]);
      checkInput(rules('update'), body);
      return { node: await writeNode(ctx, base, idOf(input), 'PATCH', '', body) };
    },
    outputFields: [nodeField(base)],
  });

  contentMutation({
    name: `delete${typename}`,
    description:
      `Deletes a ${field} (\`DELETE ${template}\`)` +
      (field === 'space' ? '; it can be restored for 7 days.' : '; its spaces move to the organization root.'),
    inputFields: idField,
    resolve: async (input, ctx) => {
      // Read first: the payload returns the organization whose list changed.
      const json = await ctx.rest.load<ContentJson>(base.path(idOf(input)));
      await ctx.rest.write('DELETE', base.path(json.id));
      forgetTree(ctx, json.organization, fields.alsoStale);
      return { deletedId: globalId(typename, json.id), organization: json.organization };
    },
    outputFields: [(t) => ({ deletedId: t.id({ resolve: (p: any) => p.deletedId }) }), organizationField],
  });

  contentMutation({
    name: `move${typename}`,
    description: `Moves a ${field} in the content tree of its organization (\`POST ${template}/move\`).`,
    inputFields: (t) => ({
      ...idField(t),
      parent: t.string({ description: 'The collection to move into; null: the organization root; absent: stays in its parent.' }),
      position: t.field({ type: ContentPositionInput, description: 'Before or after a sibling; default the end.' }),
    }),
    resolve: async (input, ctx) => {
      const body = restBody(input, [param]);
      checkInput(rules('move'), body);
      return { node: await writeNode(ctx, base, idOf(input), 'POST', '/move', body) };
    },
    outputFields: [nodeField(base), parentField],
  });

  contentMutation({
    name: `transfer${typename}`,
    description: `Transfers a ${field} to the root of another organization (\`POST ${template}/transfer\`).`,
    inputFields: (t) => ({ ...idField(t), organization: t.string({ required: true, description: 'Id of the target organization.' }) }),
    resolve: async (input, ctx) => {
      const body = restBody(input, [param]);
      checkInput(rules('transfer'), body);
      // The source organization is not known here: every organization read is forgotten.
      const stale = ['/orgs', ...(fields.alsoStale ?? [])];
      return { node: await writeNode(ctx, base, idOf(input), 'POST', '/transfer', body, stale) };
    },
    outputFields: [nodeField(base), organizationField],
  });
}
