/**
 * Refuses an operation whose variables hold a list of more than `maxListItems` items where the
 * schema takes a list (an argument's or an input object field's, e.g. the `users` of a grant),
 * before it runs (no REST call): BAD_USER_INPUT `maxListItems`. 40,000 ids in
 * `grantSpacePermission(input: {users: …})`, within the 1 MB body bound, held the event loop
 * 0.3 s (their coercion, then the embedded REST API's work on them). After the cost limit, whose
 * `--max-ids` answers first for the lists of `nodes(ids:)` and `_entities`. The REST API's own largest list bound
 * is 500 items (`maxItems` in its OpenAPI description); the default, 1,000, is above every list a
 * client has reason to send. Lists written in the document itself are bounded by its tokens
 * (`--max-tokens`); a JSON value's own arrays (a content document) are not the schema's lists and
 * are not counted; `nodes(ids:)` and `_entities` have their tighter bound (`--max-ids`).
 */
import { getOperationAST, isInputObjectType, isListType, isNonNullType, typeFromAST, type GraphQLInputType } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { limitError } from '../lib/limitError.js';
import type { CheckPayload } from './useCostLimit.js';

/** A list past the bound: where (`$input.users`) and how many items it holds. */
type TooLong = readonly [where: string, items: number];

/**
 * The first list of `value` (of input type `type`) longer than `max`, walked along the type: only
 * lists the schema declares count, and only the values present are visited (the walk is bounded
 * by the variables, whose depth is bounded by useMaxVariablesDepth).
 */
function longList(type: GraphQLInputType, value: unknown, max: number, where: string): TooLong | undefined {
  if (value === null || value === undefined) return undefined;
  const bare = isNonNullType(type) ? type.ofType : type;
  if (isListType(bare)) {
    // A single value where a list is taken is coerced to a list of one.
    const items: unknown[] = Array.isArray(value) ? value : [value];
    if (items.length > max) return [where, items.length];
    for (const item of items) {
      const found = longList(bare.ofType, item, max, where);
      if (found) return found;
    }
    return undefined;
  }
  if (!isInputObjectType(bare) || typeof value !== 'object' || Array.isArray(value)) return undefined;
  for (const [name, field] of Object.entries(bare.getFields())) {
    const found = longList(field.type, (value as Record<string, unknown>)[name], max, `${where}.${name}`);
    if (found) return found;
  }
  return undefined;
}

export function useMaxListItems(maxListItems: number): Plugin {
  const check = ({ args, setResultAndStopExecution }: CheckPayload) => {
    const variables = args.variableValues;
    if (!variables || typeof variables !== 'object') return;
    for (const definition of getOperationAST(args.document, args.operationName)?.variableDefinitions ?? []) {
      const name = definition.variable.name.value;
      const value = (variables as Record<string, unknown>)[name];
      if (value === null || typeof value !== 'object') continue;
      const type = typeFromAST(args.schema, definition.type) as GraphQLInputType | undefined;
      const found = type && longList(type, value, maxListItems, `$${name}`);
      if (!found) continue;
      const [where, items] = found;
      const message = `\`${where}\` holds ${items} items; a list takes at most ${maxListItems}.`;
      return setResultAndStopExecution({ errors: [limitError('maxListItems', maxListItems, message, items)] });
    }
  };
  return { onExecute: check, onSubscribe: check };
}
