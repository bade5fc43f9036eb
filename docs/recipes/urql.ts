// urql against docs-graph: automatic persisted queries (hashed queries over GET) and subscriptions
// over graphql-sse's endpoint, /graphql/stream.
import { cacheExchange, Client, fetchExchange, subscriptionExchange } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import { createClient as createSSEClient } from 'graphql-sse';

export function createUrqlClient(url: string, token: string): Client {
  const headers = { authorization: `Bearer ${token}` };
  // One HTTP/2-friendly event stream per subscription; graphql-sse takes query text (not hashes).
  const sse = createSSEClient({ url: `${url}/stream`, headers });
  return new Client({
    url,
    fetchOptions: { headers },
    exchanges: [
      cacheExchange,
      // An unknown hash answers PersistedQueryNotFound: the exchange sends the query once with it.
      persistedExchange({ preferGetForPersistedQueries: true }),
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (operation) => ({
          subscribe: (sink) => ({ unsubscribe: sse.subscribe({ ...operation, query: operation.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
}
