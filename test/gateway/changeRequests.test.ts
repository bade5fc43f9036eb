import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editChangeRequestPages } from '../../src/upstream/content/merge.js';
import { pagesOf } from '../../src/upstream/content/revisions.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { restUrls, urls } from './urls.js';

let t: TestStack;
beforeAll(async () => {
  t = await startStack();
});
afterAll(() => t.stop());

/** A space where each acme member has their organization role. */
async function newSpace(title: string): Promise<string> {
  const created = await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title });
  expect(created.status).toBe(201);
  expect((await t.api.patch(`/spaces/${created.body.id}`, { defaultLevel: 'admin' })).status).toBe(200);
  return created.body.id;
}

async function newChangeRequest(spaceId: string, subject: string, status?: string, token = t.world.users.edit.token) {
  const res = await t.api.as(token).post(`/spaces/${spaceId}/change-requests`, { subject });
  expect(res.status).toBe(201);
  if (!status) return res.body;
  return (await t.api.patch(`/spaces/${spaceId}/change-requests/${res.body.id}`, { status })).body;
}

const calls = () => t.calls.map((c) => `${c.method} ${c.path}`);

const CR_FIELDS = `id restId number status subject createdAt updatedAt revision revisionInitial revisionMergedAncestor
  revisionMerged commentsCount outdated ${urls('ChangeRequest')} createdBy { id restId displayName email } space { restId title }`;

/** What the graph should show for a REST change request. */
const expected = (cr: any) => ({
  restId: cr.id,
  number: cr.number,
  status: cr.status.toUpperCase(),
  subject: cr.subject,
  createdAt: cr.createdAt,
  updatedAt: cr.updatedAt,
  revision: cr.revision,
  revisionInitial: cr.revisionInitial,
  revisionMergedAncestor: cr.revisionMergedAncestor ?? null,
  revisionMerged: cr.revisionMerged ?? null,
  commentsCount: cr.comments,
  outdated: cr.outdated,
  urls: restUrls('ChangeRequest', cr.urls),
  createdBy: { id: expect.any(String), restId: cr.createdBy.id, displayName: cr.createdBy.displayName, email: cr.createdBy.email },
});

describe('ChangeRequest reads', () => {
  let spaceId: string;
  let cr: any;
  beforeAll(async () => {
    spaceId = await newSpace('Reads');
    cr = await newChangeRequest(spaceId, 'Read me', 'open');
  });

  it('changeRequest(spaceId, changeRequestId) equals REST, with one call for it and one for its space', async () => {
    t.resetCalls();
    const data = await t.data(`query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) { ${CR_FIELDS} } }`, {
      s: spaceId,
      c: cr.id,
    });
    const rest = (await t.api.get(`/spaces/${spaceId}/change-requests/${cr.id}`)).body;
    expect(data.changeRequest).toMatchObject({ ...expected(rest), space: { restId: spaceId, title: 'Reads' } });
    // createdBy is the user REST embeds: no GET /users/{id}.
    expect(calls().sort()).toEqual([`GET /spaces/${spaceId}`, `GET /spaces/${spaceId}/change-requests/${cr.id}`]);
  });

  it('a change request looked up by number has the same global id; node(id) round-trips it', async () => {
    const q = `query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) { id restId number } }`;
    const byNumber = await t.data(q, { s: spaceId, c: String(cr.number) });
    const byId = await t.data(q, { s: spaceId, c: cr.id });
    expect(byNumber.changeRequest).toEqual(byId.changeRequest);
    t.resetCalls();
    const node = await t.data('query($id: ID!) { node(id: $id) { id ... on ChangeRequest { restId subject } } }', {
      id: byId.changeRequest.id,
    });
    expect(node.node).toEqual({ id: byId.changeRequest.id, restId: cr.id, subject: 'Read me' });
    expect(calls()).toEqual([`GET /spaces/${spaceId}/change-requests/${cr.id}`]);
  });

  it('pdfUrl gives a working PDF URL; a bad argument fails only that field', async () => {
    const pageId = pagesOf(t.upstream.db, cr.revision)[0].page_id;
    const data = await t.data(
      `query($s: String!, $c: String!, $p: String!) { changeRequest(spaceId: $s, changeRequestId: $c) {
        all: pdfUrl one: pdfUrl(only: true, page: $p) } }`,
      { s: spaceId, c: cr.id, p: pageId },
    );
    for (const url of [data.changeRequest.all, data.changeRequest.one]) {
      expect(url.startsWith(`${t.url}/spaces/${spaceId}/change-requests/${cr.id}/pdf/render?token=`)).toBe(true);
      const pdf = await fetch(url);
      expect(pdf.status).toBe(200);
      expect(pdf.headers.get('content-type')).toBe('application/pdf');
    }
    const res = await t.gql(
      `query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) { subject pdfUrl(only: true) } }`,
      {
        s: spaceId,
        c: cr.id,
      },
    );
    expect(res.data?.changeRequest).toEqual({ subject: 'Read me', pdfUrl: null });
    expect(res.errors).toHaveLength(1);
    expect(res.errors?.[0]).toMatchObject({ path: ['changeRequest', 'pdfUrl'], extensions: { code: 'BAD_USER_INPUT' } });
  });

  it('an unknown change request is NOT_FOUND; an outsider gets NOT_FOUND; the rest of the query resolves', async () => {
    const res = await t.gql(
      `query($s: String!) { space(spaceId: $s) { title } changeRequest(spaceId: $s, changeRequestId: "99") { subject } }`,
      {
        s: spaceId,
      },
    );
    expect(res.data).toEqual({ space: { title: 'Reads' }, changeRequest: null });
    expect(res.errors?.[0]).toMatchObject({ path: ['changeRequest'], extensions: { code: 'NOT_FOUND' } });
    const outsider = await t.gql(
      `query($s: String!, $c: String!) { viewer { restId } changeRequest(spaceId: $s, changeRequestId: $c) { subject } }`,
      { s: spaceId, c: cr.id },
      t.world.users.outsider.token,
    );
    expect(outsider.data).toEqual({ viewer: { restId: t.world.users.outsider.id }, changeRequest: null });
    expect(outsider.errors?.[0]).toMatchObject({ path: ['changeRequest'], extensions: { code: 'NOT_FOUND' } });
  });
});

describe('Space.changeRequests', () => {
  let spaceId: string;
  const open: any[] = [];
  beforeAll(async () => {
    spaceId = await newSpace('Lists');
    for (let i = 0; i < 7; i++) {
      const token = i % 2 ? t.world.users.admin.token : t.world.users.edit.token;
      open.push(await newChangeRequest(spaceId, `CR ${i}`, 'open', token));
    }
    await newChangeRequest(spaceId, 'Draft one');
    await newChangeRequest(spaceId, 'Archived one', 'archived');
  });

  const LIST = `query($s: String!, $first: Int, $after: String, $status: ChangeRequestStatus, $contributor: String) {
    space(spaceId: $s) { changeRequests(first: $first, after: $after, status: $status, contributor: $contributor) {
      edges { cursor node { restId subject status } } pageInfo { hasNextPage endCursor } } } }`;

  it('walks the open change requests to the end in REST order, no gap, no duplicate, one list call per page', async () => {
    const rest = await t.api.all(`/spaces/${spaceId}/change-requests`);
    expect(rest.items).toHaveLength(7);
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      t.resetCalls();
      const conn = (await t.data(LIST, { s: spaceId, first: 3, after })).space.changeRequests;
      pages++;
      seen.push(...conn.edges.map((e: any) => e.node.restId));
      expect(conn.edges.every((e: any) => e.node.status === 'OPEN')).toBe(true);
      expect(calls().filter((c) => c.endsWith('/change-requests'))).toHaveLength(1);
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(rest.items.map((c: any) => c.id));
  });

  it('status and contributor filter as in REST', async () => {
    const draft = (await t.data(LIST, { s: spaceId, status: 'DRAFT' })).space.changeRequests.edges.map((e: any) => e.node.subject);
    expect(draft).toEqual(['Draft one']);
    const archived = (await t.data(LIST, { s: spaceId, status: 'ARCHIVED' })).space.changeRequests.edges;
    expect(archived.map((e: any) => e.node)).toEqual([expect.objectContaining({ subject: 'Archived one', status: 'ARCHIVED' })]);
    const byAdmin = await t.data(LIST, { s: spaceId, contributor: t.world.users.admin.id });
    const rest = await t.api.all(`/spaces/${spaceId}/change-requests`, { contributor: t.world.users.admin.id });
    expect(byAdmin.space.changeRequests.edges.map((e: any) => e.node.restId)).toEqual(rest.items.map((c: any) => c.id));
    expect(rest.items).toHaveLength(3);
  });

  it('a listed change request costs no further call: its space, author and fields come from the list', async () => {
    t.resetCalls();
    const data = await t.data(`query($s: String!) { space(spaceId: $s) { changeRequests(first: 2) { nodes { ${CR_FIELDS} } } } }`, {
      s: spaceId,
    });
    const rest = (await t.api.get(`/spaces/${spaceId}/change-requests`, { limit: 2 })).body.items;
    expect(data.space.changeRequests.nodes).toEqual(
      rest.map((cr: any) => ({ id: expect.any(String), ...expected(cr), space: { restId: spaceId, title: 'Lists' } })),
    );
    expect(calls().sort()).toEqual([`GET /spaces/${spaceId}`, `GET /spaces/${spaceId}/change-requests`]);
  });
});

const LIFE = `query($s: String!, $c: String!) {
  changeRequest(spaceId: $s, changeRequestId: $c) { status subject outdated revision revisionMergedAncestor revisionMerged }
  space(spaceId: $s) { revision changeRequestsCount changeRequestsOpenCount changeRequestsDraftCount } }`;

const CR_PAYLOAD = `clientMutationId changeRequest { id restId number status subject outdated revisionMergedAncestor revisionMerged }
  space { revision changeRequestsOpenCount changeRequestsDraftCount }`;

describe('change request life cycle through mutations', () => {
  let spaceId: string;
  let crId: string;
  let gid: string;
  const state = async () => (await t.data(LIFE, { s: spaceId, c: crId })) as any;
  const keys = () => ({ spaceId, changeRequestId: crId });
  const run = (name: string, input: Record<string, unknown>, token?: string) => t.payload(name, input, CR_PAYLOAD, token);

  beforeAll(async () => {
    spaceId = await newSpace('Life');
  });

  it('createChangeRequest makes a draft; the payload space counts it', async () => {
    const before = await t.data('query($s: String!) { space(spaceId: $s) { changeRequestsDraftCount } }', { s: spaceId });
    expect(before.space.changeRequestsDraftCount).toBe(0);
    const res = await run('createChangeRequest', { spaceId, subject: 'Life', clientMutationId: 'c1' }, t.world.users.edit.token);
    expect(res).toMatchObject({ clientMutationId: 'c1', changeRequest: { number: 1, status: 'DRAFT', subject: 'Life' } });
    expect(res.space.changeRequestsDraftCount).toBe(1);
    crId = res.changeRequest.restId;
    gid = res.changeRequest.id;
    expect((await state()).changeRequest).toMatchObject({ status: 'DRAFT', subject: 'Life', outdated: false });
    expect((await t.api.get(`/spaces/${spaceId}/change-requests/${crId}`)).body.createdBy.id).toBe(t.world.users.edit.id);
  });

  it('updateChangeRequest edits the subject (100 characters is the limit)', async () => {
    const subject = 's'.repeat(100);
    const res = await run('updateChangeRequest', { ...keys(), subject });
    expect(res.changeRequest).toMatchObject({ id: gid, subject, status: 'DRAFT' });
    expect((await state()).changeRequest.subject).toBe(subject);
    await run('updateChangeRequest', { ...keys(), subject: 'Life, edited' });
    expect((await state()).changeRequest.subject).toBe('Life, edited');
  });

  it('moves open → draft → open → archived → open, the space counting each status', async () => {
    const steps: Array<[string, Record<string, unknown>, string, number, number]> = [
      ['updateChangeRequest', { status: 'OPEN' }, 'OPEN', 1, 0],
      ['markChangeRequestDraft', {}, 'DRAFT', 0, 1],
      ['reopenChangeRequest', {}, 'OPEN', 1, 0],
      ['archiveChangeRequest', {}, 'ARCHIVED', 0, 0],
      ['reopenChangeRequest', {}, 'OPEN', 1, 0],
    ];
    for (const [name, extra, status, openCount, draftCount] of steps) {
      const res = await run(name, { ...keys(), ...extra });
      expect(res.changeRequest.status).toBe(status);
      expect(res.space).toMatchObject({ changeRequestsOpenCount: openCount, changeRequestsDraftCount: draftCount });
      const now = await state();
      expect(now.changeRequest.status).toBe(status);
      expect(now.space).toMatchObject({ changeRequestsOpenCount: openCount, changeRequestsDraftCount: draftCount });
      expect((await t.api.get(`/spaces/${spaceId}/change-requests/${crId}`)).body.status).toBe(status.toLowerCase());
    }
  });

  it('updateChangeRequestFromMain pulls a merged sibling in: outdated flips back to false', async () => {
    const sibling = await newChangeRequest(spaceId, 'Sibling');
    editChangeRequestPages(
      t.upstream.db,
      sibling.id,
      t.world.users.edit.id,
      [{ title: 'FAQ', markdown: 'Questions.' }],
      t.clock.now().toISOString(),
    );
    const merged = (await t.api.post(`/spaces/${spaceId}/change-requests/${sibling.id}/merge`)).body;
    const before = await state();
    expect(before.changeRequest.outdated).toBe(true);
    expect(before.space.revision).toBe(merged.revision);

    const res = (
      await t.data(
        `mutation($input: UpdateChangeRequestFromMainInput!) { updateChangeRequestFromMain(input: $input) { revision changeRequest { outdated revision revisionMergedAncestor } } }`,
        { input: keys() },
      )
    ).updateChangeRequestFromMain;
    expect(res).toEqual({
      revision: expect.any(String),
      changeRequest: { outdated: false, revision: res.revision, revisionMergedAncestor: merged.revision },
    });
    expect((await state()).changeRequest).toMatchObject({
      outdated: false,
      revision: res.revision,
      revisionMergedAncestor: merged.revision,
    });
    expect(pagesOf(t.upstream.db, res.revision).map((p) => p.title)).toContain('FAQ');
  });

  it('mergeChangeRequest gives the space a new revision; merging twice is CONFLICT', async () => {
    const res = (
      await t.data(`mutation($input: MergeChangeRequestInput!) { mergeChangeRequest(input: $input) { revision ${CR_PAYLOAD} } }`, {
        input: keys(),
      })
    ).mergeChangeRequest;
    expect(res.changeRequest).toMatchObject({ id: gid, status: 'MERGED', revisionMerged: res.revision, outdated: false });
    expect(res.space.revision).toBe(res.revision);
    const now = await state();
    expect(now.changeRequest).toMatchObject({ status: 'MERGED', revisionMerged: res.revision });
    expect(now.space.revision).toBe(res.revision);

    t.resetCalls();
    const again = await t.gql(`mutation($input: MergeChangeRequestInput!) { mergeChangeRequest(input: $input) { revision } }`, {
      input: keys(),
    });
    expect(again.data).toEqual({ mergeChangeRequest: null });
    expect(again.errors?.[0]).toMatchObject({
      path: ['mergeChangeRequest'],
      extensions: { code: 'CONFLICT', upstream: { status: 409, method: 'POST' } },
    });
    expect(calls()).toEqual([`POST /spaces/${spaceId}/change-requests/${crId}/merge`]);
  });

  it('updateChangeRequestFromMain by number reads the number once, then writes by REST id', async () => {
    const other = await newChangeRequest(spaceId, 'Update by number');
    t.resetCalls();
    const res = (
      await t.data(
        `mutation($input: UpdateChangeRequestFromMainInput!) { updateChangeRequestFromMain(input: $input) { revision changeRequest { restId number } } }`,
        {
          input: { spaceId, changeRequestId: String(other.number) },
        },
      )
    ).updateChangeRequestFromMain;
    expect(res.changeRequest).toEqual({ restId: other.id, number: other.number });
    expect(calls().slice(0, 2)).toEqual([
      `GET /spaces/${spaceId}/change-requests/${other.number}`,
      `POST /spaces/${spaceId}/change-requests/${other.id}/update`,
    ]);
  });

  it('the change request is addressable by number in mutations', async () => {
    const other = await newChangeRequest(spaceId, 'By number');
    const res = await run('updateChangeRequest', { spaceId, changeRequestId: String(other.number), subject: 'Renamed by number' });
    expect(res.changeRequest).toMatchObject({ restId: other.id, subject: 'Renamed by number' });
  });
});

describe('change request mutation rules', () => {
  let spaceId: string;
  let crId: string;
  beforeAll(async () => {
    spaceId = await newSpace('Rules');
    crId = (await newChangeRequest(spaceId, 'Rules')).id;
  });

  const UPDATE = `mutation($input: UpdateChangeRequestInput!) { updateChangeRequest(input: $input) { changeRequest { subject } } }`;

  it('status MERGED and a subject over 100 characters are BAD_USER_INPUT before any REST call', async () => {
    t.resetCalls();
    const merged = await t.gql(UPDATE, { input: { spaceId, changeRequestId: crId, status: 'MERGED' } });
    expect(merged.errors?.[0]).toMatchObject({
      path: ['updateChangeRequest'],
      message: 'input.status: must be one of draft, open, archived',
      extensions: { code: 'BAD_USER_INPUT', field: 'input.status' },
    });
    const long = await t.gql(UPDATE, { input: { spaceId, changeRequestId: crId, subject: 's'.repeat(101) } });
    expect(long.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.subject' });
    const create = await t.gql(
      `mutation($input: CreateChangeRequestInput!) { createChangeRequest(input: $input) { changeRequest { id } } }`,
      {
        input: { spaceId, subject: 's'.repeat(101) },
      },
    );
    expect(create.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.subject' });
    const nullSubject = await t.gql(UPDATE, { input: { spaceId, changeRequestId: crId, subject: null } });
    expect(nullSubject.errors?.[0]).toMatchObject({ message: 'input.subject: must not be null' });
    expect(t.calls).toHaveLength(0);
  });

  it("a commenter's createChangeRequest is FORBIDDEN while their createComment in the same operation succeeds", async () => {
    const res = await t.gql(
      `mutation($cr: CreateChangeRequestInput!, $comment: CreateCommentInput!) {
        createChangeRequest(input: $cr) { changeRequest { id } }
        createComment(input: $comment) { comment { postedBy { restId } } changeRequest { commentsCount } }
      }`,
      { cr: { spaceId, subject: 'Nope' }, comment: { spaceId, changeRequestId: crId, body: { markdown: 'I may comment.' } } },
      t.world.users.comment.token,
    );
    expect(res.errors).toHaveLength(1);
    expect(res.errors?.[0]).toMatchObject({
      path: ['createChangeRequest'],
      extensions: { code: 'FORBIDDEN', upstream: { status: 403, method: 'POST', path: `/spaces/${spaceId}/change-requests` } },
    });
    expect(res.data).toEqual({
      createChangeRequest: null,
      createComment: { comment: { postedBy: { restId: t.world.users.comment.id } }, changeRequest: { commentsCount: 1 } },
    });
    const read = await t.gql(
      `mutation($input: CreateChangeRequestInput!) { createChangeRequest(input: $input) { changeRequest { id } } }`,
      {
        input: { spaceId },
      },
      t.world.users.read.token,
    );
    expect(read.errors?.[0]).toMatchObject({ path: ['createChangeRequest'], extensions: { code: 'FORBIDDEN' } });
  });

  it('writes in one operation each see the previous one (the loader forgets what a write changed)', async () => {
    const res = await t.data(
      `mutation($s: String!, $c: String!) {
        a: createChangeRequest(input: { spaceId: $s }) { changeRequest { number space { changeRequestsDraftCount } } }
        b: createChangeRequest(input: { spaceId: $s }) { changeRequest { number space { changeRequestsDraftCount } } }
        c: archiveChangeRequest(input: { spaceId: $s, changeRequestId: $c }) { changeRequest { status space { changeRequestsDraftCount } } }
      }`,
      { s: spaceId, c: crId },
    );
    const drafts = res.a.changeRequest.space.changeRequestsDraftCount;
    expect(res.b.changeRequest).toEqual({ number: res.a.changeRequest.number + 1, space: { changeRequestsDraftCount: drafts + 1 } });
    expect(res.c.changeRequest).toEqual({ status: 'ARCHIVED', space: { changeRequestsDraftCount: drafts } });
  });
});
