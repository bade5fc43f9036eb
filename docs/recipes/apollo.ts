// Apollo Client 4 against docs-graph: normalized cache keyed by global ids, connections merged by
// relayStylePagination, automatic persisted queries (hashed queries over GET), and @defer.
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { relayStylePagination } from '@apollo/client/utilities';

/** SHA-256 of the query text, hex (Web Crypto: browsers and Node alike). */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export function createApolloClient(url: string, token: string): ApolloClient {
  const cache = new InMemoryCache({
    // Every Node's `id` is a global id, unique across types: it is the cache key as is.
    dataIdFromObject: (object) => (typeof object.id === 'string' ? object.id : undefined),
    typePolicies: {
      Query: {
        fields: {
          // node(id:) and nodes(ids:) read what is already cached under that id.
          node: { read: (existing, { args, toReference }) => existing ?? toReference(args!.id as string) },
          organizations: relayStylePagination(),
        },
      },
      // Connections take `first`/`after`; other arguments (filters) name distinct lists.
      Organization: { fields: { spaces: relayStylePagination(), members: relayStylePagination() } },
      Space: { fields: { changeRequests: relayStylePagination(['status', 'contributor']) } },
    },
  });
  const link = ApolloLink.from([
    // An unknown hash answers PersistedQueryNotFound (code PERSISTED_QUERY_NOT_FOUND): the link then
    // sends the query with its hash once, and the gateway registers it for every replica.
    new PersistedQueryLink({ sha256, useGETForHashedQueries: true }),
    new HttpLink({ uri: url, headers: { authorization: `Bearer ${token}` } }),
  ]);
  // Apollo Client 4 needs an incremental handler for @defer (the gateway speaks the 2022-08-24 format).
  return new ApolloClient({ cache, link, incrementalHandler: new Defer20220824Handler() });
}
