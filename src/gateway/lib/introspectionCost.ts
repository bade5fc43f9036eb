/**
 * What introspection costs in the gateway's cost formula (src/gateway/plugins/useCostLimit.ts),
 * priced like any query: a list of the schema's own description (`types`, `fields`, `args`,
 * `inputFields`, `enumValues`, `interfaces`, `possibleTypes`, `directives`) is a connection whose
 * `first` is that list's average length in this schema, so it costs 1 + length × its selection;
 * `__schema` and `__type` are root fields (1 + their selection); `__typename` is free. GraphiQL's
 * full introspection query costs about 3,600: within `--max-cost`, but no longer free.
 */
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, isUnionType, type GraphQLSchema } from 'graphql';

type Averages = Record<string, number>;
const cache = new WeakMap<GraphQLSchema, Averages>();

const average = (counts: number[]) => (counts.length ? counts.reduce((a, b) => a + b, 0) / counts.length : 0);

function averages(schema: GraphQLSchema): Averages {
  let found = cache.get(schema);
  if (found) return found;
  const types = Object.values(schema.getTypeMap());
  const withFields = types.filter((t) => isObjectType(t) || isInterfaceType(t));
  const fields = withFields.flatMap((t) => Object.values(t.getFields()));
  const directives = schema.getDirectives();
  found = {
    types: types.length,
    directives: directives.length,
    fields: average(withFields.map((t) => Object.keys(t.getFields()).length)),
    args: average([...fields, ...directives].map((f) => f.args.length)),
    inputFields: average(types.filter(isInputObjectType).map((t) => Object.keys(t.getFields()).length)),
    enumValues: average(types.filter(isEnumType).map((t) => t.getValues().length)),
    interfaces: average(withFields.map((t) => t.getInterfaces().length)),
    possibleTypes: average(types.filter((t) => isInterfaceType(t) || isUnionType(t)).map((t) => schema.getPossibleTypes(t).length)),
  };
  cache.set(schema, found);
  return found;
}

/** The cost of an introspection field (`__…`, or a field of an introspection type), given its selection's cost. */
export function introspectionCost(schema: GraphQLSchema, parentType: string, field: string, childComplexity: number): number {
  if (field === '__typename') return 0;
  if (field === '__schema' || field === '__type') return 1 + childComplexity;
  const length = parentType.startsWith('__') ? averages(schema)[field] : undefined;
  return length === undefined ? childComplexity : 1 + Math.ceil(length * childComplexity);
}
