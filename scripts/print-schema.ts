/** Writes schema.graphql from the Pothos schema: `npm run schema`. It is the subgraph SDL (sorted, with
 * the federation `@link` and `@key`s) that `_service { sdl }` serves. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sdl } from '../src/schema/index.js';

export const SCHEMA_FILE = fileURLToPath(new URL('../schema.graphql', import.meta.url));

export function printedSchema(): string {
  return sdl() + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_FILE, printedSchema());
  console.log(`wrote ${SCHEMA_FILE}`);
}
