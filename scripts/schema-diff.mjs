// Breaking and dangerous changes between two printed schemas (graphql's findBreakingChanges), e.g.
//   node scripts/schema-diff.mjs <(git show main:schema.graphql) schema.graphql
// Federation directives are left out: they are not part of what a client sees.
import { buildASTSchema, findBreakingChanges, findDangerousChanges, parse } from 'graphql';
import { readFileSync } from 'node:fs';

const client = (sdl) => {
  const doc = parse(sdl);
  return { ...doc, definitions: doc.definitions.filter((d) => d.kind !== 'SchemaExtension') };
};
const [before, after] = process.argv.slice(2).map((file) => buildASTSchema(client(readFileSync(file, 'utf8')), { assumeValidSDL: true }));
const changes = [
  ...findBreakingChanges(before, after).map((c) => `BREAKING ${c.type}: ${c.description}`),
  ...findDangerousChanges(before, after).map((c) => `DANGEROUS ${c.type}: ${c.description}`),
];
console.log(changes.length ? changes.join('\n') : 'no breaking or dangerous change');
process.exitCode = changes.some((c) => c.startsWith('BREAKING')) ? 1 : 0;
