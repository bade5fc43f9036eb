/**
 * Content bodies follow the selection: `body { markdown }` returns markdown and `body { document }`
 * the document with no `format` argument, in lookups, lists and mutation payloads; REST is asked
 * for the format the selection needs, with one more call per object only when both are selected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from '../helpers/gateway.js';

let t: TestStack;
/** URLs (with their query) the upstream answered since the last reset. */
const urls: string[] = [];
let spaceId: string;
let crId: string;
let base: string;
let commentId: string;
beforeAll(async () => {
  t = await startStack({}, { log: (line) => urls.push(line.path) });
  spaceId = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Bodies' })).body.id;
  crId = (await t.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Bodies' })).body.id;
  base = `/spaces/${spaceId}/change-requests/${crId}/comments`;
  commentId = (await t.api.post(base, { body: { markdown: 'Hello **there**' } })).body.id;
});
afterAll(() => t.stop());

/** Runs `query` and answers its data and the comment calls made, as `METHOD path?format`. */
async function run(query: string, variables: Record<string, unknown> = {}) {
  t.resetCalls();
  urls.splice(0);
  const data = await t.data(query, { s: spaceId, c: crId, id: commentId, ...variables });
  await new Promise((r) => setImmediate(r));
  const formats = urls.filter((u) => u.includes('/comments')).map((u) => new URL(u, 'http://x').searchParams.get('format'));
  return { data, calls: t.calls.filter((c) => c.path.includes('/comments')).map((c) => `${c.method} ${c.path}`), formats };
}

const LOOKUP = (body: string) => `query($s: String!, $c: String!, $id: String!) {
  comment(spaceId: $s, changeRequestId: $c, commentId: $id) { restId body { ${body} } } }`;
const LIST = (body: string) => `query($s: String!, $c: String!) {
  changeRequest(spaceId: $s, changeRequestId: $c) { comments(first: 5) { nodes { restId body { ${body} } } } } }`;

describe('body { markdown } without a format argument', () => {
  it('in a lookup: one call, asking REST for markdown', async () => {
    const { data, calls, formats } = await run(LOOKUP('markdown'));
    expect(data.comment.body).toEqual({ markdown: 'Hello **there**' });
    expect(calls).toEqual([`GET ${base}/${commentId}`]);
    expect(formats).toEqual(['markdown']);
  });

  it('in a list: one list call, asking REST for markdown', async () => {
    const { data, calls, formats } = await run(LIST('markdown'));
    expect(data.changeRequest.comments.nodes).toEqual([{ restId: commentId, body: { markdown: 'Hello **there**' } }]);
    expect(calls).toEqual([`GET ${base}`]);
    expect(formats).toEqual(['markdown']);
  });

  it('in a mutation payload: the body in markdown (the write asks REST for that format: no read after it)', async () => {
    t.resetCalls();
    urls.splice(0);
    const payload = await t.payload(
      'createComment',
      { spaceId, changeRequestId: crId, body: { markdown: 'New *one*' } },
      'comment { body { markdown } }',
    );
    expect(payload.comment.body).toEqual({ markdown: 'New *one*' });
    await new Promise((r) => setImmediate(r));
    const comments = urls.filter((u) => u.includes('/comments'));
    expect(comments).toHaveLength(1);
    expect(new URL(comments[0], 'http://x').searchParams.get('format')).toBe('markdown');
  });
});

describe('body { markdown } through node(id:), nodes(ids:) and _entities', () => {
  /** The comment's global id, as the graph gives it. */
  const globalId = async () => (await run(LOOKUP('markdown').replace('restId', 'id'))).data.comment.id as string;

  it('node(id:): one call, asking REST for markdown (not the document, then markdown)', async () => {
    const id = await globalId();
    const { data, calls, formats } = await run(`query($g: ID!) { node(id: $g) { ... on Comment { restId body { markdown } } } }`, {
      g: id,
    });
    expect(data.node).toEqual({ restId: commentId, body: { markdown: 'Hello **there**' } });
    expect(calls).toEqual([`GET ${base}/${commentId}`]);
    expect(formats).toEqual(['markdown']);
  });

  it('nodes(ids:) with the id repeated, a space and a bad id: one comment call, each slot answered', async () => {
    const id = await globalId();
    const space = (await t.data(`query($s: String!) { space(spaceId: $s) { id } }`, { s: spaceId })).space.id;
    t.resetCalls();
    const res = await t.gql(
      `query($ids: [ID!]!) { nodes(ids: $ids) { __typename ... on Comment { body { markdown } } ... on Space { restId } } }`,
      { ids: [id, space, id, 'bm90IG91cnM='] },
    );
    expect(t.calls.filter((c) => c.path.includes('/comments')).map((c) => `${c.method} ${c.path}`)).toEqual([`GET ${base}/${commentId}`]);
    expect(res.data.nodes).toEqual([
      { __typename: 'Comment', body: { markdown: 'Hello **there**' } },
      { __typename: 'Space', restId: spaceId },
      { __typename: 'Comment', body: { markdown: 'Hello **there**' } },
      null,
    ]);
    expect(res.errors).toMatchObject([{ path: ['nodes', 3], extensions: { code: 'BAD_USER_INPUT' } }]);
  });

  it('_entities (a router fetching comments): one call, asking REST for markdown', async () => {
    const id = await globalId();
    const { data, calls, formats } = await run(
      `query($r: [_Any!]!) { _entities(representations: $r) { ... on Comment { restId body { markdown } } } }`,
      { r: [{ __typename: 'Comment', id }] },
    );
    expect(data._entities).toEqual([{ restId: commentId, body: { markdown: 'Hello **there**' } }]);
    expect(calls).toEqual([`GET ${base}/${commentId}`]);
    expect(formats).toEqual(['markdown']);
  });

  it('node(id:) of a comment that does not exist: NOT_FOUND at its path', async () => {
    const id = (await globalId()).replace(/=*$/, '');
    const missing = Buffer.from(Buffer.from(id, 'base64').toString().replace(commentId, 'nope')).toString('base64');
    const res = await t.gql(`query($g: ID!) { node(id: $g) { ... on Comment { body { markdown } } } }`, { g: missing });
    expect(res.errors).toMatchObject([{ path: ['node'], extensions: { code: 'NOT_FOUND' } }]);
  });
});

describe('body { document } and both formats', () => {
  it('document alone asks REST for its default (the document), whatever format argument was given', async () => {
    const { data, formats } = await run(LIST('document').replace('comments(first: 5)', 'comments(first: 5, format: MARKDOWN)'));
    expect(data.changeRequest.comments.nodes[0].body.document).toMatchObject({ object: 'document' });
    expect(data.changeRequest.comments.nodes[0].body).not.toHaveProperty('markdown');
    expect(formats[0]).toBeNull();
  });

  it('both formats: one more call per object, never more', async () => {
    const { data, calls } = await run(LOOKUP('markdown document'));
    expect(data.comment.body.markdown).toBe('Hello **there**');
    expect(data.comment.body.document).toMatchObject({ object: 'document' });
    expect(calls).toHaveLength(2);
  });
});
