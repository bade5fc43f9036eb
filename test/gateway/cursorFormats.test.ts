/**
 * A cursor of a list of bodies stays good whatever body format the next page selects: the gateway
 * asks REST for the format a selection needs, and REST lists the same items in every format (a
 * "load more" query selecting `body { markdown }` after a first page of ids was refused as
 * "not a cursor of this connection"). REST cuts pages of documents sooner (by their bytes), so a
 * cursor inside a page may find its page ends before its item: the skip goes on on the next page.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStack, type TestStack } from '../helpers/gateway.js';

let t: TestStack;
let spaceId: string;
let crId: string;
const ids: string[] = [];

beforeAll(async () => {
  t = await startStack();
  spaceId = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Formats' })).body.id;
  crId = (await t.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Bodies' })).body.id;
  for (let i = 0; i < 4; i++)
    ids.unshift((await t.api.post(`/spaces/${spaceId}/change-requests/${crId}/comments`, { body: { markdown: `c${i}` } })).body.id);
});
afterAll(() => t.stop());

const SELECTIONS = ['restId', 'restId body { markdown }', 'restId body { document }', 'restId body { markdown document }'];
const page = async (selection: string, after?: string, format?: string) =>
  (
    await t.data(
      `query($s: String!, $cr: String!, $after: String, $format: ContentFormat) { changeRequest(spaceId: $s, changeRequestId: $cr) {
        comments(first: 1, after: $after, format: $format) { edges { cursor node { ${selection} } } } } }`,
      { s: spaceId, cr: crId, after, format },
    )
  ).changeRequest.comments.edges as Array<{ cursor: string; node: { restId: string } }>;

it.each(SELECTIONS.flatMap((first) => SELECTIONS.map((next) => [first, next])))('a cursor of `%s` pages `%s`', async (first, next) => {
  const [edge] = await page(first);
  expect(edge.node.restId).toBe(ids[0]);
  expect((await page(next, edge.cursor)).map((e) => e.node.restId)).toEqual([ids[1]]);
});

it('a cursor read under one `format` argument pages under another', async () => {
  const [edge] = await page('restId', undefined, 'MARKDOWN');
  expect((await page('restId', edge.cursor, 'DOCUMENT')).map((e) => e.node.restId)).toEqual([ids[1]]);
});

it('a cursor inside a page resumes after its item where REST cuts pages of documents sooner', async () => {
  // 24 KB of markdown each, some 300 KB as a document: REST's 1 MB pages hold all ten as markdown
  // and five as documents, so the page the cursor was made on is cut before its item.
  const cr = (await t.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Long bodies' })).body.id as string;
  const long: string[] = [];
  for (let i = 0; i < 12; i++)
    long.unshift(
      (await t.api.post(`/spaces/${spaceId}/change-requests/${cr}/comments`, { body: { markdown: '*a* '.repeat(6000) } })).body.id,
    );
  const comments = async (selection: string, first: number, after?: string) =>
    (
      await t.data(
        `query($s: String!, $cr: String!, $first: Int, $after: String) { changeRequest(spaceId: $s, changeRequestId: $cr) {
          comments(first: $first, after: $after) { edges { cursor node { ${selection} } } } } }`,
        { s: spaceId, cr, first, after },
      )
    ).changeRequest.comments.edges as Array<{ cursor: string; node: { restId: string } }>;
  const ten = await comments('restId', 10);
  expect(ten.map((e) => e.node.restId)).toEqual(long.slice(0, 10));
  t.resetCalls();
  const next = await comments('restId body { document }', 3, ten[6].cursor);
  expect(next.map((e) => e.node.restId)).toEqual(long.slice(7, 10));
  // The cut page before the item and the one it is on, not a walk from the start.
  expect(t.calls.length).toBe(2);
});
