/**
 * The response-cache tests' reader: a fresh organization member with a space and a change request
 * of its own, whose cached read of that change request a write that changes access must end.
 */
import { expect } from 'vitest';
import type { Role } from '../../src/api/roles.js';
import { addMember, createUser } from '../../src/upstream/bootstrap.js';
import type { TestStack } from './gateway.js';

export const CR = `query($spaceId: String!, $cr: String!) { changeRequest(spaceId: $spaceId, changeRequestId: $cr) { subject } }`;

let n = 0;

/** A fresh acme user with `role` (null: a guest), a fresh space (`<label> <n>`) with one change request (`Secret <n>`). */
export async function newReader(t: TestStack, role: Role | null, label = 'Reader') {
  n += 1;
  const user = createUser(t.upstream.db, t.clock, { displayName: `${label} ${n}`, email: `${label.toLowerCase()}${n}@acme.test` });
  addMember(t.upstream.db, t.clock, t.world.orgId, user.id, role);
  const spaceId = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: `${label} ${n}` })).body.id as string;
  const cr = (await t.api.post(`/spaces/${spaceId}/change-requests`, { subject: `Secret ${n}` })).body.id as string;
  return { user, spaceId, cr, title: `${label} ${n}` };
}

/** Reads the change request twice as `token`: the second answer comes from the cache. */
export async function cachedRead(t: TestStack, token: string, spaceId: string, cr: string) {
  const first = await t.gql(CR, { spaceId, cr }, token);
  expect(first.data?.changeRequest?.subject, JSON.stringify(first.errors)).toMatch(/^Secret/);
  expect((await t.gql(CR, { spaceId, cr }, token)).extensions?.responseCache.hit).toBe(true);
}

/** After the write, the reader's cached result is gone: the read goes upstream and is refused. */
export async function revoked(t: TestStack, token: string, spaceId: string, cr: string) {
  const after = await t.gql(CR, { spaceId, cr }, token);
  expect(after.extensions?.responseCache?.hit).not.toBe(true);
  expect(after.data?.changeRequest ?? null).toBeNull();
  expect(['FORBIDDEN', 'NOT_FOUND', 'UNAUTHENTICATED']).toContain(after.errors?.[0].extensions?.code);
}
