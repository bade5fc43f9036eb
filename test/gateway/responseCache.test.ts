/**
 * The response cache in process (no Redis): a hit answers without any REST call and says so in
 * `extensions.responseCache.hit`; each caller has its own entries; a mutation makes every cached
 * result holding what it changed a miss (payload nodes, `deletedId`, the lists a create or delete
 * changes), even when the client never selected an `id`; errors are never cached.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '../../src/api/roles.js';
import { getNamedType, type GraphQLInputObjectType } from 'graphql';
import { defaultEntryBytes } from '../../src/gateway/lib/responseCacheStores.js';
import { ACCESS_WRITES, USER_ACCESS_WRITES } from '../../src/gateway/plugins/useResponseCache.js';
import { schema } from '../../src/schema/index.js';
import { insertSiteSpace } from '../../src/upstream/domain/siteSpaces.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { cachedRead as readTwice, CR, newReader, revoked as refused } from '../helpers/cachedReads.js';
import { waitFor } from '../helpers/redis.js';
import { keyOf, newSite } from './siteFixture.js';

const SPACE = `query($spaceId: String!) { space(spaceId: $spaceId) { title permissions { admin edit } } }`;
const SPACES = `query($org: String!) { organization(organizationId: $org) { spaces(first: 50) { nodes { title } } } }`;

describe('response cache (in process)', () => {
  let t: TestStack;
  let spaceId: string;
  const hits: boolean[] = [];

  beforeAll(async () => {
    t = await startStack({ responseCacheTtlMs: 60_000, onResponseCache: (hit) => hits.push(hit) });
    spaceId = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Cached' })).body.id;
  });
  afterAll(() => t?.stop());
  beforeEach(() => {
    t.resetCalls();
    hits.splice(0);
  });
  /** A POST of the admin's with this body text, as sent (JSON.stringify has no spelling for some of what a client may send). */
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.world.users.admin.token}`, ...headers },
      body,
    });

  it('an operation refused at execution (its cost) writes nothing to stderr, and is not kept', async () => {
    const warnings = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const costly = `{ organization(organizationId: "${t.world.orgId}") { spaces(first: 100) { nodes { organization {
        spaces(first: 100) { nodes { organization { members(first: 100) { nodes { organization { restId } } } } } } } } } } }`;
      for (let i = 0; i < 2; i++) {
        const refused = await t.gql(costly);
        expect(refused.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxCost' });
        expect(refused.extensions?.responseCache?.hit).not.toBe(true);
      }
      expect(warnings.mock.calls).toEqual([]);
    } finally {
      warnings.mockRestore();
    }
  });

  it('answers a repeated query from the cache, with no REST call, and marks it', async () => {
    const first = await t.gql(SPACE, { spaceId });
    expect(first.data.space).toEqual({ title: 'Cached', permissions: { admin: true, edit: true } });
    expect(first.extensions?.responseCache).toMatchObject({ hit: false, didCache: true });
    expect(t.calls.length).toBeGreaterThan(0);
    // A first stored result of the token: the gateway asks whose it is (GET /user) in the background.
    await waitFor(() => t.calls.some((c) => c.path === '/user'), 'the user lookup');
    t.resetCalls();
    const second = await t.gql(SPACE, { spaceId });
    expect(second.data).toEqual(first.data);
    expect(second.extensions?.responseCache).toMatchObject({ hit: true });
    expect(t.calls).toEqual([]);
    expect(hits).toEqual([false, true]);
  });

  it('keeps no result larger than its share of the heap (an eighth of the heap limit over its 1,000 entries)', async () => {
    const entryBytes = defaultEntryBytes(1000);
    const cr = (await t.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Large' })).body;
    await t.api.post(`/spaces/${spaceId}/change-requests/${cr.id}/comments`, { body: { markdown: 'x'.repeat(entryBytes + 50_000) } });
    const large = `query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) { comments(first: 1) { nodes { body { markdown } } } } }`;
    const read = () => t.gql(large, { s: spaceId, c: cr.id });
    expect((await read()).data.changeRequest.comments.nodes[0].body.markdown).toHaveLength(entryBytes + 50_000);
    t.resetCalls();
    // Not kept: the same query runs again, with its REST calls.
    expect((await read()).extensions?.responseCache?.hit).toBe(false);
    expect(t.calls.length).toBeGreaterThan(0);
    // A small result of the same change request is kept.
    const small = `query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) { subject } }`;
    await t.gql(small, { s: spaceId, c: cr.id });
    expect((await t.gql(small, { s: spaceId, c: cr.id })).extensions?.responseCache?.hit).toBe(true);
  });

  it('keeps each caller to its own entries (another token, no token)', async () => {
    await t.gql(SPACE, { spaceId });
    t.resetCalls();
    const reader = await t.gql(SPACE, { spaceId }, t.world.users.read.token);
    expect(reader.extensions?.responseCache).toMatchObject({ hit: false });
    expect(reader.data.space.permissions).toEqual({ admin: false, edit: false });
    expect(t.calls.length).toBeGreaterThan(0);
    const anonymous = await t.gql(SPACE, { spaceId }, null);
    expect(anonymous.extensions?.responseCache?.hit).not.toBe(true);
  });

  it('an operation name "" is not the absent one: a request naming it is refused, not answered from the cache', async () => {
    const named = `query Named { space(spaceId: "${spaceId}") { title } }`;
    await post(JSON.stringify({ query: named }));
    expect((await (await post(JSON.stringify({ query: named, operationName: null }))).json()).extensions?.responseCache?.hit).toBe(true);
    const res = await post(JSON.stringify({ query: named, operationName: '' }));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.data).toBeUndefined();
    expect(body.errors[0]).toMatchObject({
      message: 'Could not determine what operation to execute.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('variables that differ only in a number JSON has no spelling for (1e400 is not null) have keys of their own', async () => {
    const query = JSON.stringify(
      `query($n: Int) { organization(organizationId: "${t.world.orgId}") { spaces(first: $n) { nodes { title } } } }`,
    );
    const send = async (variables: string) => (await post(`{"query":${query},"variables":${variables}}`)).json();
    expect((await send('{"n":null}')).data.organization.spaces.nodes.length).toBeGreaterThan(0);
    expect((await send('{"n":null}')).extensions?.responseCache?.hit).toBe(true);
    for (const huge of ['{"n":1e400}', '{"n":-1e400}']) {
      t.resetCalls();
      const refused = await send(huge);
      expect(refused.data).toBeUndefined();
      expect(refused.errors[0]).toMatchObject({
        message: expect.stringContaining('Int cannot represent non-integer value: '),
        extensions: { code: 'BAD_USER_INPUT' },
      });
      expect(t.calls).toEqual([]);
    }
  });

  it('a `@defer` result cached for a client that takes incremental results is not the answer to one that takes none', async () => {
    const body = JSON.stringify({ query: `{ space(spaceId: "${spaceId}") { title ... @defer { restId } } }` });
    for (const hit of [false, true]) {
      const res = await post(body, { accept: 'multipart/mixed' });
      expect(res.status).toBe(200);
      // The first result incremental (its parts), the second one whole, from the cache.
      expect((await res.text()).includes('"responseCache":{"hit":true}')).toBe(hit);
    }
    t.resetCalls();
    const refused = await post(body, { accept: 'application/json' });
    expect(refused.status).toBe(406);
    expect((await refused.json()).errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT' });
    expect(t.calls).toEqual([]);
  });

  it('never caches a result with errors', async () => {
    for (let i = 0; i < 2; i++) {
      t.resetCalls();
      const res = await t.gql(SPACE, { spaceId: 'no-such-space' });
      expect(res.errors?.[0].extensions?.code).toBe('NOT_FOUND');
      expect(res.extensions?.responseCache?.hit).not.toBe(true);
      expect(t.calls.length).toBeGreaterThan(0);
    }
  });

  it('a mutation whose payload selects nothing of the object still invalidates it (by its input ids)', async () => {
    await t.gql(SPACE, { spaceId });
    expect((await t.gql(SPACE, { spaceId })).extensions?.responseCache.hit).toBe(true);
    await t.payload('updateSpace', { spaceId, title: 'Renamed' }, 'clientMutationId');
    t.resetCalls();
    const after = await t.gql(SPACE, { spaceId });
    expect(after.extensions?.responseCache.hit).toBe(false);
    expect(after.data.space.title).toBe('Renamed');
    expect(t.calls.length).toBeGreaterThan(0);
  });

  it("a write naming a change request by its number forgets every caller's results holding it by its REST id", async () => {
    const cr = (await t.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Numbered' })).body;
    const comment = (await t.api.post(`/spaces/${spaceId}/change-requests/${cr.id}/comments`, { body: { markdown: 'First' } })).body;
    const READ = `query($s: String!, $c: String!, $comment: String!) { changeRequest(spaceId: $s, changeRequestId: $c) { subject }
      comment(spaceId: $s, changeRequestId: $c, commentId: $comment, format: MARKDOWN) { body { markdown } } }`;
    const reader = t.world.users.read.token;
    const read = () => t.gql(READ, { s: spaceId, c: cr.id, comment: comment.id }, reader);
    await read();
    expect((await read()).extensions?.responseCache.hit).toBe(true);
    // The writer names the change request by its number, as REST allows; the payload selects nothing of it.
    const number = String(cr.number);
    await t.payload('updateChangeRequest', { spaceId, changeRequestId: number, subject: 'Renamed by number' }, 'clientMutationId');
    const renamed = await read();
    expect(renamed.extensions?.responseCache.hit).toBe(false);
    expect(renamed.data.changeRequest.subject).toBe('Renamed by number');
    expect((await read()).extensions?.responseCache.hit).toBe(true);
    const keys = { spaceId, changeRequestId: number, commentId: comment.id };
    await t.payload('updateComment', { ...keys, body: { markdown: 'Edited by number' } }, 'clientMutationId');
    const edited = await read();
    expect(edited.extensions?.responseCache.hit).toBe(false);
    expect(edited.data.comment.body.markdown).toBe('Edited by number');
  });

  it('a write forgets the object its input names by all its keys (a reply), though the payload selects none of it', async () => {
    const cr = (await t.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Replies' })).body;
    const comments = `/spaces/${spaceId}/change-requests/${cr.id}/comments`;
    const comment = (await t.api.post(comments, { body: { markdown: 'A comment' } })).body;
    const reply = (await t.api.post(`${comments}/${comment.id}/replies`, { body: { markdown: 'A reply' } })).body;
    const keys = { spaceId, changeRequestId: cr.id, commentId: comment.id, commentReplyId: reply.id };
    const READ = `query($s: String!, $c: String!, $comment: String!, $r: String!) {
      commentReply(spaceId: $s, changeRequestId: $c, commentId: $comment, commentReplyId: $r, format: MARKDOWN) { body { markdown } } }`;
    const reader = t.world.users.read.token;
    const read = () => t.gql(READ, { s: spaceId, c: cr.id, comment: comment.id, r: reply.id }, reader);
    await read();
    expect((await read()).extensions?.responseCache.hit).toBe(true);
    await t.payload('updateCommentReply', { ...keys, body: { markdown: 'An edited reply' } }, 'clientMutationId');
    const after = await read();
    expect(after.extensions?.responseCache.hit).toBe(false);
    expect(after.data.commentReply.body.markdown).toBe('An edited reply');
  });

  it('a section moved into a group (its body names it) is forgotten, though the payload selects none of it', async () => {
    const site = newSite(t, { spaces: 2 });
    const sections = (await t.api.get(`${site.base}/sections`)).body.items as Array<{ id: string }>;
    const ids = sections.map((s) => encodeGlobalID('SiteSection', JSON.stringify([site.organizationId, site.siteId, s.id])));
    const READ = `query($id: ID!) { node(id: $id) { ... on SiteSection { sectionGroup { restId } } } }`;
    const reader = t.world.users.read.token;
    // Each section read on its own: a result holding a group is forgotten with the group anyway.
    const read = (i: number) => t.gql(READ, { id: ids[i] }, reader);
    for (const i of [0, 1]) {
      expect((await read(i)).data.node.sectionGroup).toBeNull();
      expect((await read(i)).extensions?.responseCache.hit).toBe(true);
    }
    const onSite = { organizationId: site.organizationId, siteId: site.siteId };
    const created = await t.payload(
      'createSiteSectionGroup',
      { ...onSite, title: 'First', sections: [sections[0].id] },
      'clientMutationId siteSectionGroup { restId }',
    );
    const group = created.siteSectionGroup.restId;
    const afterCreate = await read(0);
    expect(afterCreate.extensions?.responseCache.hit).toBe(false);
    expect(afterCreate.data.node.sectionGroup).toEqual({ restId: group });
    // `addSiteSectionToGroup` names the section by its REST body's `sectionId`.
    await read(1);
    expect((await read(1)).extensions?.responseCache.hit).toBe(true);
    await t.payload('addSiteSectionToGroup', { ...onSite, siteSectionGroupId: group, sectionId: sections[1].id }, 'clientMutationId');
    const afterAdd = await read(1);
    expect(afterAdd.extensions?.responseCache.hit).toBe(false);
    expect(afterAdd.data.node.sectionGroup).toEqual({ restId: group });
  });

  it("a section's new default site space forgets the results holding either site space alone", async () => {
    const site = newSite(t, { spaces: 2 });
    const [section] = (await t.api.get(`${site.base}/sections`)).body.items as Array<{ id: string; siteSpaces: Array<{ id: string }> }>;
    // A second variant of the section (REST has no write that adds one).
    const second = insertSiteSpace(t.upstream.db, t.clock.now().toISOString(), { sectionId: section.id, spaceId: site.spaceIds[1] });
    const keys = [site.organizationId, site.siteId, section.id];
    const ids = [section.siteSpaces[0].id, second].map((s) => encodeGlobalID('SiteSpace', JSON.stringify([...keys, s])));
    const READ = `query($id: ID!) { node(id: $id) { ... on SiteSpace { default } } }`;
    const reader = t.world.users.read.token;
    const read = (i: number) => t.gql(READ, { id: ids[i] }, reader);
    for (const [i, was] of [
      [0, true],
      [1, false],
    ] as const) {
      expect((await read(i)).data.node.default).toBe(was);
      expect((await read(i)).extensions?.responseCache.hit).toBe(true);
    }
    const input = { organizationId: site.organizationId, siteId: site.siteId, siteSectionId: section.id, defaultSiteSpace: second };
    await t.payload('updateSiteSection', input, 'clientMutationId');
    for (const [i, is] of [
      [0, false],
      [1, true],
    ] as const) {
      const after = await read(i);
      expect(after.extensions?.responseCache.hit).toBe(false);
      expect(after.data.node.default).toBe(is);
    }
  });

  it("a write that changes who may see what invalidates other callers' results too", async () => {
    const reader = t.world.users.read;
    const before = await t.gql(SPACE, { spaceId }, reader.token);
    expect(before.data.space.permissions).toEqual({ admin: false, edit: false });
    expect((await t.gql(SPACE, { spaceId }, reader.token)).extensions?.responseCache.hit).toBe(true);
    // The reader's cached result holds the space only, not the member the admin changes.
    await t.payload('updateMember', { organizationId: t.world.orgId, userId: reader.id, role: 'ADMIN' }, 'clientMutationId');
    const after = await t.gql(SPACE, { spaceId }, reader.token);
    expect(after.extensions?.responseCache.hit).toBe(false);
    expect(after.data.space.permissions).toEqual({ admin: true, edit: true });
    await t.payload('updateMember', { organizationId: t.world.orgId, userId: reader.id, role: 'READ' }, 'clientMutationId');
  });

  it('a create and a delete change the cached lists that hold (or would hold) the object', async () => {
    const titles = async () =>
      ((await t.data(SPACES, { org: t.world.orgId })).organization.spaces.nodes as Array<{ title: string }>).map((s) => s.title);
    const before = await titles();
    expect((await t.gql(SPACES, { org: t.world.orgId })).extensions?.responseCache.hit).toBe(true);

    const created = await t.payload('createSpace', { organizationId: t.world.orgId, title: 'Fresh' }, 'space { restId }');
    expect(await titles()).toEqual([...before, 'Fresh']);

    expect((await t.gql(SPACES, { org: t.world.orgId })).extensions?.responseCache.hit).toBe(true);
    // The list query selected no id: the deleted space is still found by its global id (deletedId).
    await t.payload('deleteSpace', { spaceId: created.space.restId }, 'deletedId');
    expect(await titles()).toEqual(before);
  });

  it("a space created, copied or restored counts at once in cached members' and teams' spacesCount", async () => {
    const org = t.world.orgId;
    const collection = (await t.api.post(`/orgs/${org}/collections`, { title: 'Counted in' })).body.id as string;
    const team = (await t.api.put(`/orgs/${org}/teams`, { title: 'Counters', members: [t.world.users.edit.id] })).body.id as string;
    await t.api.post(`/collections/${collection}/permissions`, { role: 'read', teams: [team] });
    const COUNTS = `query($org: String!, $user: String!, $team: String!) {
      member(organizationId: $org, userId: $user) { spacesCount } team(organizationId: $org, teamId: $team) { spacesCount } }`;
    const vars = { org, user: t.world.users.read.id, team };
    const counts = async () => {
      const res = await t.gql(COUNTS, vars);
      return { hit: res.extensions?.responseCache.hit, member: res.data.member.spacesCount, team: res.data.team.spacesCount };
    };
    const { member, team: teamCount } = await counts();
    expect(await counts()).toEqual({ hit: true, member, team: teamCount });

    const created = await t.payload('createSpace', { organizationId: org, title: 'Counted', parent: collection }, 'space { restId }');
    expect(await counts()).toEqual({ hit: false, member: member + 1, team: teamCount + 1 });
    await t.payload('duplicateSpace', { spaceId: created.space.restId }, 'clientMutationId');
    expect(await counts()).toEqual({ hit: false, member: member + 2, team: teamCount + 2 });
    await t.payload('deleteSpace', { spaceId: created.space.restId }, 'deletedId');
    expect(await counts()).toEqual({ hit: false, member: member + 1, team: teamCount + 1 });
    expect((await counts()).hit).toBe(true);
    await t.payload('restoreSpace', { spaceId: created.space.restId }, 'clientMutationId');
    expect(await counts()).toEqual({ hit: false, member: member + 2, team: teamCount + 2 });
  });

  it("pingOrganization: cached members show the caller's new lastSeenAt", async () => {
    const reader = t.world.users.read;
    const SEEN = `query($org: String!, $user: String!) { member(organizationId: $org, userId: $user) { lastSeenAt } }`;
    const vars = { org: t.world.orgId, user: reader.id };
    const before = (await t.data(SEEN, vars)).member.lastSeenAt;
    expect((await t.gql(SEEN, vars)).extensions?.responseCache.hit).toBe(true);
    await t.payload('pingOrganization', { organizationId: t.world.orgId }, 'clientMutationId', reader.token);
    const after = await t.gql(SEEN, vars);
    expect(after.extensions?.responseCache.hit).toBe(false);
    expect(after.data.member.lastSeenAt).not.toBe(before);
  });
});

describe('response cache: writes that change access (in process)', () => {
  let t: TestStack;

  beforeAll(async () => {
    t = await startStack({ responseCacheTtlMs: 60_000 });
  });
  afterAll(() => t?.stop());

  const reader = (role: Role | null) => newReader(t, role);
  const cachedRead = (token: string, spaceId: string, cr: string) => readTwice(t, token, spaceId, cr);
  const revoked = (token: string, spaceId: string, cr: string) => refused(t, token, spaceId, cr);

  it('removeMember: the removed member no longer reads a change request from the cache', async () => {
    const { user, spaceId, cr } = await reader('read');
    await cachedRead(user.token, spaceId, cr);
    await t.payload('removeMember', { organizationId: t.world.orgId, userId: user.id }, 'deletedId');
    await revoked(user.token, spaceId, cr);
  });

  it('removeSpaceUserPermission: a guest whose role on the space is removed no longer reads it from the cache', async () => {
    const { user, spaceId, cr } = await reader(null);
    await t.payload('grantSpacePermission', { spaceId, role: 'READ', users: [user.id] }, 'clientMutationId');
    await cachedRead(user.token, spaceId, cr);
    await t.payload('removeSpaceUserPermission', { spaceId, userId: user.id }, 'clientMutationId');
    await revoked(user.token, spaceId, cr);
  });

  it('transferSpace to an organization the reader is not in: no more cached reads of its change requests', async () => {
    const { user, spaceId, cr } = await reader('read');
    await cachedRead(user.token, spaceId, cr);
    await t.payload('transferSpace', { spaceId, organization: t.world.otherOrgId }, 'clientMutationId');
    await revoked(user.token, spaceId, cr);
  });

  it("deleteSpace: a reader no longer reads the space's change requests from the cache", async () => {
    // Before: the lookup's result held only the change request, which the space's invalidation
    // does not reach, and the REST API's 404 was never asked.
    const { user, spaceId, cr } = await reader('read');
    await cachedRead(user.token, spaceId, cr);
    await t.payload('deleteSpace', { spaceId }, 'deletedId');
    await revoked(user.token, spaceId, cr);
  });

  it('deactivating or deleting a share link ends the anonymous cached reads its key opened', async () => {
    const site = newSite(t, { spaces: 1, visibility: 'share-link', published: true, spaceVisibility: 'share-link' });
    const SHARED = `query($spaceId: String!, $key: String!) { space(spaceId: $spaceId, shareKey: $key) { title } }`;
    const [spaceId] = site.spaceIds;
    for (const write of ['deactivateShareLink', 'deleteShareLink']) {
      const link = (await t.api.post(`${site.base}/share-links`, { name: write })).body;
      const vars = { spaceId, key: keyOf(link) };
      expect((await t.gql(SHARED, vars, null)).data?.space.title).toBe('Guide 1');
      expect((await t.gql(SHARED, vars, null)).extensions?.responseCache.hit).toBe(true);
      await t.payload(write, { organizationId: site.organizationId, siteId: site.siteId, shareLinkId: link.id }, 'clientMutationId');
      const after = await t.gql(SHARED, vars, null);
      expect(after.extensions?.responseCache?.hit, write).not.toBe(true);
      expect(after.data?.space ?? null, write).toBeNull();
    }
  });

  it("deleting a site section ends the anonymous cached reads of its space that the site's share key opened", async () => {
    const site = newSite(t, { spaces: 1, visibility: 'share-link', published: true, spaceVisibility: 'share-link' });
    const SHARED = `query($spaceId: String!, $key: String!) { space(spaceId: $spaceId, shareKey: $key) { title } }`;
    const link = (await t.api.post(`${site.base}/share-links`, { name: 'section' })).body;
    const vars = { spaceId: site.spaceIds[0], key: keyOf(link) };
    expect((await t.gql(SHARED, vars, null)).data?.space.title).toBe('Guide 1');
    expect((await t.gql(SHARED, vars, null)).extensions?.responseCache.hit).toBe(true);
    const [section] = (await t.api.get(`${site.base}/sections`)).body.items as Array<{ id: string }>;
    await t.payload(
      'deleteSiteSection',
      { organizationId: site.organizationId, siteId: site.siteId, siteSectionId: section.id },
      'deletedId',
    );
    // Before: the key no longer opened the space at the REST API, and the cache still answered it.
    const after = await t.gql(SHARED, vars, null);
    expect(after.extensions?.responseCache?.hit).not.toBe(true);
    expect(after.data?.space ?? null).toBeNull();
  });

  it('a write that sets a default role renews the generation: every cached result is read again', async () => {
    const { user, spaceId, cr } = await reader('read');
    await cachedRead(user.token, spaceId, cr);
    const other = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Elsewhere' })).body.id;
    await t.payload('updateSpace', { spaceId: other, title: 'Elsewhere too' }, 'clientMutationId');
    expect((await t.gql(CR, { spaceId, cr }, user.token)).extensions?.responseCache.hit).toBe(true);
    await t.payload('updateSpace', { spaceId: other, defaultLevel: 'READ' }, 'clientMutationId');
    expect((await t.gql(CR, { spaceId, cr }, user.token)).extensions?.responseCache.hit).toBe(false);
  });

  it('a cached result for a token is private and unstorable, with an opaque validator', async () => {
    const { user, spaceId, cr } = await reader('read');
    const get = () =>
      t.gateway.yoga.fetch(
        `http://gateway.test/graphql?query=${encodeURIComponent(CR)}&variables=${encodeURIComponent(JSON.stringify({ spaceId, cr }))}`,
        {
          headers: { authorization: `Bearer ${user.token}`, accept: 'application/json' },
        },
      );
    for (const res of [await get(), await get()]) {
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(res.headers.get('last-modified')).toBeNull();
      const etag = res.headers.get('etag');
      expect(etag).toMatch(/^"[\w-]+"$/);
      expect(etag).not.toContain('dg:');
      await res.text();
    }
  });
});

describe('the writes that change access', () => {
  it('are named once, all exist, and cover every permission, member, team, share-link, SAML and transfer write', () => {
    const mutations = Object.keys(schema.getMutationType()!.getFields());
    for (const name of ACCESS_WRITES) expect(mutations, name).toContain(name);
    const looksLikeAccess = mutations.filter((m) =>
      /Permission|Member|Team|ShareLink|Saml|Sso|^transfer|^join|^invite|^move(Space|Collection)$/.test(m),
    );
    expect(looksLikeAccess.length).toBeGreaterThan(20);
    for (const name of looksLikeAccess) expect(ACCESS_WRITES, name).toContain(name);
  });

  it('those scoped to one user are access writes whose input names that user by a required userId', () => {
    const fields = schema.getMutationType()!.getFields();
    for (const name of USER_ACCESS_WRITES.keys()) {
      expect(ACCESS_WRITES, name).toContain(name);
      const input = fields[name].args.find((a) => a.name === 'input')!.type;
      const userId = (getNamedType(input) as GraphQLInputObjectType).getFields().userId;
      expect(String(userId?.type), name).toBe('String!');
    }
  });
});
