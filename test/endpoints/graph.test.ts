import { isInterfaceType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { endpointKey, loadEndpoints } from '../../scripts/endpoints.js';
import { readFields, readOnlyWrites, writeMutations } from '../../scripts/graphMap.js';
import { schema } from '../../src/schema/index.js';

const endpoints = loadEndpoints();
const reads = endpoints.filter((e) => e.method === 'GET').map(endpointKey);
const writes = endpoints.filter((e) => e.method !== 'GET').map(endpointKey);

/** Whether `Type.field` exists in the schema. */
function exists(coordinate: string): boolean {
  const [typeName, field] = coordinate.split('.');
  const type = schema.getType(typeName);
  return (isObjectType(type) || isInterfaceType(type)) && field in type.getFields();
}

const missingIn = (coordinates: string[]) => [...new Set(coordinates)].filter((c) => !exists(c)).sort();

describe('the graph serves every endpoint', () => {
  it('maps every GET of the seed to a field, and nothing else', () => {
    expect(reads.filter((k) => !(k in readFields))).toEqual([]);
    expect(Object.keys(readFields).filter((k) => !reads.includes(k))).toEqual([]);
  });

  it('maps every write of the seed to mutations, and nothing else', () => {
    expect(writes.filter((k) => !writeMutations[k]?.length)).toEqual([]);
    expect(Object.keys(writeMutations).filter((k) => !writes.includes(k))).toEqual([]);
  });

  it('serves writes with mutations, except read-only computations (query fields, per API.md)', () => {
    const notMutations = writes.filter((k) => writeMutations[k].some((c) => !c.startsWith('Mutation.')));
    expect(notMutations).toEqual([...readOnlyWrites]);
    for (const k of readOnlyWrites) expect(writeMutations[k].every((c) => !c.startsWith('Mutation.'))).toBe(true);
  });

  it('finds, for each GET, the field that serves it in the schema', () => {
    const missing = missingIn(Object.values(readFields));
    expect(missing, `read fields missing from the schema:\n${missing.join('\n')}`).toEqual([]);
  });

  it('finds a mutation for every write in the schema', () => {
    const missing = missingIn(Object.values(writeMutations).flat());
    expect(missing, `mutations missing from the schema:\n${missing.join('\n')}`).toEqual([]);
  });
});
