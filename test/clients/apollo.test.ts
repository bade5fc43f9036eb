/**
 * The Apollo Client recipe (docs/recipes/apollo.ts, shown in docs/CLIENTS.md) against a gateway on
 * a real loopback port, with @apollo/client from npm: APQ (hash over GET, registration on a miss),
 * the cache keyed by global ids, relayStylePagination, and @defer.
 */
import { gql, type TypedDocumentNode } from '@apollo/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApolloClient } from '../../docs/recipes/apollo.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { shownInDocs } from './shownInDocs.js';

// Results are read loosely here (Codegen types them in an app: see test/clients/codegen.test.ts).
const SPACES: TypedDocumentNode<any> = gql`
  query Spaces($org: String!, $after: String) {
    organization(organizationId: $org) {
      id
      spaces(first: 2, after: $after) {
        edges {
          node {
            id
            title
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`;

let t: TestStack;
let url: string;
/** Every request the clients send: method, and whether it carried the query text. */
const sent: Array<{ method: string; withQuery: boolean }> = [];

beforeAll(async () => {
  t = await startStack();
  for (const title of ['One', 'Two', 'Three']) await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title });
  url = await t.gateway.start();
  const fetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const target = String(input instanceof Request ? input.url : input);
    if (target.startsWith(url))
      sent.push({ method: init?.method ?? 'GET', withQuery: /[?&]query=|"query":/.test(`${target}${init?.body ?? ''}`) });
    return fetch(input, init);
  });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await t?.stop();
});

describe('Apollo Client recipe', () => {
  it('docs/CLIENTS.md shows the recipe as it is', () => {
    expect(shownInDocs('docs/recipes/apollo.ts'), 'docs/recipes/apollo.ts as docs/CLIENTS.md shows it').toBe(true);
  });

  it('APQ: an unknown hash is registered once per caller, then its clients send only the hash, over GET', async () => {
    const org = t.world.orgId;
    sent.splice(0);
    const first = await createApolloClient(url, t.world.users.admin.token).query({ query: SPACES, variables: { org } });
    expect(first.data?.organization.spaces.edges).toHaveLength(2);
    // GET with the hash (PersistedQueryNotFound), then POST with the query and its hash.
    expect(sent).toEqual([
      { method: 'GET', withQuery: false },
      { method: 'POST', withQuery: true },
    ]);

    sent.splice(0);
    const again = await createApolloClient(url, t.world.users.admin.token).query({ query: SPACES, variables: { org } });
    expect(again.data?.organization.id).toBe(first.data?.organization.id);
    expect(sent).toEqual([{ method: 'GET', withQuery: false }]);

    // Another caller's hash alone is not found (it would tell that someone sent the document): it registers its own.
    sent.splice(0);
    const other = await createApolloClient(url, t.world.users.read.token).query({ query: SPACES, variables: { org } });
    expect(other.data?.organization.id).toBe(first.data?.organization.id);
    expect(sent).toEqual([
      { method: 'GET', withQuery: false },
      { method: 'POST', withQuery: true },
    ]);
  });

  it('relayStylePagination merges pages; node(id:) reads a global id from the cache', async () => {
    const client = createApolloClient(url, t.world.users.admin.token);
    const org = t.world.orgId;
    const page1 = await client.query({ query: SPACES, variables: { org } });
    const { endCursor } = page1.data!.organization.spaces.pageInfo;
    // What `fetchMore({ variables: { after: endCursor } })` of a watched query does.
    await client.query({ query: SPACES, variables: { org, after: endCursor }, fetchPolicy: 'network-only' });
    const merged = client.readQuery({ query: SPACES, variables: { org } });
    const titles = merged!.organization.spaces.edges.map((e: { node: { title: string } }) => e.node.title);
    // Two pages of two: the organization's three spaces, once each.
    expect(titles.toSorted()).toEqual(['One', 'Three', 'Two']);

    // Cached under its global id: no request.
    const space = merged!.organization.spaces.edges[0].node;
    sent.splice(0);
    const cached = await client.query<any>({
      query: gql`
        query Node($id: ID!) {
          node(id: $id) {
            id
            ... on Space {
              title
            }
          }
        }
      `,
      variables: { id: space.id },
      fetchPolicy: 'cache-only',
    });
    expect(cached.data?.node).toMatchObject({ id: space.id, title: space.title });
    expect(sent).toEqual([]);
  });

  it('@defer: the deferred fragment arrives and is merged (Defer20220824Handler)', async () => {
    const client = createApolloClient(url, t.world.users.admin.token);
    const result = await client.query<any>({
      query: gql`
        query Deferred($org: String!) {
          organization(organizationId: $org) {
            id
            title
            ... @defer {
              spaces(first: 2) {
                edges {
                  node {
                    id
                    title
                  }
                }
              }
            }
          }
        }
      `,
      variables: { org: t.world.orgId },
    });
    expect(result.error).toBeUndefined();
    expect(result.data?.organization.title).toBe('Acme');
    expect(result.data?.organization.spaces.edges).toHaveLength(2);
  });
});
