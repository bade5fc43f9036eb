/**
 * The typed seams, checked by the compiler (`npm run typecheck` covers test/): request bodies take
 * the types of their rules, and the resource table's helpers check the parent's shape. Each
 * `@ts-expect-error` line must stay an error; the functions are never called.
 */
import { describe, expect, it } from 'vitest';
import type { organizationBodies } from '../src/api/bodies/organizations.js';
import type { bodies } from '../src/api/rules.js';
import type { BodyOf } from '../src/api/validate.js';
import { edge, payloadFields, resourceInfo, type BuilderTypes } from '../src/schema/lib/resource.js';

type TeamCreate = BodyOf<(typeof organizationBodies)['team.create']>;
type MemberUpdate = BodyOf<(typeof organizationBodies)['member.update']>;
type ChangeRequestUpdate = BodyOf<(typeof bodies)['changeRequest.update']>;

function bodyTypes() {
  const team: TeamCreate = { title: 'Writers', members: ['u1'] };
  // @ts-expect-error `title` is required
  const untitled: TeamCreate = { members: [] };
  // @ts-expect-error `members` is a list of ids
  const members: TeamCreate = { title: 'Writers', members: 'u1' };
  const guest: MemberUpdate = { role: null };
  // @ts-expect-error `owner` is no role
  const owner: MemberUpdate = { role: 'owner' };
  const archived: ChangeRequestUpdate = { status: 'archived' };
  // @ts-expect-error `merged` is not a settable status
  const merged: ChangeRequestUpdate = { status: 'merged' };
  return [team, untitled, members, guest, owner, archived, merged];
}

function helperTypes(t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, { organizationId: string }>) {
  edge(t, 'Organization', (p) => [p.organizationId]);
  // @ts-expect-error the parent has no `spaceId`
  edge(t, 'Organization', (p) => [p.spaceId]);
  // @ts-expect-error `Teams` is not a resource of the table
  edge(t, 'Teams', (p) => [p.organizationId]);
  payloadFields('createTeam', (payload) => ({ organization: edge(payload, 'Organization', (p) => [p.node?.organizationId]) }));
  // @ts-expect-error `mergeChangeRequest` is written by hand, not derived from the table
  payloadFields('mergeChangeRequest', () => ({}));
  const team = resourceInfo('Team').attach({}, {});
  return team.organizationId satisfies string;
}

describe('typed seams', () => {
  it('are checked by `npm run typecheck` (this file holds the cases)', () => {
    expect([bodyTypes, helperTypes].every((f) => typeof f === 'function')).toBe(true);
  });
});
