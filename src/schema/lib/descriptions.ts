/**
 * Descriptions of the types the relay plugin generates (in the style of GitHub's graph): a
 * mutation's input and payload, a connection and its edge. Filled in once, on the built schema,
 * where a type has none of its own.
 */
import type { Rule } from '../../api/validate.js';
import { getNamedType, isObjectType, type GraphQLNamedType, type GraphQLSchema } from 'graphql';

function describe(type: GraphQLNamedType | undefined | null, description: string): void {
  if (type && !type.description) Object.assign(type, { description });
}

export function describeGeneratedTypes(schema: GraphQLSchema): GraphQLSchema {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const input = field.args.find((a) => a.name === 'input');
    describe(input && getNamedType(input.type), `Input of \`${field.name}\`: REST path parameters and body fields under their REST names.`);
    describe(
      getNamedType(field.type),
      `Result of \`${field.name}\`: the changed objects, and the \`clientMutationId\` given in the input.`,
    );
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || !type.name.endsWith('Connection')) continue;
    const { edges, nodes } = type.getFields();
    if (!edges || !nodes) continue;
    const node = getNamedType(nodes.type).name;
    describe(type, `A page of ${node} objects: a forward Relay connection over a REST list.`);
    describe(
      getNamedType(edges.type),
      `${/^[AEIOU]/.test(node) ? 'An' : 'A'} ${node} in a connection, with the cursor to resume after it.`,
    );
  }
  return schema;
}

/** What a body rule of src/api asks of an input field, as its description says it: "1 to 64 characters." */
export function describeRule(rule: Rule): string {
  const parts: string[] = 'required' in rule && rule.required && rule.nullable ? ['Required (null is a value).'] : [];
  const range = (min: number | undefined, max: number | undefined, unit: string) => {
    const units = (n: number) => (n === 1 && unit.endsWith('s') ? unit.slice(0, -1) : unit);
    if (min !== undefined && max !== undefined) parts.push(`${min} to ${max} ${units(max)}.`);
    else if (max !== undefined) parts.push(`At most ${max} ${units(max)}.`);
    else if (min !== undefined) parts.push(`At least ${min} ${units(min)}.`);
  };
  if (rule.kind === 'string') {
    range(rule.min, rule.max, 'characters');
    if (rule.pattern) parts.push(`Matches \`${rule.pattern.source}\`.`);
    if (rule.format === 'uri') parts.push('A URL.');
  } else if (rule.kind === 'array') {
    range(rule.min, rule.max, 'items');
    const each = describeRule(rule.of);
    if (each) parts.push(`Each: ${each}`);
  } else if (rule.kind === 'number') range(rule.min, rule.max, '(inclusive)');
  return parts.join(' ');
}
