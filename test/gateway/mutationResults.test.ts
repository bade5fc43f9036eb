/**
 * A mutation's result past a bound of the gateway (maxResponseBytes) is not refused whole: its
 * writes are made, and a client that took `data: null` for a failed write wrote it again.
 */
import { describe, expect, it } from 'vitest';
import { startStack } from '../helpers/gateway.js';

describe('a mutation whose result is too large to send', () => {
  it('answers null and "the write was made" at each root field that wrote; a failed one keeps its own error', async () => {
    await using s = await startStack({ limits: { maxResponseBytes: 100_000 } });
    const orgId = s.world.orgId;
    const spaces = async () =>
      (await s.api.get(`/orgs/${orgId}/spaces`, { limit: 1000 })).body.items.map((i: { title: string }) => i.title);
    const before = await spaces();
    const create = (alias: string, title: string) =>
      `${alias}: createSpace(input: { organizationId: "${orgId}", title: "${title}", clientMutationId: $c }) { clientMutationId space { id } }`;
    const result = await s.gql(`mutation($c: ID!) { ${create('a', 'Echo a')} ${create('b', 'x'.repeat(51))} ${create('c', 'Echo c')} }`, {
      c: 'x'.repeat(60_000),
    });
    expect(result.data).toEqual({ a: null, b: null, c: null });
    const byPath = Object.fromEntries((result.errors ?? []).map((e) => [String(e.path), e]));
    expect(Object.keys(byPath).sort()).toEqual(['a', 'b', 'c']);
    for (const key of ['a', 'c']) {
      expect(byPath[key].message).toMatch(/^The write was made; its payload is left out\. maxResponseBytes: /);
      expect(byPath[key].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxResponseBytes', maximum: 100_000 });
    }
    // The write that failed says why, as it would have.
    expect(byPath.b.message).toMatch(/^input\.title: must be at most 50 characters long/);
    expect((await spaces()).filter((title: string) => !before.includes(title)).sort()).toEqual(['Echo a', 'Echo c']);
  });
  it('answers a root field aliased `__proto__` as any other', async () => {
    await using s = await startStack({ limits: { maxResponseBytes: 1_000 } });
    const result = await s.gql(
      `mutation($c: ID!) { __proto__: createSpace(input: { organizationId: "${s.world.orgId}", title: "Proto", clientMutationId: $c }) { clientMutationId } }`,
      { c: 'x'.repeat(2_000) },
    );
    // Own keys of the parsed answer (`toEqual({ __proto__: null })` would set a prototype instead).
    expect(Object.entries(result.data!)).toEqual([['__proto__', null]]);
    expect(result.errors?.map((e) => [e.path, e.message.slice(0, 27)])).toEqual([[['__proto__'], 'The write was made; its pay']]);
  });
});
