/**
 * A mutation's root fields run one after the other, and each payload reads through the request's
 * loader, which the earlier fields' payloads filled: a later field's payload must show its own
 * write wherever REST shows the written object, embedded ones included (a site section embeds its
 * site spaces' spaces, a member's space list embeds the spaces), as a REST read after it would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { newSite } from './siteFixture.js';

let t: TestStack;
beforeAll(async () => {
  t = await startStack();
});
afterAll(() => t.stop());

/** The titles of every object of `value` whose `restId` is `id`. */
function titlesOf(value: unknown, id: string): string[] {
  if (!value || typeof value !== 'object') return [];
  const own = (value as { restId?: unknown; title?: unknown }).restId === id ? [(value as { title: string }).title] : [];
  return [...own, ...Object.values(value).flatMap((v) => titlesOf(v, id))];
}

describe('a later root field of a mutation sees an earlier field’s write', () => {
  /** Two renames of the space, each payload reading the space as `where` embeds it. */
  async function renameTwice(spaceId: string, where: string) {
    const rename = (alias: string, title: string) =>
      `${alias}: updateSpace(input: { spaceId: $spaceId, title: "${title}" }) { space { title organization { ${where} } } }`;
    const result = await t.gql(`mutation($spaceId: String!) { ${rename('a', 'First')} ${rename('b', 'Second')} }`, { spaceId });
    expect(result.errors).toBeUndefined();
    return result.data as { a: unknown; b: { space: { title: string } } };
  }

  it('a site section’s embedded space, read in the first payload, shows the second rename in the second', async () => {
    const site = newSite(t);
    const [spaceId] = site.spaceIds;
    const data = await renameTwice(
      spaceId,
      'sites(first: 100) { nodes { sections(first: 100) { nodes { siteSpaces { space { restId title } } } } } }',
    );
    expect(titlesOf(data.a, spaceId)).toEqual(['First']);
    expect(data.b.space.title).toBe('Second');
    expect(titlesOf(data.b, spaceId)).toEqual(['Second']);
    // As REST says after the mutation.
    const sections = (await t.api.get(`${site.base}/sections`)).body.items as Array<{ siteSpaces: Array<{ space: { title: string } }> }>;
    expect(sections[0].siteSpaces[0].space.title).toBe('Second');
  });

  it('a member’s embedded spaces, read in the first payload, show the second rename in the second', async () => {
    const { id: spaceId } = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Before' })).body;
    const data = await renameTwice(spaceId, 'members(first: 100) { nodes { spaces(first: 100) { nodes { restId title } } } }');
    expect(titlesOf(data.a, spaceId).length).toBeGreaterThan(0);
    expect(new Set(titlesOf(data.a, spaceId))).toEqual(new Set(['First']));
    expect(new Set(titlesOf(data.b, spaceId))).toEqual(new Set(['Second']));
  });
});
