/** The full introspection query, every option on (as GraphiQL and recent tooling send it). */
import { getIntrospectionQuery } from 'graphql';

export const FULL_INTROSPECTION = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  oneOf: true,
});
