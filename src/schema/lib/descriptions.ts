/**
 * Descriptions of the types the relay plugin generates (in the style of GitHub's graph): a
 * mutation's input and payload, a connection and its edge. Filled in once, on the built schema,
 * where a type has none of its own.
 */
import { getNamedType, isObjectType, type GraphQLNamedType, type GraphQLSchema } from 'graphql';

function describe(type: GraphQLNamedType | undefined | null, description: string): void {
  if (type && !type.description) Object.assign(type, { description });
}

export function describeGeneratedTypes(schema: GraphQLSchema): GraphQLSchema {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const input = field.args.find((a) => a.name === 'input');
    describe(input && getNamedType(input.type), `Input of \`${field.name}\`: REST path parameters and body fields under their REST names.`);
    describe(getNamedType(field.type), `Result of \`${field.name}\`: the changed objects, and the \`clientMutationId\` given in the input.`);
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || !type.name.endsWith('Connection')) continue;
    const { edges, nodes } = type.getFields();
    if (!edges || !nodes) continue;
    const node = getNamedType(nodes.type).name;
    describe(type, `A page of ${node} objects: a forward Relay connection over a REST list.`);
    describe(getNamedType(edges.type), `${/^[AEIOU]/.test(node) ? 'An' : 'A'} ${node} in a connection, with the cursor to resume after it.`);
  }
  return schema;
}
