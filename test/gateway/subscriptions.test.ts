/**
 * The streamed AI ask as GraphQL subscriptions, over a real loopback gateway in front of the
 * embedded upstream, through three transports: Yoga's own SSE (a plain `accept: text/event-stream`
 * POST to /graphql) and the graphql-sse protocol through its own client, in distinct-connections
 * and single-connection modes (/graphql/stream). The upstream side is observed through its
 * `onAskStreamEnd` hook (how and after how many events each REST stream ended) and through the
 * writes of its HTTP responses (when each REST event left it, with which token).
 */
import { ServerResponse } from 'node:http';
import { createClient } from 'graphql-sse';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseSse } from '../../src/rest/index.js';
import type { AskStreamEnd } from '../../src/upstream/context.js';
import { addAskContent, DOCKER_QUESTION } from '../helpers/askContent.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

// ---------------------------------------------------------------------------------------------
// Upstream-side observation: every event an ask stream of the embedded upstream writes.

interface UpstreamWrite {
  path: string;
  at: number;
  authorization?: string;
}
const upstreamWrites: UpstreamWrite[] = [];
/** When set, the next upstream ask stream dies (socket destroyed) right after its first event. */
let killAfterFirstEvent = false;
const originalWrite = ServerResponse.prototype.write;

function observeUpstreamWrites() {
  ServerResponse.prototype.write = function (this: ServerResponse, chunk: any, ...rest: any[]) {
    const url = this.req?.url ?? '';
    if (!url.startsWith('/v1/orgs/') || !String(chunk).startsWith('data:')) return (originalWrite as any).call(this, chunk, ...rest);
    upstreamWrites.push({ path: url.split('?')[0], at: performance.now(), authorization: this.req.headers.authorization });
    if (!killAfterFirstEvent) return (originalWrite as any).call(this, chunk, ...rest);
    killAfterFirstEvent = false;
    return (originalWrite as any).call(this, chunk, () => this.socket?.destroy());
  } as typeof ServerResponse.prototype.write;
}

// ---------------------------------------------------------------------------------------------
// One subscription through one transport.

const TRANSPORTS = ['yoga-sse', 'graphql-sse distinct', 'graphql-sse single'] as const;
type Transport = (typeof TRANSPORTS)[number];

interface Received {
  result: { data?: any; errors?: any[] };
  at: number;
}

interface Subscription {
  results: Received[];
  /** Resolves when the server completes the subscription; rejects on a transport error. */
  done: Promise<void>;
  /** Waits until `n` results arrived. */
  received(n: number, timeoutMs?: number): Promise<Received[]>;
  dispose(): void;
}

function subscribe(
  transport: Transport,
  graphqlUrl: string,
  token: string | null,
  query: string,
  variables: Record<string, unknown>,
  /** More options of graphql-sse's `createClient`. */
  clientOptions: Record<string, unknown> = {},
): Subscription {
  const results: Received[] = [];
  const push = (result: Received['result']) => results.push({ result, at: performance.now() });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  let dispose: () => void;
  let done: Promise<void>;
  if (transport === 'yoga-sse') {
    const abort = new AbortController();
    dispose = () => abort.abort();
    done = (async () => {
      const res = await fetch(graphqlUrl, {
        method: 'POST',
        headers: { ...headers, accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
        signal: abort.signal,
      });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      for await (const event of parseSse(res.body as unknown as AsyncIterable<Uint8Array>)) {
        if (event.event === 'complete') return;
        if (event.event === 'next') push(JSON.parse(event.data));
      }
      throw new Error('event stream ended without `complete`');
    })();
  } else {
    const client = createClient({
      url: graphqlUrl.replace(/\/graphql$/, '/graphql/stream'),
      singleConnection: transport === 'graphql-sse single',
      headers,
      retryAttempts: 0,
      ...clientOptions,
    });
    let unsubscribe = () => {};
    done = new Promise<void>((resolve, reject) => {
      unsubscribe = client.subscribe({ query, variables }, { next: push, error: reject, complete: resolve });
    }).finally(() => {
      // A non-lazy client keeps its stream open after its operations: the test decides.
      if (clientOptions.lazy !== false) client.dispose();
    });
    dispose = () => {
      unsubscribe();
      client.dispose();
    };
  }
  done.catch(() => undefined);
  return {
    results,
    done,
    dispose,
    async received(n, timeoutMs = 5000) {
      await until(() => results.length >= n, timeoutMs, `${n} results`);
      return results;
    },
  };
}

async function until(condition: () => boolean, timeoutMs: number, what: string) {
  const ends = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > ends) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

const ASK = /* GraphQL */ `
  subscription Ask($organizationId: String!, $query: String!, $format: ContentFormat) {
    askStream(organizationId: $organizationId, query: $query, format: $format) {
      answer {
        markdown
      }
      followupQuestions
      sources {
        type
        page
        revision
        sections
        reason
        space {
          title
        }
      }
    }
  }
`;

const QUESTIONS = /* GraphQL */ `
  subscription Questions($organizationId: String!) {
    suggestedQuestionsStream(organizationId: $organizationId)
  }
`;

const errorOf = (r: Received) => r.result.errors?.[0];

// ---------------------------------------------------------------------------------------------

let t: TestStack;
let url: string;
let titles: Record<string, string>;
const ends: AskStreamEnd[] = [];
const askVars = () => ({ organizationId: t.world.orgId, query: DOCKER_QUESTION, format: 'MARKDOWN' });

beforeAll(async () => {
  observeUpstreamWrites();
  t = await startStack({}, { askStreamDelayMs: 20, onAskStreamEnd: (end) => ends.push(end) });
  const spaces = Object.values(addAskContent(t));
  titles = Object.fromEntries(spaces.map((space) => [space.id, space.title]));
  url = await t.gateway.start();
});
afterAll(async () => {
  ServerResponse.prototype.write = originalWrite;
  await t.stop();
});
afterEach(() => {
  killAfterFirstEvent = false;
});

describe.each(TRANSPORTS)('askStream over %s', (transport) => {
  it('yields each REST event in order, the answer growing; the last carries followups and sources', async () => {
    const rest = await t.api.post(`/orgs/${t.world.orgId}/ask`, { query: DOCKER_QUESTION }, { format: 'markdown' });
    const endsBefore = ends.length;
    t.resetCalls();
    const sub = subscribe(transport, url, t.world.users.admin.token, ASK, askVars());
    await sub.done;
    const answers = sub.results.map((r) => {
      expect(r.result.errors).toBeUndefined();
      return r.result.data.askStream;
    });
    // One GraphQL event per REST event, none lost or merged.
    expect(ends.slice(endsBefore)).toEqual([{ stream: 'answer', reason: 'complete', events: answers.length }]);
    expect(answers.length).toBeGreaterThan(2);
    answers.slice(1).forEach((a, i) => {
      expect(a.answer.markdown.startsWith(answers[i].answer.markdown)).toBe(true);
      expect(a.answer.markdown.length).toBeGreaterThan(answers[i].answer.markdown.length);
    });
    answers.slice(0, -1).forEach((a) => expect(a.sources).toEqual([]));
    const last = answers.at(-1);
    const expected = rest.body.answer;
    expect(last.answer.markdown).toBe(expected.answer.markdown);
    expect(last.followupQuestions).toEqual(expected.followupQuestions);
    expect(last.sources.map(({ space, ...rest }: any) => rest)).toEqual(
      expected.sources.map(({ space, type, ...rest }: any) => ({ ...rest, type: type.toUpperCase() })),
    );
    // The `space` edge is the source's space.
    expect(last.sources.map((s: any) => s.space.title)).toEqual(expected.sources.map((s: any) => titles[s.space]));
    expect(new Set(Object.values(titles))).toEqual(new Set(last.sources.map((s: any) => s.space.title)));
    // One REST stream, read through the REST client; each source space fetched once.
    expect(t.calls.filter((c) => c.path.endsWith('/ask/stream'))).toEqual([
      expect.objectContaining({ method: 'GET', path: `/orgs/${t.world.orgId}/ask/stream`, status: 200 }),
    ]);
    expect(t.calls.filter((c) => c.path.startsWith('/spaces/')).length).toBe(2);
  });

  it("forwards the caller's token to the REST stream", async () => {
    const before = upstreamWrites.length;
    const sub = subscribe(transport, url, t.world.users.read.token, ASK, askVars());
    await sub.done;
    const seen = upstreamWrites.slice(before).filter((w) => w.path.endsWith('/ask/stream'));
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen.map((w) => w.authorization))).toEqual(new Set([`Bearer ${t.world.users.read.token}`]));
  });

  it('suggestedQuestionsStream yields each question in order, then completes', async () => {
    const rest = await t.api.get(`/orgs/${t.world.orgId}/ask/questions`);
    const sub = subscribe(transport, url, t.world.users.admin.token, QUESTIONS, { organizationId: t.world.orgId });
    await sub.done;
    expect(rest.body.questions.length).toBeGreaterThan(1);
    expect(sub.results.map((r) => r.result.data.suggestedQuestionsStream)).toEqual(rest.body.questions);
  });

  it('a bad token gives UNAUTHENTICATED, then completes', async () => {
    const sub = subscribe(transport, url, 'not-a-token', ASK, askVars());
    await sub.done;
    expect(sub.results).toHaveLength(1);
    expect(sub.results[0].result.data).toBeNull();
    expect(errorOf(sub.results[0])).toMatchObject({
      path: ['askStream'],
      extensions: { code: 'UNAUTHENTICATED', upstream: { status: 401, method: 'GET', path: `/orgs/${t.world.orgId}/ask/stream` } },
    });
    expect(JSON.stringify(sub.results)).not.toContain('not-a-token');
  });

  it('an organization the caller is not in gives NOT_FOUND', async () => {
    const sub = subscribe(transport, url, t.world.users.outsider.token, QUESTIONS, { organizationId: t.world.orgId });
    await sub.done;
    expect(sub.results.map((r) => errorOf(r)?.extensions.code)).toEqual(['NOT_FOUND']);
  });

  it('an empty query gives BAD_USER_INPUT before any REST call', async () => {
    t.resetCalls();
    const sub = subscribe(transport, url, t.world.users.admin.token, ASK, { ...askVars(), query: '' });
    await sub.done;
    expect(sub.results.map((r) => errorOf(r)?.extensions)).toEqual([{ code: 'BAD_USER_INPUT', field: 'query' }]);
    expect(t.calls).toEqual([]);
  });

  it('@skip or @include at its root is BAD_USER_INPUT (the spec forbids it), with no call', async () => {
    // graphql-js 16 picks the one root field without the variables: a literal condition that
    // leaves none was an "Unexpected error." UPSTREAM_ERROR (a TypeError, an ERROR line), and a
    // variable made validation throw that the variable was not given, whatever its value.
    const org = t.world.orgId;
    const cases: Array<[string, Record<string, unknown>]> = [
      ['subscription Q($org: String!) { suggestedQuestionsStream(organizationId: $org) @skip(if: true) }', { org }],
      [
        'subscription Q($org: String!, $on: Boolean!) { ... @include(if: $on) { suggestedQuestionsStream(organizationId: $org) } }',
        { org, on: true },
      ],
    ];
    for (const [query, variables] of cases) {
      t.resetCalls();
      const sub = subscribe(transport, url, null, query, variables);
      const refused = await sub.done.then(
        () => sub.results.map(errorOf),
        (error: unknown) => (Array.isArray(error) ? error : [error]),
      );
      expect(refused).toEqual([
        expect.objectContaining({
          message: 'Subscription "Q" must not use `@skip` or `@include` directives in the top level selection.',
          extensions: { code: 'BAD_USER_INPUT' },
        }),
      ]);
      expect(t.calls).toEqual([]);
    }
  });

  it('an upstream dying mid-stream ends the subscription with UPSTREAM_UNAVAILABLE; the next request is served', async () => {
    killAfterFirstEvent = true;
    const sub = subscribe(transport, url, t.world.users.admin.token, ASK, askVars());
    await sub.done;
    expect(sub.results).toHaveLength(2);
    expect(sub.results[0].result.data.askStream.answer.markdown).toBeTruthy();
    expect(sub.results[1].result.data).toBeNull();
    expect(errorOf(sub.results[1])).toMatchObject({
      path: ['askStream'],
      message: 'Upstream unavailable: event stream interrupted',
      extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: { status: null, method: 'GET' } },
    });
    const next = subscribe(transport, url, t.world.users.admin.token, ASK, askVars());
    await next.done;
    expect(next.results.at(-1)!.result.data.askStream.sources.length).toBeGreaterThan(0);
    const viewer = await t.data('{ viewer { restId } }');
    expect(viewer.viewer.restId).toBe(t.world.users.admin.id);
  });
});

describe('timing and cancellation (upstream pauses 150 ms between events)', () => {
  const DELAY = 150;
  let s: TestStack;
  let sUrl: string;
  const sEnds: AskStreamEnd[] = [];
  beforeAll(async () => {
    s = await startStack({}, { askStreamDelayMs: DELAY, onAskStreamEnd: (end) => sEnds.push(end) });
    addAskContent(s);
    sUrl = await s.gateway.start();
  });
  afterAll(() => s.stop());

  it.each(TRANSPORTS)('%s: each event reaches the client within a few ms of the upstream sending it', async (transport) => {
    const before = upstreamWrites.length;
    const sub = subscribe(transport, sUrl, s.world.users.admin.token, ASK, { ...askVars(), organizationId: s.world.orgId });
    await sub.done;
    const sent = upstreamWrites.slice(before).filter((w) => w.path.endsWith('/ask/stream'));
    expect(sub.results.length).toBe(sent.length);
    expect(sent.length).toBeGreaterThan(2);
    // Each event reaches the client before the upstream sends the next one (150 ms later): nothing
    // waits for more data, and the events come as the upstream paced them, not in a burst. A
    // buffered event would come with or after the next. (Times are of this one process.)
    sub.results.slice(0, -1).forEach((r, i) => expect(r.at, `event ${i}`).toBeLessThan(sent[i + 1].at));
  });
});

// Its own stack, with 3 s between events: the dispose must reach the upstream before its second
// event, which at 150 ms it did not always at a load average of 10 (CI with other work running).
describe('cancellation (upstream pauses 3 s between events)', () => {
  let s: TestStack;
  let sUrl: string;
  const sEnds: AskStreamEnd[] = [];
  beforeAll(async () => {
    s = await startStack({}, { askStreamDelayMs: 3000, onAskStreamEnd: (end) => sEnds.push(end) });
    addAskContent(s);
    sUrl = await s.gateway.start();
  });
  afterAll(() => s.stop());

  it.each(TRANSPORTS)('%s: an early dispose aborts the upstream stream at once', async (transport) => {
    const before = sEnds.length;
    const sub = subscribe(transport, sUrl, s.world.users.admin.token, ASK, { ...askVars(), organizationId: s.world.orgId });
    await sub.received(1);
    sub.dispose();
    await until(() => sEnds.length > before, 10_000, 'the upstream stream to end');
    // Seen on the upstream side: aborted after the first event, before the next was sent.
    expect(sEnds.slice(before)).toEqual([{ stream: 'answer', reason: 'aborted', events: 1 }]);
    expect(sub.results).toHaveLength(1);
  });
});

describe('an upstream that stalls mid-stream', () => {
  it.each(TRANSPORTS)('%s: ends the subscription with UPSTREAM_UNAVAILABLE after the idle timeout', async (transport) => {
    const sEnds: AskStreamEnd[] = [];
    await using s = await startStack(
      { rest: { streamIdleTimeoutMs: 200 } },
      { askStreamDelayMs: 60_000, onAskStreamEnd: (e) => sEnds.push(e) },
    );
    addAskContent(s);
    const sUrl = await s.gateway.start();
    const before = upstreamWrites.length;
    const sub = subscribe(transport, sUrl, s.world.users.admin.token, ASK, { ...askVars(), organizationId: s.world.orgId });
    await sub.done;
    expect(sub.results).toHaveLength(2);
    // The error comes at least the idle timeout after the upstream sent its event (a lower bound:
    // a loaded machine only makes it later).
    const sentFirst = upstreamWrites.slice(before).find((w) => w.path.endsWith('/ask/stream'))!;
    expect(sub.results[1].at - sentFirst.at).toBeGreaterThanOrEqual(199);
    expect(errorOf(sub.results[1])).toMatchObject({
      path: ['askStream'],
      message: 'Upstream unavailable: no event stream data for 200 ms',
      extensions: { code: 'UPSTREAM_UNAVAILABLE' },
    });
    await until(() => sEnds.length > 0, 10_000, 'the upstream stream to end');
    expect(sEnds).toEqual([{ stream: 'answer', reason: 'aborted', events: 1 }]);
  });
});

describe('gateway shutdown', () => {
  it('ends open subscriptions of every transport promptly, each saying it was cut, and their upstream streams', async () => {
    const sEnds: AskStreamEnd[] = [];
    const s = await startStack({}, { askStreamDelayMs: 60_000, onAskStreamEnd: (e) => sEnds.push(e) });
    addAskContent(s);
    const sUrl = await s.gateway.start();
    const vars = { ...askVars(), organizationId: s.world.orgId };
    const subs = TRANSPORTS.map((transport) => subscribe(transport, sUrl, s.world.users.admin.token, ASK, vars));
    // A non-lazy single-connection client keeps its event stream open with no operation left: the
    // gateway ends that stream too (else stop() would wait for the drain grace, 5 s, to destroy it).
    const eager = { lazy: false, onNonLazyError: () => undefined };
    subs.push(subscribe('graphql-sse single', sUrl, s.world.users.admin.token, ASK, vars, eager));
    await Promise.all(subs.map((sub) => sub.received(1)));
    // No grace to wait out: a stop that needed one (a stream left open) never ends, and the test
    // times out, whatever the machine's load.
    await s.gateway.stop(24 * 60 * 60 * 1000);
    // Every subscription completed (no transport error), its last result saying its answer was
    // cut: a `complete` alone told the client an answer cut mid-way was whole.
    await Promise.all(subs.map((sub) => sub.done));
    for (const sub of subs) {
      expect(sub.results.map((r) => r.result.errors?.[0]?.extensions?.code)).toEqual([undefined, 'UPSTREAM_UNAVAILABLE']);
      expect(sub.results.at(-1)!.result.errors![0].message).toBe('Upstream unavailable: the gateway is stopping');
    }
    await until(() => sEnds.length === 4, 10_000, 'the upstream streams to end');
    expect(sEnds).toEqual(Array(4).fill({ stream: 'answer', reason: 'aborted', events: 1 }));
    subs.at(-1)!.dispose();
    await s.upstream.stop();
  });
});
