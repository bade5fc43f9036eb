// Relay's network layer for docs-graph: persisted documents by id (`persistConfig` in
// relay.config.json puts the text in persisted-queries.json and only the id in the artifacts),
// queries over GET (cacheable), mutations over POST.
import { Environment, Network, RecordSource, Store, type FetchFunction, type GraphQLResponse } from 'relay-runtime';

export function createRelayEnvironment(url: string, token: string): Environment {
  const fetchFn: FetchFunction = async (params, variables) => {
    const documentId = params.id!;
    const headers = { authorization: `Bearer ${token}`, accept: 'application/graphql-response+json' };
    const response =
      params.operationKind === 'query'
        ? await fetch(`${url}?${new URLSearchParams({ documentId, operationName: params.name, variables: JSON.stringify(variables) })}`, { headers })
        : await fetch(url, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ documentId, operationName: params.name, variables }),
          });
    return (await response.json()) as GraphQLResponse;
  };
  return new Environment({ network: Network.create(fetchFn), store: new Store(new RecordSource()) });
}
