import { readFileSync } from 'node:fs';
import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { exampleQuery } from '../../src/gateway/example.js';
import { schema } from '../../src/schema/index.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The GraphQL documents of the README: ```graphql blocks and the query strings of the JS example. */
function documents(): string[] {
  const blocks = [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]);
  const js = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].flatMap((m) =>
    [...m[1].matchAll(/`((?:query|mutation|subscription)[\s\S]*?)`/g)].map((q) => q[1]),
  );
  return [...blocks, ...js];
}

describe('the README and GraphiQL examples', () => {
  it('has examples to check', () => {
    expect(documents().length).toBeGreaterThanOrEqual(3);
  });

  it.each(documents().map((d, i) => [i, d]))('example %i is valid against the schema', (_i, doc) => {
    expect(validate(schema, parse(doc as string)).map((e) => e.message)).toEqual([]);
  });

  it("shows under 'A first query' the query GraphiQL opens with", () => {
    // It showed another query (a variable, pageInfo, fewer fields) under "The query GraphiQL opens with".
    const shown = readme.match(/### A first query\n[\s\S]*?```graphql\n([\s\S]*?)```/)![1];
    const opened = exampleQuery('<organizationId>').replace(/^#.*\n/gm, '');
    expect(shown).toBe(opened);
  });

  it('the GraphiQL example query is valid', () => {
    expect(validate(schema, parse(exampleQuery('org'))).map((e) => e.message)).toEqual([]);
  });
});
