/**
 * REST list pages from a misbehaving upstream (a scripted server, real HTTP): a walk over pages
 * ends with UPSTREAM_ERROR when the pages loop, after the REST calls it took, and the gateway
 * answers on; a next page token it cannot send back is UPSTREAM_ERROR too; of a page with more
 * items than asked for, only those asked for are used; an id that cannot be a path segment (empty,
 * "..") fails neither its list nor the object it is embedded in.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { json, startBadServer, type BadServer, type Step } from '../helpers/badServer.js';
import type { GqlResult } from '../helpers/gateway.js';

const ORG = 'o1';
const SPACES = `/v1/orgs/${ORG}/spaces`;
const space = (i: number) => ({ object: 'space', id: `s${i}`, title: `Space ${i}`, visibility: 'private', organization: ORG });

let bad: BadServer;
let gateway: Gateway;
/** How the upstream answers, by path (without the query); 404 for the others. */
let routes: Record<string, Step> = {};

beforeAll(async () => {
  bad = await startBadServer();
  bad.fallback = (req, res) => (routes[req.url?.split('?')[0] ?? ''] ?? json(404, { error: { code: 404, message: 'nope' } }))(req, res);
  gateway = buildGateway({ upstreamUrl: bad.url, rest: { retries: 0 } });
});
afterAll(async () => {
  await gateway.stop();
  await bad.stop();
});
beforeEach(() => void bad.requests.splice(0));

async function gql(query: string): Promise<GqlResult> {
  const res = await gateway.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer tok-lists' },
    body: JSON.stringify({ query }),
  });
  return (await res.json()) as GqlResult;
}

const SPACES_QUERY = `{ organization(organizationId: "${ORG}") { spaces(first: 5) { nodes { title } } } }`;

/** The page the request asked for (`page` of its query string), undefined for the first. */
const pageOf = (url: string | undefined) => new URL(url ?? '/', 'http://upstream.test').searchParams.get('page') ?? undefined;

describe('a list whose pages loop', () => {
  it.each([
    ['an empty page naming the same page again', 1, json(200, { items: [], count: 0, next: { page: 'A' } })],
    [
      'pages of one item, each naming the same page',
      2,
      ((req, res) => json(200, { items: [space(pageOf(req.url) ? 2 : 1)], count: 1, next: { page: 'A' } })(req, res)) as Step,
    ],
    [
      'empty pages, each naming a new page',
      1,
      ((req, res) => json(200, { items: [], count: 0, next: { page: String(Number(pageOf(req.url) ?? 0) + 1) } })(req, res)) as Step,
    ],
  ] as const)('%s: UPSTREAM_ERROR after %i REST call(s), and the gateway answers on', async (_name, calls, step) => {
    routes = { [SPACES]: step };
    // Before: the first two spun the event loop for good (the page repeated was in the request's
    // loader: no REST call, so maxRestCalls never fired); the third made 1,000 calls for BAD_USER_INPUT.
    const result = await gql(SPACES_QUERY);
    expect(result.data).toEqual({ organization: { spaces: null } });
    expect(result.errors).toEqual([
      expect.objectContaining({
        message: "Upstream error: the REST API's pages loop",
        path: ['organization', 'spaces'],
        extensions: { code: 'UPSTREAM_ERROR', upstream: { status: 200, method: 'GET', path: `/orgs/${ORG}/spaces` } },
      }),
    ]);
    expect(bad.requests).toHaveLength(calls);
    expect((await gql('{ __typename }')).data).toEqual({ __typename: 'Query' });
  });

  it('pages that move on are read as far as `first` needs', async () => {
    routes[SPACES] = (req, res) => {
      const at = Number(pageOf(req.url) ?? 0);
      json(200, { items: [space(at)], count: 1, next: { page: String(at + 1) } })(req, res);
    };
    const result = await gql(SPACES_QUERY);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ organization: { spaces: { nodes: [0, 1, 2, 3, 4].map((i) => ({ title: `Space ${i}` })) } } });
    expect(bad.requests).toHaveLength(5);
  });
});

describe('a refetch by list walk whose pages loop (a site redirect by its node id)', () => {
  const REDIRECTS = `/v1/orgs/${ORG}/sites/site1/redirects`;
  const id = Buffer.from(`SiteRedirect:${JSON.stringify([ORG, 'site1', 'r1'])}`).toString('base64');
  it.each([
    [
      'a page without it naming the same page again',
      json(200, { items: [{ object: 'site-redirect', id: 'r0' }], count: 1, next: { page: 'A' } }),
      2,
    ],
    ['an empty page naming another', json(200, { items: [], count: 0, next: { page: 'B' } }), 1],
  ] as const)('%s: UPSTREAM_ERROR, and the gateway answers on', async (_name, step, calls) => {
    routes = { [REDIRECTS]: step };
    // Before: the walk had a loop of its own, without the lists' check: the first spun the event
    // loop for good after two REST calls (the page repeated was in the request's loader).
    const result = await gql(`{ node(id: "${id}") { id } }`);
    expect(result.errors?.[0]).toMatchObject({
      message: "Upstream error: the REST API's pages loop",
      extensions: { code: 'UPSTREAM_ERROR' },
    });
    expect(bad.requests).toHaveLength(calls);
    expect((await gql('{ __typename }')).data).toEqual({ __typename: 'Query' });
  });
});

describe('a next page token the gateway cannot send back', () => {
  it.each([
    ['an object', { x: 'y'.repeat(1_000) }],
    ['a number', 7],
    ['1 MB long', 'P'.repeat(1024 * 1024)],
  ])('%s is UPSTREAM_ERROR, after the one REST call', async (_name, token) => {
    routes = { [SPACES]: json(200, { items: [space(1)], count: 1, next: { page: token } }) };
    // Before: an object was sent back as "[object Object]" (5 copies of one node and hasNextPage),
    // and 1 MB was the caller's BAD_USER_INPUT ("A value is too long").
    const result = await gql(SPACES_QUERY);
    expect(result.errors).toEqual([
      expect.objectContaining({
        message: "Upstream error: the REST API's next page token is unusable",
        path: ['organization', 'spaces'],
        extensions: { code: 'UPSTREAM_ERROR', upstream: { status: 200, method: 'GET', path: `/orgs/${ORG}/spaces` } },
      }),
    ]);
    expect(bad.requests).toHaveLength(1);
  });
});

describe('a page with more items than the gateway asked for', () => {
  it('only the first `limit` items are used: the others are neither edges nor primed', async () => {
    const org = (i: number, title: string) => ({ object: 'organization', id: `o${i}`, title });
    routes = {
      // Asked for one organization, the upstream sends ten (before: 300,000 small items of a
      // 13 MB page were all mapped and primed, and the heap ran out).
      '/v1/orgs': json(200, { items: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => org(i, `Org ${i} (listed)`)), count: 10 }),
      '/v1/orgs/o0/spaces': json(200, { items: [{ ...space(1), organization: 'o7' }], count: 1 }),
      '/v1/orgs/o7': json(200, org(7, 'Org 7 (read)')),
    };
    const result = await gql(
      '{ organizations(first: 1) { pageInfo { hasNextPage } nodes { title spaces(first: 1) { nodes { organization { title } } } } } }',
    );
    expect(result.errors).toBeUndefined();
    // The seventh organization came from its own read, not from the page that was asked for one.
    expect(result.data).toEqual({
      organizations: {
        pageInfo: { hasNextPage: false },
        nodes: [{ title: 'Org 0 (listed)', spaces: { nodes: [{ organization: { title: 'Org 7 (read)' } }] } }],
      },
    });
    expect(bad.requests.map((r) => r.url.split('?')[0])).toEqual(['/v1/orgs', '/v1/orgs/o0/spaces', '/v1/orgs/o7']);
  });
});

describe('a list item whose id cannot be a path segment', () => {
  it.each([
    ['empty', ''],
    ['".."', '..'],
    ['half a surrogate pair', '\ud800'],
  ])('an id %s: the other items and their fields are served, no BAD_USER_INPUT', async (_name, id) => {
    routes = { [SPACES]: json(200, { items: [{ ...space(1), id }, space(2)], count: 2 }) };
    // Before: priming the item under its path threw the caller's BAD_USER_INPUT ("Invalid
    // identifier"), and the whole list was null for one item of the upstream's.
    const result = await gql(SPACES_QUERY);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ organization: { spaces: { nodes: [{ title: 'Space 1' }, { title: 'Space 2' }] } } });
    expect(bad.requests).toHaveLength(1);
  });
});

describe('an embedded object whose id cannot be a path segment', () => {
  const member = (id: string, name: string) => ({
    object: 'member',
    id,
    role: 'read',
    joinedAt: '2026-01-01T00:00:00.000Z',
    disabled: false,
    sso: false,
    user: { object: 'user', id, displayName: name, email: `${name}@example.com`, urls: { location: 'x' } },
  });
  it('a member whose user id is empty: the list and the user are served, no BAD_USER_INPUT', async () => {
    routes = { [`/v1/orgs/${ORG}/members`]: json(200, { items: [member('', 'Ann'), member('u2', 'Bob')], count: 2 }) };
    // Before: priming the embedded user under its path threw the caller's BAD_USER_INPUT on the
    // non-null `user`, which nulled the member, and the list (its items are non-null) with it.
    const result = await gql(`{ organization(organizationId: "${ORG}") { members(first: 5) { nodes { user { displayName } } } } }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      organization: { members: { nodes: [{ user: { displayName: 'Ann' } }, { user: { displayName: 'Bob' } }] } },
    });
    expect(bad.requests).toHaveLength(1);
  });
});
