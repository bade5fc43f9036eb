/**
 * The Relay recipe (docs/recipes/relay/, shown in docs/CLIENTS.md) against a gateway on a real
 * loopback port started with the compiler's persisted-queries.json and --persisted-only, with
 * relay-runtime from npm and no React: the network layer sends ids only (queries over GET), the
 * pagination query that `usePaginationFragment`'s `loadNext` runs appends to the connection, and a
 * mutation appends its node. The artifacts are relay-compiler's output for relay.config.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { commitLocalUpdate, commitMutation, ConnectionHandler, fetchQuery, type Environment } from 'relay-runtime';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRelayEnvironment } from '../../docs/recipes/relay/environment.js';
import SpaceListCreateMutation from '../../docs/recipes/relay/__generated__/SpaceListCreateMutation.graphql.js';
import SpaceListPaginationQuery from '../../docs/recipes/relay/__generated__/SpaceListPaginationQuery.graphql.js';
import SpaceListQuery, {
  type SpaceListQuery as SpaceListQueryType,
} from '../../docs/recipes/relay/__generated__/SpaceListQuery.graphql.js';
import { loadPersistedOperations } from '../../src/gateway/plugins/usePersistedOperations.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { shownInDocs } from './shownInDocs.js';

const recipe = join(import.meta.dirname, '../../docs/recipes/relay');
const relayCompiler = join(import.meta.dirname, '../../node_modules/.bin/relay-compiler');

let t: TestStack;
let url: string;
const sent: Array<{ method: string; search: string }> = [];

beforeAll(async () => {
  const manifest = loadPersistedOperations(join(recipe, 'persisted-queries.json'));
  t = await startStack({ persistedOperations: { documents: manifest, only: true } });
  for (const title of ['One', 'Two', 'Three']) await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title });
  url = await t.gateway.start();
  const fetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const target = new URL(String(input instanceof Request ? input.url : input));
    if (target.href.startsWith(url)) sent.push({ method: init?.method ?? 'GET', search: target.search });
    return fetch(input, init);
  });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await t?.stop();
});

/** The titles of the organization's `SpaceList_spaces` connection in the store, as the list renders them. */
function listedTitles(env: Environment, orgId: string): string[] {
  let titles: string[] = [];
  commitLocalUpdate(env, (store) => {
    const connection = ConnectionHandler.getConnection(store.get(orgId)!, 'SpaceList_spaces')!;
    titles = connection.getLinkedRecords('edges')!.map((edge) => edge!.getLinkedRecord('node')!.getValue('title') as string);
  });
  return titles;
}

describe('Relay recipe', () => {
  it('docs/CLIENTS.md shows the recipe as it is', () => {
    expect(shownInDocs('docs/recipes/relay/relay.config.json'), 'docs/recipes/relay/relay.config.json as docs/CLIENTS.md shows it').toBe(
      true,
    );
    expect(shownInDocs('docs/recipes/relay/environment.ts'), 'docs/recipes/relay/environment.ts as docs/CLIENTS.md shows it').toBe(true);
    expect(shownInDocs('docs/recipes/relay/SpaceList.ts'), 'docs/recipes/relay/SpaceList.ts as docs/CLIENTS.md shows it').toBe(true);
  });

  // relay-compiler is a devDependency of the schema tooling (test/clients/relayCompiler*): with it,
  // the committed artifacts are checked against relay.config.json and schema.graphql.
  it.skipIf(!existsSync(relayCompiler))('the committed artifacts are what relay-compiler writes from relay.config.json', () => {
    expect(() => execFileSync(relayCompiler, ['--validate', 'relay.config.json'], { cwd: recipe, stdio: 'pipe' })).not.toThrow();
  });

  it('queries by documentId over GET; loadNext pages append; a mutation appends its node', async () => {
    const env = createRelayEnvironment(url, t.world.users.admin.token);
    sent.splice(0);
    const data = await fetchQuery<SpaceListQueryType>(env, SpaceListQuery, { org: t.world.orgId }).toPromise();
    expect(data?.organization?.title).toBe('Acme');
    expect(sent).toHaveLength(1);
    expect(sent[0].method).toBe('GET');
    expect(new URLSearchParams(sent[0].search).get('documentId')).toBe(SpaceListQuery.params.id);
    const orgId = data!.organization!.id;
    expect(listedTitles(env, orgId)).toHaveLength(2);

    // What loadNext(2) runs: the refetchable fragment's query, from the connection's end cursor.
    let endCursor: string | undefined;
    commitLocalUpdate(env, (store) => {
      endCursor = ConnectionHandler.getConnection(store.get(orgId)!, 'SpaceList_spaces')!
        .getLinkedRecord('pageInfo')!
        .getValue('endCursor') as string;
    });
    await fetchQuery(env, SpaceListPaginationQuery, { id: orgId, first: 2, after: endCursor }).toPromise();
    expect(listedTitles(env, orgId).toSorted()).toEqual(['One', 'Three', 'Two']);

    sent.splice(0);
    const connection = ConnectionHandler.getConnectionID(orgId, 'SpaceList_spaces');
    await new Promise((resolve, reject) =>
      commitMutation(env, {
        mutation: SpaceListCreateMutation,
        variables: { org: t.world.orgId, title: 'Four', connections: [connection] },
        onCompleted: resolve,
        onError: reject,
      }),
    );
    expect(sent.map((s) => s.method)).toEqual(['POST']);
    expect(listedTitles(env, orgId)).toHaveLength(4);
    expect(listedTitles(env, orgId).at(-1)).toBe('Four');
  });
});
