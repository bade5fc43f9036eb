/**
 * A cursor of a list of bodies stays good whatever body format the next page selects: the gateway
 * asks REST for the format a selection needs, and REST's pages are the same in every format (a
 * "load more" query selecting `body { markdown }` after a first page of ids was refused as
 * "not a cursor of this connection").
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
