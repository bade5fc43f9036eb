/**
 * A cursor inside a REST page (a skip on the page's token) resumes after its own item when items
 * before it on that page were added, deleted, or the item itself was deleted: REST's keyset tokens
 * lose or repeat nothing then, and neither may the graph (an offset alone skipped or repeated one).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStack, type TestStack } from '../helpers/gateway.js';

let t: TestStack;
let spaceId: string;
let crId: string;
let base: string;

beforeAll(async () => {
  t = await startStack();
  spaceId = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Resume' })).body.id;
  crId = (await t.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Walk' })).body.id;
  base = `/spaces/${spaceId}/change-requests/${crId}/comments`;
});
afterAll(() => t.stop());

const REPLIES = `query($s: String!, $cr: String!, $c: String!, $first: Int, $after: String) {
  comment(spaceId: $s, changeRequestId: $cr, commentId: $c) {
    replies(first: $first, after: $after) { edges { cursor node { restId } } pageInfo { hasNextPage endCursor } } } }`;

async function thread(count: number) {
  const commentId = (await t.api.post(base, { body: { markdown: 'thread' } })).body.id as string;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await t.api.post(`${base}/${commentId}/replies`, { body: { markdown: `r${i}` } })).body.id);
  const replies = async (first: number, after?: string) =>
    (await t.data(REPLIES, { s: spaceId, cr: crId, c: commentId, first, after })).comment.replies;
  const remove = async (id: string) => expect((await t.api.delete(`${base}/${commentId}/replies/${id}`)).status).toBe(204);
  const add = async () => (await t.api.post(`${base}/${commentId}/replies`, { body: { markdown: 'new' } })).body.id as string;
  return { ids, replies, remove, add };
}

const restIds = (conn: { edges: Array<{ node: { restId: string } }> }) => conn.edges.map((e) => e.node.restId);

it('resumes after its own item when one before it on the page was deleted', async () => {
  const { ids, replies, remove } = await thread(6);
  const page = await replies(6);
  expect(restIds(page)).toEqual(ids);
  await remove(ids[1]);
  // The third edge's cursor: the fourth reply comes next, as it would from a REST token there.
  expect(restIds(await replies(2, page.edges[2].cursor))).toEqual([ids[3], ids[4]]);
});

it('resumes after the one before when its own item was deleted', async () => {
  const { ids, replies, remove } = await thread(6);
  const page = await replies(6);
  await remove(ids[2]);
  expect(restIds(await replies(2, page.edges[2].cursor))).toEqual([ids[3], ids[4]]);
});

it('a poll from the end cursor sees every reply added after items of its page went', async () => {
  const { ids, replies, remove, add } = await thread(3);
  const end = await replies(5);
  expect(end.pageInfo.hasNextPage).toBe(false);
  await remove(ids[0]);
  const added = [await add(), await add()];
  expect(restIds(await replies(5, end.pageInfo.endCursor))).toEqual(added);
});

const COMMENTS = `query($s: String!, $cr: String!, $first: Int, $after: String) {
  changeRequest(spaceId: $s, changeRequestId: $cr) { comments(first: $first, after: $after) { edges { cursor node { restId } } } } }`;

it('serves no item twice when one was added before it on its page (comments list newest first)', async () => {
  for (let i = 0; i < 5; i++) await t.api.post(base, { body: { markdown: `c${i}` } });
  const comments = async (first: number, after?: string) =>
    (await t.data(COMMENTS, { s: spaceId, cr: crId, first, after })).changeRequest.comments;
  const page = await comments(5);
  await t.api.post(base, { body: { markdown: 'newest' } });
  expect(restIds(await comments(2, page.edges[1].cursor))).toEqual(restIds(page).slice(2, 4));
});

const CHANGE_REQUESTS = `query($s: String!, $first: Int, $after: String) {
  space(spaceId: $s) { changeRequests(first: $first, after: $after, status: DRAFT) { edges { cursor node { restId } } } } }`;

it.each([
  ['its own item', 2],
  ['the item before it', 1],
])('resumes in place when an update moved %s to the front (change requests list latest updated first)', async (_what, moved) => {
  const space = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Moves' })).body.id;
  for (let i = 0; i < 5; i++) await t.api.post(`/spaces/${space}/change-requests`, { subject: `cr${i}` });
  const changeRequests = async (first: number, after?: string) =>
    (await t.data(CHANGE_REQUESTS, { s: space, first, after })).space.changeRequests;
  const page = await changeRequests(5);
  expect((await t.api.patch(`/spaces/${space}/change-requests/${page.edges[moved].node.restId}`, { subject: 'moved' })).status).toBe(200);
  expect(restIds(await changeRequests(2, page.edges[2].cursor))).toEqual(restIds(page).slice(3, 5));
});

const MEMBERS = `query($o: String!, $first: Int, $after: String) {
  organization(organizationId: $o) { members(first: $first, after: $after, sort: LAST_SEEN_AT, order: ASC) {
    edges { cursor node { restId } } } } }`;

it.each([
  ['its own member', 2],
  ['the member before it', 1],
])('resumes in place when a ping moved %s to the end (members by last seen, oldest first)', async (_what, moved) => {
  const members = async (first: number, after?: string) => (await t.data(MEMBERS, { o: t.world.orgId, first, after })).organization.members;
  const page = await members(100);
  expect(page.edges.length).toBeGreaterThanOrEqual(5);
  const mover = Object.values(t.world.users).find((u) => u.id === page.edges[moved].node.restId)!;
  expect((await t.api.as(mover.token).post(`/orgs/${t.world.orgId}/ping`, {})).status).toBe(200);
  // What follows the cursor: the members after it that stayed, then the mover at its new place.
  const stayed = restIds(page).slice(3);
  expect(restIds(await members(100, page.edges[2].cursor))).toEqual([...stayed, mover.id]);
});
