/**
 * The flagship query: organization → spaces → change requests → comments → replies in one round
 * trip, with the fewest REST calls (one per list, none twice, none for a listed object) and the
 * calls of one depth running concurrently.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from '../helpers/gateway.js';

const SPACES = 3;
const CHANGE_REQUESTS = 2;
const COMMENTS = 2;
const REPLIES = 2;

/** Spaces with open change requests, comments and replies, made through REST (one level at a time, in parallel). */
async function seed(t: TestStack) {
  const edit = t.api.as(t.world.users.edit.token);
  const review = t.api.as(t.world.users.review.token);
  const times = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));
  const spaces = await times(SPACES, async (i) => {
    const id = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: `Space ${i}` })).body.id;
    await t.api.patch(`/spaces/${id}`, { defaultLevel: 'admin' });
    return id;
  });
  const crs = (
    await Promise.all(
      spaces.map((s) =>
        times(CHANGE_REQUESTS, async (i) => {
          const cr = (await edit.post(`/spaces/${s}/change-requests`, { subject: `CR ${i}` })).body;
          await edit.patch(`/spaces/${s}/change-requests/${cr.id}`, { status: 'open' });
          return `/spaces/${s}/change-requests/${cr.id}/comments`;
        }),
      ),
    )
  ).flat();
  const comments = (
    await Promise.all(
      crs.map((base) =>
        times(COMMENTS, async (i) => `${base}/${(await review.post(base, { body: { markdown: `Comment ${i}` } })).body.id}`),
      ),
    )
  ).flat();
  await Promise.all(comments.map((c) => times(REPLIES, (i) => edit.post(`${c}/replies`, { body: { markdown: `Reply ${i}` } }))));
}

const NESTED = `query($org: String!) {
  organization(organizationId: $org) {
    restId title
    spaces(first: 10) { nodes { restId title changeRequestsOpenCount
      changeRequests(first: 10) { nodes { id restId number subject status commentsCount createdBy { restId displayName } space { restId }
        comments(first: 10, order: ASC) { nodes { id restId postedBy { restId } body { document } repliesCount status
          changeRequest { number } target { space { title } changeRequest { subject } }
          replies(first: 10, format: MARKDOWN) { nodes { id restId postedBy { displayName } body { markdown } comment { restId } } }
        } }
      } }
    } }
  }
}`;

/** The same tree read through REST. */
async function restTree(t: TestStack) {
  const org = (await t.api.get(`/orgs/${t.world.orgId}`)).body;
  const spaces = (await t.api.all(`/orgs/${t.world.orgId}/spaces`)).items;
  return {
    restId: org.id,
    title: org.title,
    spaces: {
      nodes: await Promise.all(
        spaces.map(async (s: any) => ({
          restId: s.id,
          title: s.title,
          changeRequestsOpenCount: s.changeRequestsOpen,
          changeRequests: {
            nodes: await Promise.all(
              (await t.api.all(`/spaces/${s.id}/change-requests`)).items.map(async (cr: any) => {
                const base = `/spaces/${s.id}/change-requests/${cr.id}/comments`;
                return {
                  id: expect.any(String),
                  restId: cr.id,
                  number: cr.number,
                  subject: cr.subject,
                  status: 'OPEN',
                  commentsCount: cr.comments,
                  createdBy: { restId: cr.createdBy.id, displayName: cr.createdBy.displayName },
                  space: { restId: s.id },
                  comments: {
                    nodes: await Promise.all(
                      (await t.api.all(base, { order: 'asc' })).items.map(async (c: any) => ({
                        id: expect.any(String),
                        restId: c.id,
                        postedBy: { restId: c.postedBy.id },
                        body: { document: c.body.document },
                        repliesCount: c.replies,
                        status: 'OPEN',
                        changeRequest: { number: cr.number },
                        target: { space: { title: s.title }, changeRequest: { subject: cr.subject } },
                        replies: {
                          nodes: (await t.api.all(`${base}/${c.id}/replies`, { format: 'markdown' })).items.map((r: any) => ({
                            id: expect.any(String),
                            restId: r.id,
                            postedBy: { displayName: r.postedBy.displayName },
                            body: { markdown: r.body.markdown },
                            comment: { restId: c.id },
                          })),
                        },
                      })),
                    ),
                  },
                };
              }),
            ),
          },
        })),
      ),
    },
  };
}

/** Exactly one GET per list of the tree (and the organization), in any order. */
async function expectedCalls(t: TestStack) {
  const org = t.world.orgId;
  const out = [`GET /orgs/${org}`, `GET /orgs/${org}/spaces`];
  for (const s of (await t.api.all(`/orgs/${org}/spaces`)).items) {
    out.push(`GET /spaces/${s.id}/change-requests`);
    for (const cr of (await t.api.all(`/spaces/${s.id}/change-requests`)).items) {
      const base = `/spaces/${s.id}/change-requests/${cr.id}/comments`;
      out.push(`GET ${base}`);
      for (const c of (await t.api.all(base)).items) out.push(`GET ${base}/${c.id}/replies`);
    }
  }
  return out.sort();
}

const callsOf = (t: TestStack) => t.calls.map((c) => `${c.method} ${c.path}`).sort();

describe('organization → spaces → change requests → comments → replies', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startStack();
    await seed(t);
  });
  afterAll(() => t.stop());

  it('returns the same data as REST, with one REST call per list and none for a listed object', async () => {
    t.resetCalls();
    const data = await t.data(NESTED, { org: t.world.orgId });
    const calls = callsOf(t);
    expect(data.organization).toEqual(await restTree(t));
    expect(data.organization.spaces.nodes).toHaveLength(SPACES);
    const replies = data.organization.spaces.nodes.flatMap((s: any) =>
      s.changeRequests.nodes.flatMap((cr: any) => cr.comments.nodes.flatMap((c: any) => c.replies.nodes)),
    );
    expect(replies).toHaveLength(SPACES * CHANGE_REQUESTS * COMMENTS * REPLIES);
    // No user, space, change request or comment fetched on its own; no call made twice.
    expect(calls).toEqual(await expectedCalls(t));
    expect(calls).toHaveLength(2 + SPACES * (1 + CHANGE_REQUESTS * (1 + COMMENTS)));
    expect(new Set(calls).size).toBe(calls.length);
  });

  it('node(id) round-trips what the nested query listed', async () => {
    const data = await t.data(NESTED, { org: t.world.orgId });
    const cr = data.organization.spaces.nodes[0].changeRequests.nodes[0];
    const comment = cr.comments.nodes[0];
    const reply = comment.replies.nodes[1];
    const res = await t.data(
      `query($ids: [ID!]!) { nodes(ids: $ids) { id
        ... on ChangeRequest { restId subject }
        ... on Comment { restId repliesCount }
        ... on CommentReply { restId body(format: MARKDOWN) { markdown } comment { id } } } }`,
      { ids: [cr.id, comment.id, reply.id] },
    );
    expect(res.nodes).toEqual([
      { id: cr.id, restId: cr.restId, subject: cr.subject },
      { id: comment.id, restId: comment.restId, repliesCount: REPLIES },
      { id: reply.id, restId: reply.restId, body: reply.body, comment: { id: comment.id } },
    ]);
  });
});

describe('concurrency', () => {
  const LATENCY_MS = 100;
  /** spaces (the organization's own GET beside it); change requests; comments; replies. */
  const DEPTH = 4;
  let t: TestStack;
  beforeAll(async () => {
    t = await startStack({}, { latencyMs: LATENCY_MS });
    await seed(t);
  });
  afterAll(() => t.stop());

  it('the calls of one depth run concurrently: as many round trips one after another as the depth', async () => {
    t.resetCalls();
    await t.data(NESTED, { org: t.world.orgId });
    const calls = t.calls.length;
    expect(calls).toBe(2 + SPACES * (1 + CHANGE_REQUESTS * (1 + COMMENTS)));
    // 4 round trips one after another (the calls of one depth overlap: the upstream holds each
    // 100 ms); one call after the other would make 23.
    expect(t.rounds()).toBe(DEPTH);
  });
});
