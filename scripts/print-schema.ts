/**
 * Writes the two schema files: `npm run schema`.
 * - schema.graphql: the client schema, what introspection serves (with Yoga's `@defer`/`@stream`),
 *   printed sorted, no federation plumbing. Relay, Codegen and Apollo tooling read it as is.
 * - schema.subgraph.graphql: the subgraph SDL that `_service { sdl }` serves (`@link`, `@key`s and
 *   the cost directives routers read).
 */
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { schema, sdl } from '../src/schema/index.js';
import { clientSchemaOf } from '../src/schema/lib/federation.js';

export const SCHEMA_FILE = fileURLToPath(new URL('../schema.graphql', import.meta.url));
export const SUBGRAPH_SCHEMA_FILE = fileURLToPath(new URL('../schema.subgraph.graphql', import.meta.url));

/** The schema the gateway serves: the subgraph schema with the directives useDeferStream adds. */
function servedSchema(): GraphQLSchema {
  let served = schema;
  const onSchemaChange = useDeferStream().onSchemaChange as (payload: unknown) => void;
  onSchemaChange({ schema, replaceSchema: (next: GraphQLSchema) => (served = next) });
  return served;
}

export function printedSchema(): string {
  return printSchema(lexicographicSortSchema(clientSchemaOf(servedSchema()))) + '\n';
}

export function printedSubgraphSchema(): string {
  return sdl() + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_FILE, printedSchema());
  writeFileSync(SUBGRAPH_SCHEMA_FILE, printedSubgraphSchema());
  console.log(`wrote ${SCHEMA_FILE} and ${SUBGRAPH_SCHEMA_FILE}`);
}
