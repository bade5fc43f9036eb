/**
 * Introspection (issue 18): priced like any query, allowed with a token (checked upstream, one
 * `GET /user`), refused without one unless `anonymousIntrospection` turns it on. Ten loops of the
 * full introspection query without a token took other callers' p50 from 8 ms to 768 ms.
 */
import { __Schema, type GraphQLField } from 'graphql';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startStack, type GqlResult, type TestStack } from '../helpers/gateway.js';
import { httpStack } from '../helpers/httpStack.js';
import { FULL_INTROSPECTION } from '../helpers/introspection.js';

const FULL = FULL_INTROSPECTION;

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
      // The subgraph SDL is the same schema, by federation's name for it.
      '{ _service { sdl } }',
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
    expect((await s.gql('{ _service { sdl } }', undefined, null)).data?._service.sdl).toMatch(/^extend schema/);
  });
});

describe('validation suggestions ("Did you mean …?") name the schema too', () => {
  const TYPO = '{ viewr { restId } organization(organizationId: "x") { titel } }';
  const messages = (res: GqlResult) => (res.errors ?? []).map((e) => e.message);

  it('are left out for callers without an accepted token, kept for a token the REST API accepted', async () => {
    // First without a token (before: the suggestions named `viewer` and `title`), then with an
    // accepted one, then without again (a cached validation is not shared).
    for (const [authorization, suggested] of [
      [undefined, false],
      ['Bearer made-up', false],
      [`Bearer ${t.world.users.admin.token}`, true],
      [undefined, false],
    ] as const) {
      if (suggested) expect((await post('{ viewer { restId } }', authorization)).errors).toBeUndefined(); // the token proven
      const found = messages(await post(TYPO, authorization));
      expect(found, String(authorization)).toHaveLength(2);
      expect(found[0]).toMatch(/^Cannot query field "viewr" on type "Query"\.?/);
      for (const message of found) expect(message.includes('Did you mean'), `${authorization}: ${message}`).toBe(suggested);
    }
  });

  it('are looked for in one pass: a message echoing ` Did you mean ` many times is answered at once', async () => {
    // The variable's value is echoed twice in its message. The pattern that looked for the
    // suggestion tried each ` Did you mean ` up to the next `?`: 9,000 of them took seconds of the
    // event loop without a token, 70,000 (1 MB) with one minutes (the test timed out).
    const query = 'query($n: Int) { space(spaceId: "x") @skip(if: true) { changeRequests(first: $n) { nodes { id } } } }';
    for (const [authorization, repeat] of [
      [undefined, 9_000],
      [`Bearer ${t.world.users.admin.token}`, 70_000],
    ] as const) {
      const { status, result } = await stack.post({ query, variables: { n: `${' Did you mean '.repeat(repeat)}?x` } }, authorization);
      expect(status).toBe(400);
      expect(result.errors).toHaveLength(1);
      expect(result.errors![0].message).toMatch(/^Variable "\$n" got invalid value " Did you mean {2}Did you mean .*… \(cut\)$/);
      expect(result.errors![0].extensions?.code).toBe('BAD_USER_INPUT');
    }
  });

  it('are kept for everyone with --anonymous-introspection', async () => {
    await using s = await startStack({ limits: { anonymousIntrospection: true } });
    const found = messages(await s.gql(TYPO, undefined, null));
    expect(found.some((m) => m.includes('Did you mean "viewer"'))).toBe(true);
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

describe('a kept introspection result', () => {
  // Counts executions of the introspection: in the worker thread (introspection-only operations),
  // and on the event loop (others, by graphql's own `__Schema.types` resolver).
  const types = __Schema.getFields().types as GraphQLField<unknown, unknown>;
  const resolve = types.resolve!;
  let onEventLoop = 0;
  let inWorker = 0;
  const executions = () => onEventLoop + t.gateway.introspection.executions - inWorker;
  beforeAll(() => {
    types.resolve = (...args) => (onEventLoop++, resolve(...args));
  });
  beforeEach(() => void ((onEventLoop = 0), (inWorker = t.gateway.introspection.executions)));

  it('is served again to callers with a token, each checked by its GET /user, and never to an unknown token', async () => {
    const query = `${FULL}\n# kept`;
    const first = await post(query, `Bearer ${t.world.users.read.token}`);
    expect(first.errors).toBeUndefined();
    t.resetCalls();
    const again = await post(query, `Bearer ${t.world.users.admin.token}`);
    expect(again).toEqual(first);
    expect(executions()).toBe(1);
    expect(t.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /user']);
    const unknown = await post(query, 'Bearer gb_api_not_a_token');
    expect(unknown.data ?? null).toBeNull();
    expect(unknown.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    expect((await post(query)).errors?.[0].extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect(executions()).toBe(1);
  });

  it('is written out byte for byte as when it was executed, never serialized again', async () => {
    const query = `${FULL}\n# written`;
    const text = async () =>
      (
        await t.gateway.yoga.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${t.world.users.read.token}` },
          body: JSON.stringify({ query }),
        })
      ).text();
    const executed = await text();
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const hits = [await text(), await text(), await text()];
      expect(hits).toEqual([executed, executed, executed]);
      // The worker's text, kept with the result, is what every hit writes: no 400 KB serialization
      // on the event loop.
      expect(stringify.mock.results.filter((r) => typeof r.value === 'string' && r.value.length > 100_000)).toHaveLength(0);
    } finally {
      stringify.mockRestore();
    }
    expect(executions()).toBe(1);
  });

  it('is kept per document, operation and variables; a query with other fields is executed each time', async () => {
    const byName = 'query Types($n: String!) { __type(name: $n) { name } __schema { types { name } } }';
    const send = (name: string) => stack.post({ query: byName, variables: { n: name } }, `Bearer ${t.world.users.read.token}`);
    expect((await send('Space')).result.data.__type).toEqual({ name: 'Space' });
    expect((await send('Space')).result.data.__type).toEqual({ name: 'Space' });
    expect((await send('Comment')).result.data.__type).toEqual({ name: 'Comment' });
    expect(executions()).toBe(2);
    const mixed = '{ __schema { types { name } } viewer { restId } }';
    await post(mixed, `Bearer ${t.world.users.read.token}`);
    await post(mixed, `Bearer ${t.world.users.read.token}`);
    expect(executions()).toBe(4);
  });

  it('is not the answer to variables that differ only in a number JSON has no spelling for (1e400 is not null)', async () => {
    const query = 'query($d: Boolean) { __type(name: "Space") { fields(includeDeprecated: $d) { name } } }';
    // The body as sent: JSON.stringify writes Infinity as null.
    const send = async (variables: string) => {
      const res = await fetch(t.gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.world.users.read.token}` },
        body: `{"query":${JSON.stringify(query)},"variables":${variables}}`,
      });
      return { status: res.status, result: (await res.json()) as GqlResult };
    };
    expect((await send('{"d":null}')).result.errors).toBeUndefined();
    expect((await send('{"d":null}')).result.errors).toBeUndefined();
    expect(executions()).toBe(1);
    for (const huge of ['{"d":1e400}', '{"d":-1e400}']) {
      const refused = await send(huge);
      expect(refused.status).toBe(400);
      expect(refused.result.data).toBeUndefined();
      expect(refused.result.errors?.[0]).toMatchObject({
        message: expect.stringContaining('Boolean cannot represent a non boolean value: '),
        extensions: { code: 'BAD_USER_INPUT' },
      });
    }
  });

  it('is priced as before: over the cost limit it is refused each time, never kept', async () => {
    await using s = await startStack({ limits: { maxCost: 1000 } });
    for (let i = 0; i < 2; i++)
      expect((await s.gql(FULL)).errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxCost' });
    expect(executions()).toBe(0);
    expect(s.gateway.introspection.worker).toBeUndefined();
  });

  it('counts its key, variables included, in the bytes kept: sixteen keys of 900 KB were kept past them', async () => {
    const query = '{ __schema { queryType { name } } }';
    // Variables the document does not declare: graphql ignores them, the key holds them.
    const send = async (i: number) =>
      (await stack.post({ query, variables: { pad: `${i}:`.padEnd(900_000, 'x') } }, `Bearer ${t.world.users.read.token}`)).result;
    for (let i = 0; i < 8; i++) expect((await send(i)).errors).toBeUndefined();
    expect(executions()).toBe(8);
    // At most 4 MiB of keys and results are kept: the first one went.
    expect((await send(0)).errors).toBeUndefined();
    expect(executions()).toBe(9);
  });

  it('the response cache leaves introspection alone (it never keeps it, and walked its result on every request)', async () => {
    await using s = await startStack({ responseCacheTtlMs: 60_000 });
    const res = await s.gql(FULL);
    expect(res.errors).toBeUndefined();
    expect(res.extensions?.responseCache).toBeUndefined();
    expect((await s.gql('{ viewer { restId } }')).extensions?.responseCache).toMatchObject({ hit: false, didCache: true });
  });
});
