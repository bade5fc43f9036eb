/**
 * Persisted subscriptions over graphql-sse under `--persisted-only`: graphql-sse's handler keeps
 * only query/operationName/variables/extensions, so a client (the example app's Relay network)
 * names the document as `extensions.persistedQuery.sha256Hash` with an empty `query`. Both
 * graphql-sse modes, through graphql-sse's own client; raw and unknown documents stay refused.
 */
import { createHash } from 'node:crypto';
import { createClient, type ExecutionResult } from 'graphql-sse';
import { describe, expect, it } from 'vitest';
import { addAskContent, DOCKER_QUESTION } from '../helpers/askContent.js';
import { startReplica, stopAfterEach } from '../helpers/redis.js';
import { startUpstream } from '../helpers/upstream.js';

const ASK =
  'subscription Ask($organizationId: String!, $query: String!) { askStream(organizationId: $organizationId, query: $query) { answer { markdown } sources { space { title } } } }';
const ID = createHash('md5').update(ASK).digest('hex'); // as Relay's persistConfig names it

type Answer = { askStream: { answer: { markdown: string } | null; sources: Array<{ space: { title: string } }> } };

describe('persisted subscriptions over graphql-sse', () => {
  const track = stopAfterEach();

  const start = async () => {
    const upstream = track(await startUpstream());
    addAskContent(upstream);
    const r = track(startReplica(upstream.url, { persistedOperations: { documents: { [ID]: ASK }, only: true } }));
    return { r, token: upstream.world.users.admin.token, organizationId: upstream.world.orgId };
  };

  const run = (
    s: Awaited<ReturnType<typeof start>>,
    singleConnection: boolean,
    request: { query: string; extensions?: Record<string, unknown> },
  ) => {
    const client = createClient({
      url: 'http://gateway.test/graphql/stream',
      singleConnection,
      retryAttempts: 0,
      headers: { authorization: `Bearer ${s.token}` },
      fetchFn: (input: string, init: RequestInit) => s.r.gateway.yoga.fetch(input, init),
    });
    const results: ExecutionResult<Answer, unknown>[] = [];
    return new Promise<ExecutionResult<Answer, unknown>[]>((resolve, reject) => {
      client.subscribe<Answer>(
        { ...request, variables: { organizationId: s.organizationId, query: DOCKER_QUESTION } },
        { next: (r) => results.push(r), error: reject, complete: () => resolve(results) },
      );
    }).finally(() => client.dispose());
  };

  for (const singleConnection of [false, true]) {
    it(`runs a persisted id (${singleConnection ? 'single connection' : 'distinct connections'}); refuses raw and unknown documents`, async () => {
      const s = await start();
      const answers = await run(s, singleConnection, { query: '', extensions: { persistedQuery: { version: 1, sha256Hash: ID } } });
      expect(answers.length).toBeGreaterThan(1);
      expect(answers.every((a) => a.errors === undefined)).toBe(true);
      const last = answers.at(-1)!.data!.askStream;
      expect(last.answer?.markdown).toMatch(/docker/i);
      expect(last.sources.map((source) => source.space.title)).toContain('Guides');

      const raw = await run(s, singleConnection, { query: ASK });
      expect(raw[0].errors?.[0].message).toMatch(/Only persisted operations/);
      const unknown = await run(s, singleConnection, { query: '', extensions: { persistedQuery: { version: 1, sha256Hash: 'nope' } } });
      // As over HTTP: an APQ client registers the query on this answer.
      expect(unknown[0].errors?.[0]).toMatchObject({
        message: 'PersistedQueryNotFound',
        extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
      });
      expect(s.r.calls.filter((c) => c.path.includes('/ask'))).toHaveLength(1);
    });
  }
});
