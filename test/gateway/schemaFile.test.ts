import { readFileSync } from 'node:fs';
import { buildClientSchema, getIntrospectionQuery, lexicographicSortSchema, printSchema, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedSchema, printedSubgraphSchema, SCHEMA_FILE, SUBGRAPH_SCHEMA_FILE } from '../../scripts/print-schema.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

let t: TestStack;
beforeAll(async () => {
  t = await startStack();
});
afterAll(() => t.stop());

const INTROSPECTION = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  inputValueDeprecation: true,
});

describe('the schema files (run `npm run schema` after changing src/schema)', () => {
  it('schema.graphql is the printed client schema', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(printedSchema());
  });

  it('schema.subgraph.graphql is the printed subgraph SDL', () => {
    expect(readFileSync(SUBGRAPH_SCHEMA_FILE, 'utf8')).toBe(printedSubgraphSchema());
  });

  it('schema.graphql is exactly what introspection serves: no federation @link, @key, _service or _entities', async () => {
    const introspected = await t.data<IntrospectionQuery>(INTROSPECTION);
    expect(printSchema(lexicographicSortSchema(buildClientSchema(introspected))) + '\n').toBe(readFileSync(SCHEMA_FILE, 'utf8'));
    const text = readFileSync(SCHEMA_FILE, 'utf8');
    for (const plumbing of ['@link', '@key', '_service', '_entities', '_Any', '_Entity', '_Service', 'extend schema'])
      expect(text).not.toContain(plumbing);
    expect(await t.data('{ __type(name: "_Any") { name } }')).toEqual({ __type: null });
  });

  it('a router still gets the SDL and entities from the same gateway', async () => {
    const { _service } = await t.data('{ _service { sdl } }');
    expect(_service.sdl + '\n').toBe(readFileSync(SUBGRAPH_SCHEMA_FILE, 'utf8'));
    const mixed = await t.data('{ _service { sdl } __type(name: "_Any") { name } }');
    expect(mixed.__type).toEqual({ name: '_Any' });
  });
});
