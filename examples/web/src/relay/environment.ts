/**
 * The Relay environment of one caller (its token). Every request names a persisted document by
 * the id relay-compiler wrote into the artifact (`params.id`): queries as
 * `GET /graphql?documentId=…&variables=…`, mutations as `POST {documentId, variables}`, and
 * subscriptions over graphql-sse, where the id travels as `extensions.persistedQuery.sha256Hash`
 * (graphql-sse carries no `documentId`). No document text ever leaves the page.
 */
import { createClient } from 'graphql-sse';
import {
  Environment,
  Network,
  Observable,
  RecordSource,
  Store,
  type FetchFunction,
  type GraphQLResponse,
  type SubscribeFunction,
} from 'relay-runtime';

const GRAPHQL = '/graphql';

export function createEnvironment(token: string | null): Environment {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};

  const fetchQuery: FetchFunction = async (params, variables) => {
    const headers = { accept: 'application/graphql-response+json, application/json', ...auth };
    const response =
      params.operationKind === 'query'
        ? await fetch(`${GRAPHQL}?${new URLSearchParams({ documentId: params.id!, variables: JSON.stringify(variables) })}`, { headers })
        : await fetch(GRAPHQL, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ documentId: params.id, variables }),
          });
    return (await response.json()) as GraphQLResponse;
  };

  const sse = createClient({ url: `${GRAPHQL}/stream`, headers: auth, retryAttempts: 0 });
  const subscribe: SubscribeFunction = (params, variables) =>
    Observable.create<GraphQLResponse>((sink) =>
      sse.subscribe<Record<string, unknown>>(
        { query: '', operationName: params.name, variables, extensions: { persistedQuery: { version: 1, sha256Hash: params.id } } },
        {
          next: (result) => sink.next(result as GraphQLResponse),
          error: (error) => sink.error(error as Error),
          complete: () => sink.complete(),
        },
      ),
    );

  return new Environment({ network: Network.create(fetchQuery, subscribe), store: new Store(new RecordSource()) });
}
