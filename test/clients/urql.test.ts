/**
 * The urql recipe (docs/recipes/urql.ts, shown in docs/CLIENTS.md) against a gateway on a real
 * loopback port, with @urql/core, @urql/exchange-persisted and graphql-sse's client from npm.
 */
import { gql } from '@urql/core';
import { onEnd, pipe, subscribe } from 'wonka';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUrqlClient } from '../../docs/recipes/urql.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { shownInDocs } from './shownInDocs.js';

let t: TestStack;
let url: string;
const sent: Array<{ method: string; path: string; withQuery: boolean }> = [];

beforeAll(async () => {
  t = await startStack();
  url = await t.gateway.start();
  const fetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const target = String(input instanceof Request ? input.url : input);
    if (target.startsWith(url))
      sent.push({
        method: init?.method ?? 'GET',
        path: new URL(target).pathname,
        withQuery: /[?&]query=|"query":/.test(`${target}${init?.body ?? ''}`),
      });
    return fetch(input, init);
  });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await t?.stop();
});

describe('urql recipe', () => {
  it('docs/CLIENTS.md shows the recipe as it is', () => {
    expect(shownInDocs('docs/recipes/urql.ts'), 'docs/recipes/urql.ts as docs/CLIENTS.md shows it').toBe(true);
  });

  it('persisted exchange: registers a query once (its text and hash), then sends only its hash, over GET', async () => {
    const query = gql`
      query Viewer {
        viewer {
          id
          displayName
        }
      }
    `;
    sent.splice(0);
    const first = await createUrqlClient(url, t.world.users.admin.token).query(query, {}).toPromise();
    expect(first.data).toMatchObject({ viewer: { displayName: 'Ada admin' } });
    expect(sent.map(({ method, withQuery }) => ({ method, withQuery }))).toEqual([
      { method: 'GET', withQuery: false },
      { method: 'GET', withQuery: true },
    ]);
    sent.splice(0);
    const again = await createUrqlClient(url, t.world.users.admin.token).query(query, {}).toPromise();
    expect(again.data).toMatchObject({ viewer: { displayName: 'Ada admin' } });
    expect(sent.map(({ method, withQuery }) => ({ method, withQuery }))).toEqual([{ method: 'GET', withQuery: false }]);
    // Another caller registers it for itself: a hash is found only for the caller that registered it.
    sent.splice(0);
    const other = await createUrqlClient(url, t.world.users.read.token).query(query, {}).toPromise();
    expect(other.data).toMatchObject({ viewer: { displayName: 'Ada read' } });
    expect(sent.map(({ method, withQuery }) => ({ method, withQuery }))).toEqual([
      { method: 'GET', withQuery: false },
      { method: 'GET', withQuery: true },
    ]);
  });

  it('subscriptions go over graphql-sse to /graphql/stream', async () => {
    const rest = await t.api.get(`/orgs/${t.world.orgId}/ask/questions`);
    const client = createUrqlClient(url, t.world.users.admin.token);
    const questions: string[] = [];
    sent.splice(0);
    await new Promise<void>((resolve, reject) => {
      pipe(
        client.subscription(
          gql`
            subscription Questions($org: String!) {
              suggestedQuestionsStream(organizationId: $org)
            }
          `,
          { org: t.world.orgId },
        ),
        onEnd(resolve),
        subscribe((result) => (result.error ? reject(result.error) : questions.push(result.data.suggestedQuestionsStream))),
      );
    });
    expect(questions).toEqual(rest.body.questions);
    expect(sent.map((s) => s.path)).toEqual(['/graphql/stream']);
  });
});
