/**
 * Introspection (issue 18): priced like any query, allowed with a token (checked upstream, one
 * `GET /user`), refused without one unless `anonymousIntrospection` turns it on. Ten loops of the
 * full introspection query without a token took other callers' p50 from 8 ms to 768 ms.
 */
import { getIntrospectionQuery } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { startStack, type GqlResult, type TestStack } from '../helpers/gateway.js';
import { httpStack } from '../helpers/httpStack.js';

const FULL = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
});

const stack = httpStack();
let t: TestStack;
beforeAll(() => void (t = stack.t));
const post = async (query: string, authorization?: string): Promise<GqlResult> => (await stack.post({ query }, authorization)).result;

describe('introspection without a token', () => {
  it('is refused with UNAUTHENTICATED, before it runs', async () => {
    for (const query of [
      FULL,
      '{ __schema { queryType { name } } }',
      '{ __type(name: "Space") { name } }',
      'query { ...F } fragment F on Query { __schema { types { name } } }',
    ]) {
      const res = await post(query);
      expect(res.data ?? null).toBeNull();
      expect(res.errors).toHaveLength(1);
      expect(res.errors![0].extensions).toEqual({ code: 'UNAUTHENTICATED' });
      expect(res.errors![0].message).toMatch(/^Introspection needs a token/);
    }
  });

  it('`__typename` is no introspection and still answers', async () => {
    expect(await post('{ __typename }')).toEqual({ data: { __typename: 'Query' } });
  });

  it('an Authorization header without a credential is no token', async () => {
    expect((await post('{ __schema { queryType { name } } }', 'Bearer ')).errors?.[0].extensions).toEqual({ code: 'UNAUTHENTICATED' });
  });

  it('is allowed with --anonymous-introspection', async () => {
    await using s = await startStack({ limits: { anonymousIntrospection: true } });
    const res = await s.gql('{ __schema { queryType { name } } }', undefined, null);
    expect(res).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  });
});

describe('introspection with a token', () => {
  it('answers, after one GET /user that checks the token', async () => {
    t.resetCalls();
    const res = await post(FULL, `Bearer ${t.world.users.read.token}`);
    expect(res.errors).toBeUndefined();
    expect(res.data.__schema.queryType.name).toBe('Query');
    expect(t.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /user']);
  });

  it('an unknown token is refused with UNAUTHENTICATED', async () => {
    const res = await post('{ __schema { queryType { name } } }', 'Bearer gb_api_not_a_token');
    expect(res.data ?? null).toBeNull();
    expect(res.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('is priced like any query: a list is a connection of its average length', async () => {
    await using s = await startStack({ limits: { maxCost: 1000 } });
    const res = await s.gql(FULL);
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxCost', maximum: 1000 });
    expect(res.errors![0].extensions!.actual).toBeGreaterThan(1000);
    expect(res.errors![0].extensions!.actual).toBeLessThan(10_000);
    expect((await s.gql('{ __schema { queryType { name } } }')).errors).toBeUndefined();
  });
});
