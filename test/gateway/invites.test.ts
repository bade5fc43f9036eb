import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/upstream/bootstrap.js';
import { invitationFor } from '../../src/upstream/domain/invites.js';
import { buildGateway } from '../../src/gateway/app.js';
import { json, startBadServer } from '../helpers/badServer.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { callList, walkConnection } from '../helpers/walk.js';

let t: TestStack;
let org: string;
beforeAll(async () => {
  t = await startStack();
  org = t.world.orgId;
});
afterAll(() => t.stop());

const newUser = (name: string) => createUser(t.upstream.db, t.clock, { displayName: name, email: `${name}@new.test` });

const INVITE = `mutation($input: InviteToOrganizationInput!) {
  inviteToOrganization(input: $input) { clientMutationId users { id restId email } invited failedSSOEmails }
}`;
const MEMBER = `query($org: String!, $user: String!) { member(organizationId: $org, userId: $user) { role sso } }`;

describe('inviteToOrganization (email invites) and joinOrganization', () => {
  it('adds existing users at once and invites the others; read back through a query', async () => {
    const otto = t.world.users.outsider;
    const res = await t.data(INVITE, {
      input: { organizationId: org, emails: [otto.email, 'Newbie@new.test'], role: 'COMMENT', clientMutationId: 'i1' },
    });
    expect(res.inviteToOrganization).toEqual({
      clientMutationId: 'i1',
      users: [{ id: expect.any(String), restId: otto.id, email: otto.email }],
      invited: 1,
      failedSSOEmails: [],
    });
    expect((await t.data(MEMBER, { org, user: otto.id })).member).toEqual({ role: 'COMMENT', sso: false });
    const asOtto = await t.data(`query($org: String!) { organization(organizationId: $org) { restId } }`, { org }, otto.token);
    expect(asOtto.organization.restId).toBe(org);
    expect(invitationFor(t.upstream.db, org, 'newbie@new.test')).toEqual(expect.any(String));
  });

  it("an answer without failedSSOEmails (optional in GitBook's OpenAPI description) keeps the payload: the invites were sent", async () => {
    await using upstream = await startBadServer();
    upstream.fallback = json(200, { users: ['u1'], invited: 2 });
    const gateway = buildGateway({ upstreamUrl: upstream.url });
    try {
      const res = await fetch(await gateway.start(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer gb_api_inviter' },
        body: JSON.stringify({
          query: `mutation($input: InviteToOrganizationInput!) { inviteToOrganization(input: $input) { invited failedSSOEmails } }`,
          variables: { input: { organizationId: 'o1', emails: ['a@new.test', 'b@new.test', 'c@new.test'] } },
        }),
      });
      // Before: the payload was null with "Unexpected error." (a non-null field), and a client that
      // sent the invites again mailed everyone twice.
      expect(await res.json()).toEqual({ data: { inviteToOrganization: { invited: 2, failedSSOEmails: [] } } });
      expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1/orgs/o1/invites']);
    } finally {
      await gateway.stop();
    }
  });

  it('the organization in the payload shows the new member in the same operation', async () => {
    const user = newUser('fresh');
    const res = await t.data(
      `mutation($org: String!, $email: String!) {
        inviteToOrganization(input: { organizationId: $org, emails: [$email], role: null }) {
          organization { members(role: GUEST) { nodes { restId } } }
        }
      }`,
      { org, email: user.email },
    );
    expect(res.inviteToOrganization.organization.members.nodes.map((n: any) => n.restId)).toContain(user.id);
  });

  it('an SSO invite without a SAML provider lists the address in failedSSOEmails', async () => {
    const res = await t.data(INVITE, { input: { organizationId: org, emails: ['sso-person@new.test'], sso: true } });
    expect(res.inviteToOrganization).toMatchObject({ invited: 1, failedSSOEmails: ['sso-person@new.test'], users: [] });
  });

  it('empty emails and a malformed address are BAD_USER_INPUT with no REST call', async () => {
    for (const [emails, field] of [
      [[], 'input.emails'],
      [['ok@new.test', 'not-an-email'], 'input.emails[1]'],
    ] as const) {
      t.resetCalls();
      const res = await t.gql(INVITE, { input: { organizationId: org, emails } });
      expect(res.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(res.data).toEqual({ inviteToOrganization: null });
      expect(t.calls).toHaveLength(0);
    }
  });

  it('a non-admin is FORBIDDEN, an outsider NOT_FOUND', async () => {
    const input = { organizationId: t.world.otherOrgId, emails: ['x@new.test'] };
    const outsider = await t.gql(INVITE, { input }, t.world.users.edit.token);
    expect(outsider.errors?.[0]).toMatchObject({ path: ['inviteToOrganization'], extensions: { code: 'NOT_FOUND' } });
    const forbidden = await t.gql(INVITE, { input: { ...input, organizationId: org } }, t.world.users.edit.token);
    expect(forbidden.errors?.[0]).toMatchObject({ path: ['inviteToOrganization'], extensions: { code: 'FORBIDDEN' } });
  });

  it('joinOrganization with an email invite makes the addressee a member', async () => {
    const user = newUser('mailed');
    await t.data(INVITE, { input: { organizationId: org, emails: ['pending@new.test'], role: 'EDIT' } });
    // The user who owns the address signs up after the invite was sent.
    const addressee = createUser(t.upstream.db, t.clock, { displayName: 'Pending', email: 'pending@new.test' });
    const inviteId = invitationFor(t.upstream.db, org, 'pending@new.test')!;
    const join = `mutation($org: String!, $invite: String!) { joinOrganization(input: { organizationId: $org, inviteId: $invite }) {
      organization { restId permissions { admin } } } }`;
    const wrong = await t.gql(join, { org, invite: inviteId }, user.token);
    expect(wrong.errors?.[0]).toMatchObject({ path: ['joinOrganization'], extensions: { code: 'FORBIDDEN' } });
    const res = await t.data(join, { org, invite: inviteId }, addressee.token);
    expect(res.joinOrganization.organization).toEqual({ restId: org, permissions: { admin: false } });
    expect((await t.data(MEMBER, { org, user: addressee.id })).member.role).toBe('EDIT');
    const unknown = await t.gql(join, { org, invite: 'nope' }, user.token);
    expect(unknown.errors?.[0]).toMatchObject({ path: ['joinOrganization'], extensions: { code: 'NOT_FOUND' } });
  });
});

const CREATE_LINK = `mutation($input: CreateLinkInviteInput!) {
  createLinkInvite(input: $input) { invite { id restId role redundant urls { location app } } organization { linkInvites(first: 50) { nodes { restId } } } }
}`;
const UPDATE_LINK = `mutation($input: UpdateLinkInviteInput!) { updateLinkInvite(input: $input) { invite { restId role } } }`;
const READ_LINK = `query($org: String!, $invite: String!) { linkInvite(organizationId: $org, inviteId: $invite) { id restId role redundant } }`;
const LINKS = `query($org: String!, $first: Int, $after: String) {
  organization(organizationId: $org) { linkInvites(first: $first, after: $after) { nodes { restId role redundant } pageInfo { hasNextPage endCursor } } }
}`;

describe('link invites', () => {
  const created: string[] = [];

  it('createLinkInvite returns the invite and the organization list holding it', async () => {
    for (const role of ['READ', 'EDIT', 'ADMIN', null, 'COMMENT']) {
      const res = await t.data(CREATE_LINK, { input: { organizationId: org, role } });
      const { invite, organization } = res.createLinkInvite;
      expect(invite).toMatchObject({ role, redundant: true });
      expect(invite.urls.app).toMatch(/^https?:\/\//);
      expect(organization.linkInvites.nodes.map((n: any) => n.restId)).toContain(invite.restId);
      created.push(invite.restId);
    }
  });

  it('Organization.linkInvites walks to the end equal to REST', async () => {
    const rest = await t.api.as(t.world.users.read.token).all(`/orgs/${org}/link-invites`);
    const walk = await walkConnection(t, LINKS, { org, first: 2 }, (d) => d.organization.linkInvites, t.world.users.read.token);
    // A member lists only the invites granting no more than their role: a reader sees READ and guest ones.
    expect(walk.nodes.map((n: any) => n.restId)).toEqual([created[0], created[3]]);
    expect(walk.nodes).toEqual(rest.items.map((i: any) => ({ restId: i.id, role: i.role?.toUpperCase() ?? null, redundant: i.redundant })));
    expect(walk.nodes.map((n: any) => n.redundant)).toEqual([true, true]);
    const all = await walkConnection(t, LINKS, { org, first: 2 }, (d) => d.organization.linkInvites);
    expect(all.nodes.map((n: any) => n.restId)).toEqual(created);
    expect(all.pageCalls).toHaveLength(3);
    for (const calls of all.pageCalls) expect(calls.sort()).toEqual([`GET /orgs/${org}/link-invites`]);
  });

  it('node(id) round-trips an invite with one REST call', async () => {
    const data = await t.data(READ_LINK, { org, invite: created[1] });
    t.resetCalls();
    const again = await t.data(`query($id: ID!) { node(id: $id) { id ... on Invite { restId role redundant } } }`, {
      id: data.linkInvite.id,
    });
    expect(again.node).toEqual(data.linkInvite);
    expect(callList(t)).toEqual([`GET /orgs/${org}/link-invites/${created[1]}`]);
  });

  it('updateLinkInvite sets a role or null (guest) and reads back; role is required', async () => {
    await t.data(UPDATE_LINK, { input: { organizationId: org, inviteId: created[0], role: 'REVIEW' } });
    expect((await t.data(READ_LINK, { org, invite: created[0] })).linkInvite.role).toBe('REVIEW');
    const res = await t.data(UPDATE_LINK, { input: { organizationId: org, inviteId: created[0], role: null } });
    expect(res.updateLinkInvite.invite).toEqual({ restId: created[0], role: null });
    expect((await t.api.get(`/orgs/${org}/link-invites/${created[0]}`)).body.role).toBeNull();
    t.resetCalls();
    const missing = await t.gql(UPDATE_LINK, { input: { organizationId: org, inviteId: created[0] } });
    expect(missing.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.role' });
    expect(t.calls).toHaveLength(0);
  });

  it('a non-admin is FORBIDDEN to create, update or delete link invites', async () => {
    const token = t.world.users.create.token;
    const create = await t.gql(CREATE_LINK, { input: { organizationId: org, role: 'READ' } }, token);
    expect(create.errors?.[0]).toMatchObject({ path: ['createLinkInvite'], extensions: { code: 'FORBIDDEN' } });
    const update = await t.gql(UPDATE_LINK, { input: { organizationId: org, inviteId: created[1], role: 'ADMIN' } }, token);
    expect(update.errors?.[0]).toMatchObject({ path: ['updateLinkInvite'], extensions: { code: 'FORBIDDEN' } });
    expect((await t.data(READ_LINK, { org, invite: created[1] })).linkInvite.role).toBe('EDIT');
  });

  it('joinOrganization with a link invite lets anyone in with its role', async () => {
    const user = newUser('linked');
    const res = await t.data(
      `mutation($org: String!, $invite: String!) { joinOrganization(input: { organizationId: $org, inviteId: $invite }) {
        organization { restId members(search: "linked@new.test") { nodes { restId role } } } } }`,
      { org, invite: created[1] },
      user.token,
    );
    expect(res.joinOrganization.organization.members.nodes).toEqual([{ restId: user.id, role: 'EDIT' }]);
  });

  it('deleteLinkInvite returns the invite global id and the organization without it', async () => {
    const { linkInvite } = await t.data(READ_LINK, { org, invite: created[4] });
    const res = await t.data(
      `mutation($org: String!, $invite: String!) { deleteLinkInvite(input: { organizationId: $org, inviteId: $invite }) {
        deletedId organization { linkInvites(first: 50) { nodes { restId } } } } }`,
      { org, invite: created[4] },
    );
    expect(res.deleteLinkInvite.deletedId).toBe(linkInvite.id);
    expect(res.deleteLinkInvite.organization.linkInvites.nodes.map((n: any) => n.restId)).toEqual(created.slice(0, 4));
    const gone = await t.gql(READ_LINK, { org, invite: created[4] });
    expect(gone.errors?.[0]).toMatchObject({ path: ['linkInvite'], extensions: { code: 'NOT_FOUND' } });
  });
});
