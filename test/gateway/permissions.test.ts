import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorldUser } from '../helpers/world.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

let t: TestStack;
beforeAll(async () => {
  t = await startStack();
});
afterAll(() => t.stop());

const id = (u: WorldUser) => t.world.users[u].id;
const token = (u: WorldUser) => t.world.users[u].token;

/** The two bases, as the graph and REST name them. */
const bases = [
  {
    typename: 'Space',
    field: 'space',
    param: 'spaceId',
    rest: 'spaces',
    lookup: (targetId: string) => `space(spaceId: "${targetId}")`,
    create: async () => (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Guarded space' })).body.id as string,
  },
  {
    typename: 'Collection',
    field: 'collection',
    param: 'collectionId',
    rest: 'collections',
    lookup: (targetId: string) => `collection(collectionId: "${targetId}")`,
    create: async () => (await t.api.post(`/orgs/${t.world.orgId}/collections`, { title: 'Guarded collection' })).body.id as string,
  },
] as const;

for (const base of bases) {
  const { typename, field, param, rest } = base;
  const grant = `grant${typename}Permission`;
  const update = `update${typename}UserPermission`;
  const remove = `remove${typename}UserPermission`;

  /** A connection field of the target walked to its end, `first` at a time: `[userId, PERMISSION]` pairs. */
  async function walk(targetId: string, connection: string, first: number, user: WorldUser = 'admin') {
    const pairs: Array<[string, string]> = [];
    let after: string | undefined;
    for (;;) {
      const q = `query($first: Int, $after: String) { ${base.lookup(targetId)} {
        ${connection.replace('ARGS', 'first: $first, after: $after')} {
          edges { permission node { restId displayName } } pageInfo { hasNextPage endCursor } } } }`;
      const res = await t.data(q, { first, after }, token(user));
      const conn = Object.values(res[field] as Record<string, any>)[0];
      pairs.push(...conn.edges.map((e: any) => [e.node.restId, e.permission] as [string, string]));
      if (!conn.pageInfo.hasNextPage) return pairs;
      after = conn.pageInfo.endCursor;
    }
  }
  const restPairs = async (path: string, query = {}) =>
    (await t.api.all(path, query)).items.map((i: any) => [i.user.id, i.permission.toUpperCase()]);

  describe(`${typename} permissions`, () => {
    it(`${grant} gives the guest read access, read back through the graph`, async () => {
      const targetId = await base.create();
      const lookup = `{ ${base.lookup(targetId)} { restId } }`;
      const before = await t.gql(lookup, {}, token('guest'));
      expect(before.errors?.[0]).toMatchObject({ path: [field], extensions: { code: 'NOT_FOUND' } });

      const res = await t.payload(
        grant,
        { [param]: targetId, role: 'READ', users: [id('guest')], clientMutationId: 'g' },
        `clientMutationId ${field} { restId userPermissions { edges { permission node { restId } } } }`,
      );
      const edges = [{ permission: 'READ', node: { restId: id('guest') } }];
      expect(res).toEqual({ clientMutationId: 'g', [field]: { restId: targetId, userPermissions: { edges } } });
      expect((await t.data(lookup, {}, token('guest')))[field]).toEqual({ restId: targetId });
    });

    it('userPermissions and aggregatePermissions(role) walk to the end, equal to REST, with no user fetched', async () => {
      const targetId = await base.create();
      const grants: Array<[WorldUser, string]> = [
        ['guest', 'READ'],
        ['comment', 'EDIT'],
        ['review', 'ADMIN'],
        ['read', 'COMMENT'],
        ['edit', 'READ'],
      ];
      for (const [user, role] of grants) await t.payload(grant, { [param]: targetId, role, users: [id(user)] }, `${field} { id }`);

      const users = await walk(targetId, 'userPermissions(ARGS)', 2);
      expect(users).toEqual(await restPairs(`/${rest}/${targetId}/permissions/users`));
      expect(users).toEqual(grants.map(([u, r]) => [id(u), r]));

      const aggregate = await walk(targetId, 'aggregatePermissions(ARGS)', 3);
      expect(aggregate).toEqual(await restPairs(`/${rest}/${targetId}/permissions/aggregate`));
      expect(aggregate).toContainEqual([id('admin'), 'ADMIN']);
      expect(aggregate).toContainEqual([id('guest'), 'READ']);

      const admins = await walk(targetId, 'aggregatePermissions(ARGS, role: ADMIN)', 1);
      expect(admins).toEqual(await restPairs(`/${rest}/${targetId}/permissions/aggregate`, { role: 'admin' }));
      expect(admins.map(([u]) => u)).toContain(id('review'));
      expect(admins.every(([, r]) => r === 'ADMIN')).toBe(true);

      t.resetCalls();
      await t.data(`{ ${base.lookup(targetId)} { userPermissions { nodes { restId displayName email } } } }`);
      expect(t.calls.map((c) => c.path)).toEqual([`/${rest}/${targetId}/permissions/users`]);
    });

    it(`${update} changes a role, null removes it; ${remove} removes it; each read back`, async () => {
      const targetId = await base.create();
      // Granted one by one: users granted together share a timestamp, so their order is by id.
      for (const user of ['guest', 'comment'] as const)
        await t.payload(grant, { [param]: targetId, role: 'READ', users: [id(user)] }, `${field} { id }`);
      const sel = `${field} { restId } user { restId displayName }`;
      const changed = await t.payload(update, { [param]: targetId, userId: id('guest'), role: 'EDIT' }, sel);
      expect(changed).toEqual({ [field]: { restId: targetId }, user: { restId: id('guest'), displayName: 'Gus Guest' } });
      expect(await walk(targetId, 'userPermissions(ARGS)', 10)).toEqual([
        [id('guest'), 'EDIT'],
        [id('comment'), 'READ'],
      ]);

      await t.payload(update, { [param]: targetId, userId: id('comment'), role: null }, sel);
      expect(await walk(targetId, 'userPermissions(ARGS)', 10)).toEqual([[id('guest'), 'EDIT']]);

      const removed = await t.payload(remove, { [param]: targetId, userId: id('guest') }, sel);
      expect(removed.user.restId).toBe(id('guest'));
      expect(await walk(targetId, 'userPermissions(ARGS)', 10)).toEqual([]);
      const guest = await t.gql(`{ ${base.lookup(targetId)} { restId } }`, {}, token('guest'));
      expect(guest.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    });

    it(`${update} in one operation forgets only what it makes stale: not the organization read before it`, async () => {
      const targetId = await base.create();
      await t.payload(grant, { [param]: targetId, role: 'READ', users: [id('guest'), id('comment')] }, `${field} { id }`);
      const change = (alias: string, user: WorldUser) =>
        `${alias}: ${update}(input: { ${param}: "${targetId}", userId: "${id(user)}", role: EDIT }) { ${field} { restId organization { restId title } } }`;
      t.resetCalls();
      const res = await t.gql(`mutation { ${change('a', 'guest')} ${change('b', 'comment')} }`);
      expect(res.errors).toBeUndefined();
      const org = { restId: t.world.orgId, title: expect.any(String) };
      expect(res.data).toEqual({
        a: { [field]: { restId: targetId, organization: org } },
        b: { [field]: { restId: targetId, organization: org } },
      });
      const paths = t.calls.filter((c) => c.method === 'GET').map((c) => c.path);
      // The target is read again after the second write (it made it stale); its organization is not.
      expect(paths.filter((p) => p === `/${rest}/${targetId}`)).toHaveLength(2);
      expect(paths.filter((p) => p === `/orgs/${t.world.orgId}`)).toHaveLength(1);
    });

    it('a grant to a team reaches its members in aggregatePermissions', async () => {
      const targetId = await base.create();
      const team = (await t.api.put(`/orgs/${t.world.orgId}/teams`, { title: `Team ${typename}`, members: [id('guest')] })).body;
      await t.payload(grant, { [param]: targetId, role: 'COMMENT', teams: [team.id] }, `${field} { id }`);
      expect(await walk(targetId, 'aggregatePermissions(ARGS, role: COMMENT)', 10)).toContainEqual([id('guest'), 'COMMENT']);
    });

    it('validation fails before any REST call: no principals, empty lists, empty ids', async () => {
      const targetId = await base.create();
      t.resetCalls();
      const none = await t.mutate(grant, { [param]: targetId, role: 'READ' }, `${field} { id }`);
      expect(none.errors?.[0]).toMatchObject({ path: [grant], extensions: { code: 'BAD_USER_INPUT', field: 'input.users' } });
      const empty = await t.mutate(grant, { [param]: targetId, role: 'READ', teams: [] }, `${field} { id }`);
      expect(empty.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'input.teams' } });
      const blank = await t.mutate(grant, { [param]: targetId, role: 'READ', users: [''] }, `${field} { id }`);
      expect(blank.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'input.users[0]' } });
      expect(t.calls).toHaveLength(0);
    });

    it('a read-only member is FORBIDDEN, an outsider NOT_FOUND, an unknown user NOT_FOUND; nothing changes', async () => {
      const targetId = await base.create();
      const input = { [param]: targetId, role: 'ADMIN', users: [id('read')] };
      const read = await t.mutate(grant, input, `${field} { id }`, token('read'));
      expect(read.errors?.[0]).toMatchObject({
        path: [grant],
        extensions: { code: 'FORBIDDEN', upstream: { status: 403, method: 'POST' } },
      });
      expect(read.data).toEqual({ [grant]: null });
      const outsider = await t.mutate(grant, input, `${field} { id }`, token('outsider'));
      expect(outsider.errors?.[0]).toMatchObject({ path: [grant], extensions: { code: 'NOT_FOUND' } });
      const stranger = await t.mutate(grant, { ...input, users: [id('outsider')] }, `${field} { id }`);
      expect(stranger.errors?.[0]).toMatchObject({ path: [grant], extensions: { code: 'NOT_FOUND' } });
      const removeRead = await t.mutate(remove, { [param]: targetId, userId: id('read') }, `${field} { id }`, token('read'));
      expect(removeRead.errors?.[0]).toMatchObject({ path: [remove], extensions: { code: 'FORBIDDEN' } });
      expect(await walk(targetId, 'userPermissions(ARGS)', 10)).toEqual(await restPairs(`/${rest}/${targetId}/permissions/users`));
      expect(await walk(targetId, 'userPermissions(ARGS)', 10)).not.toContainEqual([id('read'), 'ADMIN']);
    });

    it('an outsider reading the lists gets NOT_FOUND at the target while the rest resolves', async () => {
      const targetId = await base.create();
      const res = await t.gql(
        `{ viewer { restId } ${base.lookup(targetId)} { userPermissions { nodes { restId } } } }`,
        {},
        token('outsider'),
      );
      // The lookup makes no GET of its own (only a list is selected): NOT_FOUND comes at the list.
      expect(res.data).toEqual({ viewer: { restId: id('outsider') }, [field]: { userPermissions: null } });
      expect(res.errors?.[0]).toMatchObject({ path: [field, 'userPermissions'], extensions: { code: 'NOT_FOUND' } });
    });
  });
}
