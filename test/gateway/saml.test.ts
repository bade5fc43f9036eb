import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/upstream/bootstrap.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { callList, walkConnection } from '../helpers/walk.js';
import { restUrls, urls } from './urls.js';

let t: TestStack;
let org: string;
let teamId: string;
const providerIds: string[] = [];
beforeAll(async () => {
  t = await startStack();
  org = t.world.orgId;
  teamId = (await t.api.put(`/orgs/${org}/teams`, { title: 'SSO people', members: [t.world.users.read.id] })).body.id;
  for (const label of ['Okta', 'Azure', 'Google'])
    providerIds.push((await t.api.post(`/orgs/${org}/saml`, { label, defaultRole: 'read' })).body.id);
});
afterAll(() => t.stop());

const PROVIDER_FIELDS = `restId label ssoURL entityID certificate defaultRole createdAt status
  service { acsURL startURL entityID } ${urls('SamlProvider')} defaultTeam { restId title membersCount }`;
const fromRest = (p: any) => ({
  restId: p.id,
  label: p.label,
  ssoURL: p.ssoURL ?? null,
  entityID: p.entityID ?? null,
  certificate: p.certificate ?? null,
  defaultRole: p.defaultRole?.toUpperCase() ?? null,
  createdAt: p.createdAt,
  status: p.status.toUpperCase(),
  service: p.service,
  urls: restUrls('SamlProvider', p.urls),
  defaultTeam: p.defaultTeam ? { restId: p.defaultTeam.id, title: p.defaultTeam.title, membersCount: p.defaultTeam.members } : null,
});

const PROVIDERS = `query($org: String!, $first: Int, $after: String) {
  organization(organizationId: $org) { samlProviders(first: $first, after: $after) { nodes { ${PROVIDER_FIELDS} } pageInfo { hasNextPage endCursor } } }
}`;
const READ_PROVIDER = `query($org: String!, $id: String!) { samlProvider(organizationId: $org, samlProviderId: $id) { id ${PROVIDER_FIELDS} } }`;

const CREATE = `mutation($input: CreateSamlProviderInput!) {
  createSamlProvider(input: $input) { samlProvider { ${PROVIDER_FIELDS} } organization { ssoLogins { restId label } } }
}`;
const UPDATE = `mutation($input: UpdateSamlProviderInput!) { updateSamlProvider(input: $input) { samlProvider { ${PROVIDER_FIELDS} } } }`;

describe('SAML providers', () => {
  it('createSamlProvider with a default team; the team needs no extra call; reads back like REST', async () => {
    t.resetCalls();
    const res = await t.data(CREATE, {
      input: {
        organizationId: org,
        label: 'x'.repeat(30),
        ssoURL: 'https://idp.example.com/sso',
        defaultTeam: teamId,
        defaultRole: 'EDIT',
      },
    });
    const { samlProvider, organization } = res.createSamlProvider;
    // The payload's organization is a reference: ssoLogins reads no `GET /orgs/{organizationId}`.
    expect(callList(t).sort()).toEqual([`GET /orgs/${org}/sso`, `POST /orgs/${org}/saml`]);
    expect(samlProvider).toMatchObject({ label: 'x'.repeat(30), defaultRole: 'EDIT', status: 'PENDING' });
    expect(samlProvider.defaultTeam).toEqual({ restId: teamId, title: 'SSO people', membersCount: 2 });
    expect(organization.ssoLogins.map((l: any) => l.restId)).toContain(samlProvider.restId);
    providerIds.push(samlProvider.restId);
    const rest = await t.api.get(`/orgs/${org}/saml/${samlProvider.restId}`);
    expect(samlProvider).toEqual(fromRest(rest.body));
    const read = await t.data(READ_PROVIDER, { org, id: samlProvider.restId });
    expect(read.samlProvider).toEqual({ id: read.samlProvider.id, ...fromRest(rest.body) });
  });

  it('a label over 30 characters, a bad URL or a bad team id type is BAD_USER_INPUT with no REST call', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ label: 'x'.repeat(31) }, 'input.label'],
      [{ label: '' }, 'input.label'],
      [{ label: 'ok', ssoURL: 'not a url' }, 'input.ssoURL'],
      [{ label: 'ok', entityID: 'e'.repeat(1025) }, 'input.entityID'],
    ];
    for (const [fields, field] of cases) {
      t.resetCalls();
      const res = await t.gql(CREATE, { input: { organizationId: org, ...fields } });
      expect(res.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(t.calls).toHaveLength(0);
    }
    t.resetCalls();
    const update = await t.gql(UPDATE, { input: { organizationId: org, samlProviderId: providerIds[0], label: 'y'.repeat(31) } });
    expect(update.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.label' });
    expect(t.calls).toHaveLength(0);
  });

  it('Organization.samlProviders walks to the end equal to REST', async () => {
    const rest = await t.api.all(`/orgs/${org}/saml`);
    const walk = await walkConnection(t, PROVIDERS, { org, first: 3 }, (d) => d.organization.samlProviders);
    expect(walk.nodes).toEqual(rest.items.map(fromRest));
    expect(walk.nodes.map((n: any) => n.restId)).toEqual(providerIds);
    expect(walk.pageCalls).toHaveLength(2);
    for (const calls of walk.pageCalls) expect(calls.sort()).toEqual([`GET /orgs/${org}/saml`]);
  });

  it('node(id) round-trips a provider with one REST call', async () => {
    const data = await t.data(READ_PROVIDER, { org, id: providerIds[3] });
    t.resetCalls();
    const again = await t.data(`query($id: ID!) { node(id: $id) { id ... on SamlProvider { ${PROVIDER_FIELDS} } } }`, {
      id: data.samlProvider.id,
    });
    expect(again.node).toEqual(data.samlProvider);
    expect(callList(t)).toEqual([`GET /orgs/${org}/saml/${providerIds[3]}`]);
  });

  it('updateSamlProvider completes the configuration (ACTIVE), clears the default team, reads back', async () => {
    const input = {
      organizationId: org,
      samlProviderId: providerIds[3],
      entityID: 'urn:idp',
      certificate: 'MIIC...',
      defaultTeam: null,
      defaultRole: null,
    };
    const res = await t.data(UPDATE, { input });
    expect(res.updateSamlProvider.samlProvider).toMatchObject({
      status: 'ACTIVE',
      defaultTeam: null,
      defaultRole: null,
      entityID: 'urn:idp',
    });
    const read = await t.data(READ_PROVIDER, { org, id: providerIds[3] });
    expect(read.samlProvider).toMatchObject({ status: 'ACTIVE', defaultTeam: null, defaultRole: null, certificate: 'MIIC...' });
    const unknownTeam = await t.gql(UPDATE, { input: { organizationId: org, samlProviderId: providerIds[3], defaultTeam: 'nope' } });
    expect(unknownTeam.errors?.[0]).toMatchObject({
      path: ['updateSamlProvider'],
      extensions: { code: 'BAD_USER_INPUT', upstream: { status: 400 } },
    });
  });

  it('a non-admin is FORBIDDEN at samlProviders while ssoLogins and the rest resolve', async () => {
    const res = await t.gql(
      `query($org: String!) { organization(organizationId: $org) { title samlProviders { nodes { restId } } ssoLogins { restId label startURL } } }`,
      { org },
      t.world.users.read.token,
    );
    expect(res.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['organization', 'samlProviders'], 'FORBIDDEN']]);
    const rest = await t.api.as(t.world.users.read.token).get(`/orgs/${org}/sso`);
    expect(res.data?.organization).toEqual({
      title: 'Acme',
      samlProviders: null,
      ssoLogins: rest.body.items.map((i: any) => ({ restId: i.id, label: i.label, startURL: i.startURL })),
    });
    expect(res.data?.organization.ssoLogins).toHaveLength(4);
  });

  it('ssoLogins answers whoever REST answers: an outsider reads them, with one REST call', async () => {
    // A sign-in page shows them before anyone is a member: REST serves them to any token.
    const outsider = t.world.users.outsider.token;
    const rest = await t.api.as(outsider).get(`/orgs/${org}/sso`);
    expect(rest.status).toBe(200);
    expect(rest.body.items.length).toBeGreaterThan(0);
    t.resetCalls();
    const res = await t.gql(
      `query($org: String!) { organization(organizationId: $org) { ssoLogins { restId label startURL } } }`,
      { org },
      outsider,
    );
    expect(res).toEqual({
      data: { organization: { ssoLogins: rest.body.items.map((i: any) => ({ restId: i.id, label: i.label, startURL: i.startURL })) } },
    });
    expect(t.calls.map((c) => `${c.method} ${c.route}`)).toEqual(['GET /orgs/{organizationId}/sso']);
  });

  it('SsoLogin.samlProvider leads to the provider for an admin', async () => {
    const data = await t.data(
      `query($org: String!) { organization(organizationId: $org) { ssoLogins { restId samlProvider { restId label } } } }`,
      {
        org,
      },
    );
    for (const login of data.organization.ssoLogins) expect(login.samlProvider.restId).toBe(login.restId);
  });

  it('an outsider gets NOT_FOUND on a provider; a member FORBIDDEN on mutations', async () => {
    const outsider = await t.gql(READ_PROVIDER, { org, id: providerIds[0] }, t.world.users.outsider.token);
    expect(outsider.errors?.[0]).toMatchObject({ path: ['samlProvider'], extensions: { code: 'NOT_FOUND' } });
    const forbidden = await t.gql(CREATE, { input: { organizationId: org, label: 'Mine' } }, t.world.users.create.token);
    expect(forbidden.errors?.[0]).toMatchObject({ path: ['createSamlProvider'], extensions: { code: 'FORBIDDEN' } });
  });

  it('deleteSamlProvider returns the provider global id and the organization without it', async () => {
    const { samlProvider } = await t.data(READ_PROVIDER, { org, id: providerIds[1] });
    const res = await t.data(
      `mutation($org: String!, $id: String!) { deleteSamlProvider(input: { organizationId: $org, samlProviderId: $id }) {
        deletedId organization { samlProviders { nodes { restId } } ssoLogins { restId } } } }`,
      { org, id: providerIds[1] },
    );
    expect(res.deleteSamlProvider.deletedId).toBe(samlProvider.id);
    const remaining = providerIds.filter((id) => id !== providerIds[1]);
    expect(res.deleteSamlProvider.organization.samlProviders.nodes.map((n: any) => n.restId)).toEqual(remaining);
    expect(res.deleteSamlProvider.organization.ssoLogins.map((n: any) => n.restId)).toEqual(remaining);
    const gone = await t.gql(READ_PROVIDER, { org, id: providerIds[1] });
    expect(gone.errors?.[0]).toMatchObject({ path: ['samlProvider'], extensions: { code: 'NOT_FOUND' } });
  });
});

describe('SSO invites with a SAML provider', () => {
  it('an SSO email invite of an existing user succeeds and the member reads back as SSO', async () => {
    const user = createUser(t.upstream.db, t.clock, { displayName: 'Sso User', email: 'sso-user@new.test' });
    const res = await t.data(
      `mutation($org: String!, $email: String!) { inviteToOrganization(input: { organizationId: $org, emails: [$email], sso: true }) {
        users { restId } invited failedSSOEmails } }`,
      { org, email: user.email },
    );
    expect(res.inviteToOrganization).toEqual({ users: [{ restId: user.id }], invited: 0, failedSSOEmails: [] });
    const read = await t.data(`query($org: String!, $user: String!) { member(organizationId: $org, userId: $user) { sso } }`, {
      org,
      user: user.id,
    });
    expect(read.member.sso).toBe(true);
  });
});
