/**
 * Bounds in bytes on what a caller sends and what the gateway answers (issue 18): document bytes
 * before parsing, operation names wherever they are kept, response bytes. Each refusal is a
 * BAD_USER_INPUT naming its limit, checked over real HTTP against the embedded upstream.
 */
import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';
import { parse } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { exampleQuery } from '../../src/gateway/example.js';
import { parseCache, parsedBytes } from '../../src/gateway/lib/parseCache.js';
import { DEFAULTS } from '../../src/config.js';
import { startStack, type GqlResult, type TestStack } from '../helpers/gateway.js';
import { bytesReadBy, httpStack, sendRaw } from '../helpers/httpStack.js';
import { fakeClock, settlesAt, until } from '../helpers/clock.js';
import { startBadServer } from '../helpers/badServer.js';
import { startChaosStack } from '../helpers/chaosProxy.js';
import { buildGateway } from '../../src/gateway/app.js';

const stack = httpStack();
let t: TestStack;
beforeAll(() => void (t = stack.t));
/** POSTs a GraphQL request over the gateway's port, as the admin unless `token` is null. */
const post = async (body: unknown, token: string | null = t.world.users.admin.token) =>
  stack.post(body, token ? `Bearer ${token}` : undefined);

/** A refusal by `limit`: BAD_USER_INPUT, no data, no REST call. */
function expectLimit(result: GqlResult, limit: string, maximum: number) {
  expect(result.data ?? null).toBeNull();
  expect(result.errors).toHaveLength(1);
  expect(result.errors![0].message).toMatch(new RegExp(`^${limit}: .*\\b${maximum}\\b`));
  expect(result.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit, maximum });
  return result.errors![0];
}

describe('document bytes', () => {
  const max = DEFAULTS.limits.maxDocumentBytes;

  it('defaults to 64 KiB, far above real documents', async () => {
    expect(max).toBe(65_536);
    const example = exampleQuery(t.world.orgId);
    expect(Buffer.byteLength(example) * 32).toBeLessThan(max);
    const { result } = await post({ query: example });
    expect(result.errors).toBeUndefined();
  });

  it('a `{ __typename }` padded with whitespace to 900 KB is refused before parsing, with no REST call', async () => {
    t.resetCalls();
    const query = `{ __typename ${' '.repeat(900_000)}}`;
    const { result } = await post({ query });
    const error = expectLimit(result, 'maxDocumentBytes', max);
    expect(error.message).toBe(`maxDocumentBytes: Document size limit of ${max} bytes exceeded, found ${query.length}.`);
    expect(error.extensions!.actual).toBe(query.length);
    expect(t.calls).toEqual([]);
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const query = `{ __typename } # ${'é'.repeat(max / 2)}`;
    expect(query.length).toBeLessThan(max);
    expectLimit((await post({ query })).result, 'maxDocumentBytes', max);
  });

  it('is a setting', async () => {
    await using s = await startStack({ limits: { maxDocumentBytes: 100 } });
    expect((await s.gql(`{ __typename ${' '.repeat(80)}}`)).data).toEqual({ __typename: 'Query' });
    const res = await s.gql(`{ __typename ${' '.repeat(100)}}`);
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxDocumentBytes', maximum: 100, actual: 114 });
  });
});

describe('the parse cache', () => {
  /** A distinct document of about 1,900 tokens (within the token limit), 13 KB. */
  const dense = (i: number) => `query Q${i} { ${Array.from({ length: 315 }, (_, j) => `a${j}: viewer { id }`).join(' ')} }`;

  it('is bounded in bytes: documents within every limit cannot fill the heap through it', () => {
    const cache = parseCache(4 * 1024 * 1024);
    for (let i = 0; i < 40; i++) cache.documentCache.set(dense(i), parse(dense(i)));
    // 1024 of them would hold 1024 × (13 KB + 1,900 tokens × 300 B) ≈ 600 MB; the cache keeps what fits.
    expect(parsedBytes(dense(0), parse(dense(0)))).toBeGreaterThan(500_000);
    expect(cache.documentCache.calculatedSize).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(cache.documentCache.size).toBeLessThan(10);
    expect(cache.documentCache.has(dense(39))).toBe(true);
  });
});

describe('response bytes', () => {
  const max = DEFAULTS.limits.maxResponseBytes;
  /** A comment of 200 KB: 100 occurrences of it answer 20 MB, 30 aliases 6 MB. */
  const BIG = 200_000;
  let commentId: string;

  beforeAll(async () => {
    const spaceId = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Big talk' })).body.id;
    const cr = (await t.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Long comment' })).body;
    const comment = (await t.api.post(`/spaces/${spaceId}/change-requests/${cr.id}/comments`, { body: { markdown: 'x'.repeat(BIG) } }))
      .body;
    const data = await t.data(
      `{ changeRequest(spaceId: "${spaceId}", changeRequestId: "${cr.id}") { comments(first: 1) { nodes { id } } } }`,
    );
    commentId = data.changeRequest.comments.nodes[0].id;
    expect(comment.id).toBeTruthy();
  });

  const nodesOf = (n: number) =>
    post({
      query: 'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Comment { body { markdown } } } }',
      variables: { ids: Array(n).fill(commentId) },
    });

  it('defaults to 4 MiB; a result within it is answered whole', async () => {
    expect(max).toBe(4 * 1024 * 1024);
    const { result } = await nodesOf(4);
    expect(result.errors).toBeUndefined();
    expect(result.data.nodes.map((n: any) => n.body.markdown.length)).toEqual([BIG, BIG, BIG, BIG]);
  });

  it('one id repeated in nodes(ids:) is priced per occurrence: 100 × 200 KB is refused, not answered', async () => {
    const { result } = await nodesOf(100);
    const error = expectLimit(result, 'maxResponseBytes', max);
    expect(error.message).toBe(
      `maxResponseBytes: Response size limit of ${max} bytes exceeded (each occurrence of an object counts; select fewer or smaller fields, or page).`,
    );
  });

  it('and so is one representation repeated in _entities', async () => {
    const { result } = await post({
      query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Comment { body { markdown } } } }',
      variables: { r: Array(100).fill({ __typename: 'Comment', id: commentId }) },
    });
    expectLimit(result, 'maxResponseBytes', max);
  });

  it('over graphql-sse too', async () => {
    const res = await t.gateway.yoga.fetch('http://gateway.test/graphql/stream', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${t.world.users.admin.token}` },
      body: JSON.stringify({
        query: 'query Big($ids: [ID!]!) { nodes(ids: $ids) { ... on Comment { body { markdown } } } }',
        variables: { ids: Array(100).fill(commentId) },
      }),
    });
    const text = await res.text();
    expect(text).toContain('maxResponseBytes');
    expect(text.length).toBeLessThan(2000);
  });

  it('aliases of the same object are priced per occurrence', async () => {
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: node(id: $id) { ... on Comment { body { markdown } } }`).join(' ');
    const { result } = await post({ query: `query($id: ID!) { ${aliases} }`, variables: { id: commentId } });
    expectLimit(result, 'maxResponseBytes', max);
  });

  it('results written at the same moment share a budget of bytes: past it, UPSTREAM_UNAVAILABLE until one is written', async () => {
    await using s = await startStack({ limits: { responseBytesInFlight: 1_000_000 } });
    const spaceId = (await s.api.post(`/orgs/${s.world.orgId}/spaces`, { title: 'Big talk' })).body.id;
    const cr = (await s.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Long comment' })).body;
    await s.api.post(`/spaces/${spaceId}/change-requests/${cr.id}/comments`, { body: { markdown: 'x'.repeat(BIG) } });
    const data = await s.data(
      `{ changeRequest(spaceId: "${spaceId}", changeRequestId: "${cr.id}") { comments(first: 1) { nodes { id } } } }`,
    );
    const id = data.changeRequest.comments.nodes[0].id;
    /** 3 × 200 KB, written to a response that ends when `res` says so (Yoga's Node server context). */
    const send = async (res: EventEmitter) => {
      const response = await s.gateway.yoga.fetch(
        'http://gateway.test/graphql',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${s.world.users.admin.token}` },
          body: JSON.stringify({
            query: 'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Comment { body { markdown } } } }',
            variables: { ids: [id, id, id] },
          }),
        },
        { res },
      );
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as GqlResult };
    };
    const first = new EventEmitter();
    expect((await send(first)).body.errors).toBeUndefined();
    const refused = await send(new EventEmitter());
    expect(refused.body.errors?.[0].extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 });
    expect([refused.status, refused.retryAfter]).toEqual([503, '1']);
    first.emit('finish');
    expect((await send(new EventEmitter())).body.errors).toBeUndefined();
  });

  it('a caller holding results its clients never read takes at most its share: other callers are still answered', async () => {
    // A budget of 1,000,000 bytes, a share of 250,000 (one whole result) once half of it is held.
    await using s = await startStack({ limits: { responseBytesInFlight: 1_000_000, maxResponseBytes: 250_000 } });
    const spaceId = (await s.api.post(`/orgs/${s.world.orgId}/spaces`, { title: 'Held talk' })).body.id;
    const cr = (await s.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Long comment' })).body;
    await s.api.post(`/spaces/${spaceId}/change-requests/${cr.id}/comments`, { body: { markdown: 'x'.repeat(BIG) } });
    const query = `{ changeRequest(spaceId: "${spaceId}", changeRequestId: "${cr.id}") { comments(first: 1) { nodes { body { markdown } } } } }`;
    // Both tokens accepted by the REST API first: each a budget key of its own.
    for (const token of [s.world.users.admin.token, s.world.users.edit.token]) await s.data('{ viewer { id } }', {}, token);
    /** One result of about 200 KB, to a response that is never done (its client reads nothing). */
    const send = async (token: string) => {
      const response = await s.gateway.yoga.fetch(
        'http://gateway.test/graphql',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query }),
        },
        { res: new EventEmitter() },
      );
      return ((await response.json()) as GqlResult).errors?.[0]?.extensions?.code ?? 'answered';
    };
    const held = [];
    for (let i = 0; i < 5; i++) held.push(await send(s.world.users.admin.token));
    // Half the budget, then its share: the holder's later results are refused.
    expect(held).toEqual(['answered', 'answered', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE']);
    // Before: the holder took the whole budget (4 results), and every other caller's large result got 503.
    expect(await send(s.world.users.edit.token)).toBe('answered');
  });

  describe('streamed results take their share of the budget part by part', () => {
    let s: TestStack;
    let id: string;
    beforeAll(async () => {
      s = await startStack({ limits: { responseBytesInFlight: 1_000_000 } });
      const spaceId = (await s.api.post(`/orgs/${s.world.orgId}/spaces`, { title: 'Streamed talk' })).body.id;
      const cr = (await s.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Long comment' })).body;
      await s.api.post(`/spaces/${spaceId}/change-requests/${cr.id}/comments`, { body: { markdown: 'x'.repeat(BIG) } });
      const data = await s.data(
        `{ changeRequest(spaceId: "${spaceId}", changeRequestId: "${cr.id}") { comments(first: 1) { nodes { id } } } }`,
      );
      id = data.changeRequest.comments.nodes[0].id;
      return () => s.stop();
    });
    /** 3 × 200 KB in the first part, then a deferred one, to a response that ends when `res` says so. */
    const QUERY = 'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Comment { body { markdown } } } ... @defer { viewer { id } } }';
    const open = async (path: string, accept: string, res: EventEmitter) => {
      const response = await s.gateway.yoga.fetch(
        `http://gateway.test${path}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${s.world.users.admin.token}` },
          body: JSON.stringify({ query: QUERY, variables: { ids: [id, id, id] } }),
        },
        { res },
      );
      return (response.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    };
    /** Reads `chunks` until `text` has come (a client that then reads no more), answering what was read. */
    const readUntil = async (chunks: AsyncIterator<Uint8Array>, text: RegExp) => {
      let read = '';
      while (!text.test(read)) {
        const { done, value } = await chunks.next();
        if (done) break;
        read += Buffer.from(value).toString();
      }
      return read;
    };

    it('a deferred result a client does not read holds its part: the next is refused in its stream until that response is done', async () => {
      const first = new EventEmitter();
      // The writer stops at the first part's body: its client reads no more.
      expect(await readUntil(await open('/graphql', 'multipart/mixed', first), /x{1000}/)).toMatch(/"markdown":"x/);
      const refused = await readUntil(await open('/graphql', 'multipart/mixed', new EventEmitter()), /hasNext":false/);
      expect(refused).toContain('"code":"UPSTREAM_UNAVAILABLE"');
      expect(refused).not.toContain('xxxx');
      first.emit('finish');
      const next = await readUntil(await open('/graphql', 'multipart/mixed', new EventEmitter()), /hasNext":false/);
      expect(next).toMatch(/"markdown":"x{1000}/);
      expect(next).not.toContain('UPSTREAM_UNAVAILABLE');
    });
  });

  it('a result whose client left before it was written holds none of the budget: clients that leave do not starve the others', async () => {
    // The REST API: the viewer (300 KB) at once, an organization never (until the gateway gives up on it).
    await using upstream = await startBadServer();
    const big = JSON.stringify({ object: 'user', id: 'u1', displayName: 'x'.repeat(300_000), email: 'u1@example.com' });
    upstream.fallback = (req, res) => {
      if (req.url?.endsWith('/user')) res.writeHead(200, { 'content-type': 'application/json' }).end(big);
    };
    const gateway = buildGateway({
      upstreamUrl: upstream.url,
      limits: { responseBytesInFlight: 1_000_000 },
      rest: { callerBytesPerSecond: 0 },
    });
    await using _ = { [Symbol.asyncDispose]: () => gateway.stop() };
    const port = Number(new URL(await gateway.start()).port);
    const body = JSON.stringify({ query: '{ viewer { displayName } slow: organization(organizationId: "o1") { title } }' });
    // Six clients leave while the organization is awaited: each result (the viewer's 300 KB and an
    // error) is made after its response closed.
    for (let i = 1; i <= 6; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      const held = () => upstream.requests.filter((r) => r.url.includes('/orgs/o1'));
      await until(() => held().length === i);
      socket.destroy();
      // The gateway gave up on the organization: its call's connection closed.
      await held()[i - 1].connectionClosed;
    }
    // 1.8 MB of results that were never written: held, they would refuse this one (503) until a restart.
    const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: JSON.stringify({ query: '{ viewer { displayName } }' }),
    });
    const result = (await res.json()) as GqlResult;
    expect(result.errors).toBeUndefined();
    expect([res.status, result.data?.viewer.displayName.length]).toEqual([200, 300_000]);
  });

  /**
   * A REST API whose suggested-questions stream sends `events` events of `question`, all at once,
   * then the events of the subscription on it, as a client reading each as it comes gets them.
   */
  async function streamedQuestions(question: string, events: number, options: Omit<Parameters<typeof buildGateway>[0], 'upstreamUrl'>) {
    await using upstream = await startBadServer();
    upstream.fallback = (req, res) => {
      if (!req.url?.includes('/questions/stream')) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < events; i++) res.write(`data: ${JSON.stringify({ question })}\n\n`);
      res.end();
    };
    const gateway = buildGateway({ upstreamUrl: upstream.url, ...options });
    await using _ = { [Symbol.asyncDispose]: () => gateway.stop() };
    const res = await fetch(await gateway.start(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer t' },
      body: JSON.stringify({ query: 'subscription { suggestedQuestionsStream(organizationId: "o1") }' }),
    });
    // Read before the gateway and the REST API stop (`await using`).
    return await res.text();
  }

  it("a subscription's events its client has read hold none of the budget: a long stream is not refused by its own past events", async () => {
    // 300 events of 10 KB (3 MB) from the REST stream, through a budget of 1,000,000 bytes (a
    // share of 250,000): each is read by the client as it comes.
    const question = 'q'.repeat(10_000);
    const text = await streamedQuestions(question, 300, {
      limits: { responseBytesInFlight: 1_000_000, maxResponseBytes: 250_000 },
      rest: { callerBytesPerSecond: 0 },
    });
    // Before: past the caller's share (about 25 events), every later event was UPSTREAM_UNAVAILABLE.
    expect(text).not.toContain('UPSTREAM_UNAVAILABLE');
    expect(text.split(question).length - 1).toBe(300);
  });

  it("a REST event stream is not cut at the REST answers' size limit: its events are passed on, not held", async () => {
    // 300 events of 1 KB (300 KB) through a REST client whose answers may be 100 KB at most.
    const question = 'q'.repeat(1000);
    const text = await streamedQuestions(question, 300, { rest: { maxResponseBytes: 100_000, callerBytesPerSecond: 0 } });
    // Before: cut after 100 KB, "Upstream unavailable: event stream interrupted".
    expect(text).not.toContain('UPSTREAM_UNAVAILABLE');
    expect(text.split(question).length - 1).toBe(300);
  });

  it('a large body pipelined behind another holds none of the budget: its connection is closed before it is read', async () => {
    // The REST API never answers: the first request of each connection stays in flight.
    await using upstream = await startBadServer();
    upstream.fallback = () => undefined;
    const gateway = buildGateway({ upstreamUrl: upstream.url, limits: { requestBytesInFlight: 64 * 1024 } });
    await using _ = { [Symbol.asyncDispose]: () => gateway.stop() };
    const port = Number(new URL(await gateway.start()).port);
    const post = (body: string) =>
      `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    // 20 KB of a valid body: the document padded with spaces (over the 4 KiB that bodies count from).
    const padded = JSON.stringify({ query: `{ __typename ${' '.repeat(20_000)}}` });
    for (let i = 1; i <= 4; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      // A pipelined request waits until the one ahead is answered (never, here): the budget
      // counts a body once its request runs, so one with a large body closes the connection
      // (httpBounds.ts, onePerConnection). Before, the body was read and its bytes held.
      const gone = new Promise((resolve) => socket.once('close', resolve));
      socket.write(post(JSON.stringify({ query: '{ viewer { displayName } }' })) + post(padded));
      await gone;
    }
    // Held, the four bodies (80 KB) would refuse this one (503) until a restart.
    const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: padded,
    });
    expect([res.status, await res.json()]).toEqual([200, { data: { __typename: 'Query' } }]);
  });

  it('is checked before the response cache keeps a result: an oversized one is never stored (with Redis, stringified)', async () => {
    await using s = await startStack({ limits: { maxResponseBytes: 1000 }, responseCacheTtlMs: 60_000 });
    const big = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: viewer { displayName email photoURL id }`).join(' ')} }`;
    expect((await s.gql(big)).errors?.[0].extensions).toMatchObject({ limit: 'maxResponseBytes' });
    s.resetCalls();
    const again = await s.gql(big);
    expect(again.errors?.[0].extensions).toMatchObject({ limit: 'maxResponseBytes' });
    // Not a cache hit: the refused result was not kept (a 95 MB one would have been serialized for Redis).
    expect(again.extensions?.responseCache?.hit).not.toBe(true);
    expect(s.calls.length).toBeGreaterThan(0);
  });

  it('bounds a kept introspection result too, by its text: the first answer and the next are refused alike', async () => {
    await using s = await startStack({ limits: { maxResponseBytes: 100_000 } });
    const query = '{ __schema { types { name description fields { name description } } } }';
    for (let i = 0; i < 3; i++) {
      const refused = await s.gql(query);
      expect(refused.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxResponseBytes', maximum: 100_000 });
    }
    // A smaller one is kept and served again whole.
    const small = '{ __schema { queryType { name } } }';
    expect((await s.gql(small)).data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    expect((await s.gql(small)).data).toEqual({ __schema: { queryType: { name: 'Query' } } });
  });

  it('is a setting, and bounds @defer parts too', async () => {
    await using s = await startStack({ limits: { maxResponseBytes: 1000 } });
    const small = await s.gql('{ viewer { id } }');
    expect(small.errors).toBeUndefined();
    const big = await s.gql(`{ ${Array.from({ length: 20 }, (_, i) => `a${i}: viewer { displayName email photoURL id }`).join(' ')} }`);
    expect(big.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxResponseBytes', maximum: 1000 });
    const res = await s.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', authorization: `Bearer ${s.world.users.admin.token}` },
      body: JSON.stringify({
        query: `{ viewer { id } ... @defer { ${Array.from({ length: 20 }, (_, i) => `a${i}: viewer { displayName email photoURL id }`).join(' ')} } }`,
      }),
    });
    const text = await res.text();
    expect(text).toContain('maxResponseBytes');
    expect(text.length).toBeLessThan(3000);
  });
});

describe('bytes of REST answers per caller over time', () => {
  it('a caller that keeps reading a large object waits for its share, then is refused (RATE_LIMITED) before its operation runs; another caller does not wait', async () => {
    const clock = fakeClock();
    // 50,000 bytes a second, 200,000 at once; a comment of about 150 KB.
    await using s = await startStack({ clock, rest: { callerBytesPerSecond: 50_000, requestTimeoutMs: 5_000 } });
    const spaceId = (await s.api.post(`/orgs/${s.world.orgId}/spaces`, { title: 'Big' })).body.id;
    const cr = (await s.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Big' })).body;
    await s.api.post(`/spaces/${spaceId}/change-requests/${cr.id}/comments`, { body: { markdown: 'x'.repeat(150_000) } });
    const query = `query($s: String!, $c: String!, $n: Int!) { changeRequest(spaceId: $s, changeRequestId: $c) { comments(first: $n) { nodes { body { markdown } } } } }`;
    /** One read of the comment (pages of other sizes are other REST calls: no single-flight between them). */
    const read = (token?: string, n = 1) => s.gql(query, { s: spaceId, c: cr.id, n }, token);
    // Both tokens accepted by the REST API first: each a budget of its own (an unproven token's
    // reads count against its client address).
    for (const token of [s.world.users.admin.token, s.world.users.edit.token]) await s.data('{ viewer { id } }', {}, token);
    // Two reads: 300 KB, 100 KB over the bucket, 2 s of the rate; the third waits that long (a
    // little more: each answer is the comment and its envelope).
    expect((await read()).errors).toBeUndefined();
    expect((await read()).errors).toBeUndefined();
    s.resetCalls();
    const third = read();
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(s.calls).toEqual([]);
    // Meanwhile another caller reads the same comment at once.
    expect((await read(s.world.users.edit.token)).data.changeRequest.comments.nodes[0].body.markdown).toHaveLength(150_000);
    expect(s.calls).toHaveLength(1);
    expect((await clock.settle(third, 2_500)).errors).toBeUndefined();
    expect(s.calls).toHaveLength(2);
    // 3 s pay the debt and 4 s more fill the bucket (the clock is at the third's end); four reads at once then go into a debt of 8 s
    // of the rate, past the 5 s deadline: the next read is refused at once.
    clock.advance(7_000);
    const four = await Promise.all([1, 2, 3, 4].map((n) => read(undefined, n)));
    expect(four.map((r) => r.errors)).toEqual([undefined, undefined, undefined, undefined]);
    // The operation is refused before it runs (no REST call).
    s.resetCalls();
    const refused = await read();
    expect(refused.data ?? null).toBeNull();
    // About 8 s of debt (each answer is a little over 150 KB), rounded up.
    expect(refused.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 9 });
    expect(s.calls).toEqual([]);
    expect(refused.errors?.[0].message).toContain('callerBytesPerSecond');
  });
});

describe('bytes of large results served without a REST call', () => {
  it('a kept introspection answer counts against its caller: past its share the next operation waits, or is refused', async () => {
    const clock = fakeClock();
    // 20,000 bytes a second, 80,000 at once; the full introspection answer is about 414 KB.
    await using s = await startStack({ clock, rest: { callerBytesPerSecond: 20_000 } });
    const { getIntrospectionQuery } = await import('graphql');
    const query = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true });
    // Executed: its bytes are not counted here (a result that ran is counted by its REST answers).
    expect((await s.gql(query)).data.__schema).toBeDefined();
    // Kept, served again: about 414 KB over an 80 KB bucket, some 17 s of the rate.
    expect((await s.gql(query)).data.__schema).toBeDefined();
    const refused = await s.gql('{ viewer { id } }');
    expect(refused.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    expect(Number(refused.errors?.[0].extensions?.retryAfter)).toBeGreaterThan(10);
    expect(refused.errors?.[0].message).toContain('callerBytesPerSecond');
    // Another caller is served at once.
    expect((await s.gql('{ viewer { id } }', {}, s.world.users.edit.token)).errors).toBeUndefined();
    // 10 s later the debt is under 10 s: the caller's next operation waits for the rest, then runs.
    clock.advance(10_000);
    let answered = false;
    const waiting = s.gql('{ viewer { id } }').then((r) => ((answered = true), r));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false);
    expect((await clock.settle(waiting, 10_000)).errors).toBeUndefined();
  });

  it("`_service`'s SDL, printed once and served from memory, counts against its caller as a kept introspection answer", async () => {
    const clock = fakeClock();
    // 20,000 bytes a second, 80,000 at once; the SDL is about 135 KB: three of it are 16 s in debt.
    await using s = await startStack({ clock, rest: { callerBytesPerSecond: 20_000 } });
    await s.data('{ viewer { id } }'); // the token accepted by the REST API: a budget of its own
    // Before: 20 aliases of it, 2.8 MB a result, were served to one token as fast as it asked.
    const sdl = await s.gql('{ a: _service { sdl } b: _service { sdl } c: _service { sdl } }');
    expect(sdl.data.a.sdl.length).toBeGreaterThan(100_000);
    const refused = await s.gql('{ viewer { id } }');
    expect(refused.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    expect(refused.errors?.[0].message).toContain('callerBytesPerSecond');
    // Another caller is served at once.
    expect((await s.gql('{ viewer { id } }', {}, s.world.users.edit.token)).errors).toBeUndefined();
  });

  it('a large response-cache hit counts against its caller; a small one does not', async () => {
    const clock = fakeClock();
    // 50,000 bytes a second, 200,000 at once; a comment of about 150 KB.
    await using s = await startStack({ clock, responseCacheTtlMs: 600_000, rest: { callerBytesPerSecond: 50_000 } });
    const spaceId = (await s.api.post(`/orgs/${s.world.orgId}/spaces`, { title: 'Big' })).body.id;
    const cr = (await s.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Big' })).body;
    await s.api.post(`/spaces/${spaceId}/change-requests/${cr.id}/comments`, { body: { markdown: 'x'.repeat(150_000) } });
    const query = `query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) { comments(first: 1) { nodes { body { markdown } } } } }`;
    const read = () => s.gql(query, { s: spaceId, c: cr.id });
    const small = () => s.gql('{ viewer { id } }');
    // Both tokens accepted by the REST API first: each a budget of its own.
    for (const token of [s.world.users.admin.token, s.world.users.edit.token])
      await s.data('{ integrations(first: 1) { nodes { name } } }', {}, token);
    // Executed once (its REST answer counted: 150 KB of the 200 KB bucket), then small results
    // from the cache: nothing more is counted, and the caller's operations run at once.
    expect((await read()).errors).toBeUndefined();
    expect((await small()).errors).toBeUndefined();
    for (let i = 0; i < 5; i++) expect((await small()).errors).toBeUndefined();
    // One hit of the large result, with no REST call: 150 KB more, 100 KB (2 s of the rate) in debt.
    s.resetCalls();
    expect((await read()).data.changeRequest.comments.nodes[0].body.markdown).toHaveLength(150_000);
    expect(s.calls).toEqual([]);
    // The caller's next operation (a small cached one) waits for its share.
    let answered = false;
    const waiting = small().then((r) => ((answered = true), r));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false);
    expect((await clock.settle(waiting, 2_500)).errors).toBeUndefined();
    // Another caller is not in this caller's debt.
    expect((await s.gql('{ viewer { id } }', {}, s.world.users.edit.token)).errors).toBeUndefined();
  });

  /** A stack whose admin is some 4 s in debt: a kept introspection answer of about 400 KB over a 200 KB bucket. */
  async function inDebt(clock: ReturnType<typeof fakeClock>) {
    const s = await startStack({ clock, rest: { callerBytesPerSecond: 50_000 } });
    const { getIntrospectionQuery } = await import('graphql');
    const query = getIntrospectionQuery({ descriptions: true });
    await s.gql(query);
    await s.gql(query);
    return s;
  }

  it('a caller in debt parks at most 8 waiting operations; the next is refused at once', async () => {
    const clock = fakeClock();
    await using s = await inDebt(clock);
    const waiting = Array.from({ length: 8 }, () => s.gql('{ viewer { id } }'));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    const ninth = await s.gql('{ viewer { id } }');
    expect(ninth.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED' });
    const answers = await clock.settle(Promise.all(waiting), 10_000);
    expect(answers.map((a) => a.errors)).toEqual(Array(8).fill(undefined));
  });

  it('an operation whose client left stops waiting: its place goes to the next', async () => {
    const clock = fakeClock();
    await using s = await inDebt(clock);
    const left = new AbortController();
    const gone = Array.from({ length: 8 }, () =>
      fetch(s.gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.world.users.admin.token}` },
        body: JSON.stringify({ query: '{ viewer { id } }' }),
        signal: left.signal,
      }).catch(() => 'left'),
    );
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    left.abort();
    expect(await Promise.all(gone)).toEqual(Array(8).fill('left'));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    // Before: the eight whose clients left were counted waiting until their wait was over, and
    // the caller's next operation was refused (RATE_LIMITED) though nothing of it waited.
    const next = s.gql('{ viewer { id } }');
    expect((await clock.settle(next, 10_000)).errors).toBeUndefined();
  });
});

describe('REST answers held at once', () => {
  it("an operation's REST answers stay held until it is over: past what one operation may hold, its further reads get BAD_USER_INPUT; the next operation reads again", async () => {
    // A budget of 300,000 bytes; two comments of about 200 KB in two change requests.
    await using s = await startStack({ rest: { answerBytesInFlight: 300_000 } });
    const spaceId = (await s.api.post(`/orgs/${s.world.orgId}/spaces`, { title: 'Big' })).body.id;
    const crs: string[] = [];
    for (const subject of ['One', 'Two']) {
      const cr = (await s.api.post(`/spaces/${spaceId}/change-requests`, { subject })).body;
      await s.api.post(`/spaces/${spaceId}/change-requests/${cr.id}/comments`, { body: { markdown: 'x'.repeat(200_000) } });
      crs.push(cr.id);
    }
    // Selected by id alone, the result is small: the response-bytes bound does not see the pages.
    const page = (alias: string, cr: string) =>
      `${alias}: changeRequest(spaceId: "${spaceId}", changeRequestId: "${cr}") { comments(first: 1) { nodes { id } } }`;
    const both = await s.gql(`{ ${page('a', crs[0])} ${page('b', crs[1])} }`);
    expect(both.errors).toHaveLength(1);
    // Half the budget is what one operation may hold: asking again would not help.
    expect(both.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'answerBytesInFlight', maximum: 150_000 });
    expect(both.errors![0].extensions!.retryAfter).toBeUndefined();
    expect(both.errors![0].message).toMatch(/^answerBytesInFlight: the operation reads more from the REST API/);
    const read = [both.data.a, both.data.b].filter((cr) => cr?.comments?.nodes.length === 1);
    expect(read).toHaveLength(1);
    // Its answers were given back when it ended: each page alone is read again.
    expect(s.gateway.rest.answers.inFlight()).toBe(0);
    expect((await s.gql(`{ ${page('a', crs[0])} }`)).errors).toBeUndefined();
    expect((await s.gql(`{ ${page('b', crs[1])} }`)).errors).toBeUndefined();
    expect(s.gateway.rest.answers.inFlight()).toBe(0);
  });

  it('defaults to an eighth of the heap limit', async () => {
    const { getHeapStatistics } = await import('node:v8');
    expect(t.gateway.rest.answers.budget).toBe(Math.floor(getHeapStatistics().heap_size_limit / 8));
  });
});

describe("values an operation's connections build", () => {
  /** Spaces of the demo organization brought to `count`. */
  async function spaces(s: { api: TestStack['api']; world: TestStack['world'] }, count: number) {
    const have = (await s.api.get(`/orgs/${s.world.orgId}/spaces?limit=100`)).body.items.length as number;
    for (let i = have; i < count; i++) await s.api.post(`/orgs/${s.world.orgId}/spaces`, { title: `Space ${i}` });
  }
  // Each outer space brings the organization's spaces again: 25 × 25 items from two REST calls, cost 52.
  const repeated = (first: number) =>
    `query($org: String!) { organization(organizationId: $org) { spaces(first: ${first}) { nodes { organization { spaces(first: ${first}) { nodes { id title } } } } } } }`;

  it('a connection under a repeated parent: each occurrence the page of one REST answer, with cursors of its own', async () => {
    await using s = await startStack();
    await spaces(s, 12);
    s.resetCalls();
    const res = await s.gql(
      `query($org: String!) { organization(organizationId: $org) { spaces(first: 10) { nodes { restId organization { spaces(first: 10) { pageInfo { endCursor } nodes { id restId title } } } } } } }`,
      { org: s.world.orgId },
    );
    expect(res.errors).toBeUndefined();
    const outer = res.data.organization.spaces.nodes as Array<{ restId: string; organization: { spaces: any } }>;
    const inner = outer[0].organization.spaces;
    expect(inner.nodes.map((n: { restId: string }) => n.restId)).toEqual(outer.map((o) => o.restId));
    for (const o of outer) expect(o.organization.spaces).toEqual(inner);
    // The outer page and the inner ones are the same read (the same list, the same size).
    expect(s.calls.map((c) => `${c.method} ${c.path}`)).toEqual([`GET /orgs/${s.world.orgId}/spaces`]);
    const rest = await s.data(
      `query($org: String!, $after: String!) { organization(organizationId: $org) { spaces(first: 10, after: $after) { nodes { restId } } } }`,
      {
        org: s.world.orgId,
        after: inner.pageInfo.endCursor,
      },
    );
    expect(rest.organization.spaces.nodes).toHaveLength(2);
  });

  it('the same list read again after a write in the same operation is made anew from its new answer', async () => {
    await using s = await startStack();
    await spaces(s, 3);
    const [a, b] = (await s.api.get(`/orgs/${s.world.orgId}/spaces?limit=2`)).body.items.map((i: { id: string }) => i.id) as string[];
    const list = `space { organization { spaces(first: 5) { nodes { restId organization { spaces(first: 5) { nodes { restId title } } } } } } }`;
    const res = await s.gql(
      `mutation($a: UpdateSpaceInput!, $b: UpdateSpaceInput!) { one: updateSpace(input: $a) { ${list} } two: updateSpace(input: $b) { ${list} } }`,
      { a: { spaceId: a, title: 'First write' }, b: { spaceId: b, title: 'Second write' } },
    );
    expect(res.errors).toBeUndefined();
    const titles = (field: 'one' | 'two') =>
      new Set(
        (
          res.data[field].space.organization.spaces.nodes as Array<{
            organization: { spaces: { nodes: Array<{ restId: string; title: string }> } };
          }>
        ).map((o) => JSON.stringify(o.organization.spaces.nodes.filter((n) => n.restId === a || n.restId === b).map((n) => n.title))),
      );
    // Every occurrence of each payload shows the state after its own write.
    expect([...titles('one')]).toHaveLength(1);
    expect([...titles('two')]).toHaveLength(1);
    expect(JSON.parse([...titles('one')][0]).sort()).not.toContain('Second write');
    expect(JSON.parse([...titles('two')][0]).sort()).toEqual(['First write', 'Second write']);
  });

  it('past maxResultValues, a connection of the operation is BAD_USER_INPUT and builds nothing; within it, all is answered', async () => {
    await using s = await startStack({ limits: { maxResultValues: 1_000 } });
    await spaces(s, 25);
    // Outer page: 25 × (1 + 6 fields below it) = 175; each inner page 25 × (1 + 3) = 100: the 9th passes 1,000.
    const res = await s.gql(repeated(25), { org: s.world.orgId });
    const outer = res.data.organization.spaces.nodes as Array<{ organization: { spaces: { nodes: unknown[] } | null } }>;
    expect(outer).toHaveLength(25);
    expect(outer.filter((o) => o.organization.spaces?.nodes.length === 25)).toHaveLength(8);
    expect(outer.filter((o) => o.organization.spaces === null)).toHaveLength(17);
    // Before: all 625 items built, whatever their number (eight such operations of 100 × 100 at once ran `npm start` out of heap).
    // One error, at the connection past the bound; the later ones are null, unread.
    expect(res.errors).toEqual([
      expect.objectContaining({
        path: ['organization', 'spaces', 'nodes', 8, 'organization', 'spaces'],
        extensions: { code: 'BAD_USER_INPUT', limit: 'maxResultValues', maximum: 1_000 },
      }),
    ]);
    expect(res.errors![0].message).toMatch(/^maxResultValues: the operation's lists bring more than 1000 values into its result/);
    expect(s.gateway.resultValues.inFlight()).toBe(0);
    expect((await s.gql(repeated(5), { org: s.world.orgId })).errors).toBeUndefined();
  });

  it("a connection's values are counted with the fields merged into it, whatever ran before: a fragment's count is not another place's", async () => {
    await using s = await startStack({ limits: { maxResultValues: 100 } });
    await spaces(s, 30);
    // `S`'s connection alone: 30 × (1 + 2) = 90 values; with ten more fields merged in when $big: 30 × 13 = 390.
    const query = `query($org: String!, $big: Boolean!) { organization(organizationId: $org) { ...S
      spaces(first: 100) @include(if: $big) { nodes { title emoji restId createdAt updatedAt visibility changeRequestsCount commentsCount revision } } } }
      fragment S on Organization { spaces(first: 100) { nodes { id } } }`;
    const limitOf = async (big: boolean) => (await s.gql(query, { org: s.world.orgId, big })).errors?.map((e) => e.extensions?.limit);
    // Before: the count was kept by the fragment's node, so each answer was the first one's.
    for (const big of [false, true, false, true]) expect(await limitOf(big)).toEqual(big ? ['maxResultValues'] : undefined);
  });

  it('a page that would pass the budget across operations while another holds its values is UPSTREAM_UNAVAILABLE, answered after its retryAfter; given back at its end', async () => {
    const clock = fakeClock();
    const t = await startChaosStack({ requestTimeoutMs: 1_000, headersTimeoutMs: 10_000 }, undefined, 9, clock, {
      limits: { resultValuesInFlight: 100 },
    });
    try {
      await spaces(t.upstream, 25);
      const { orgId } = t.upstream.world;
      const held = (await t.upstream.api.get(`/orgs/${orgId}/spaces?limit=1`)).body.items[0].id as string;
      // A's page of 25 spaces (75 values, alone: admitted) is held while its other field waits for the REST API.
      t.proxy.configure({ failRate: 1, faults: ['hang'], paths: new RegExp(`^/spaces/${held}$`) });
      const page = `organization(organizationId: "${orgId}") { spaces(first: 25) { nodes { id } } }`;
      const a = t.gql(`{ ${page} space(spaceId: "${held}") { title } }`);
      await until(() => t.gateway.resultValues.inFlight() === 75);
      const before = clock.delays.length;
      let answered = false;
      const pending = t.gql(`{ ${page} }`, undefined, t.upstream.world.users.edit.token).finally(() => (answered = true));
      // B is refused, and held until it may try again (before: answered at once, so a client
      // looping such operations made the gateway refuse them back to back).
      await until(() => clock.delays.slice(before).includes(1_000));
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      expect(answered).toBe(false);
      clock.advance(1_000);
      const b = await pending;
      expect(b.body.errors).toEqual([
        expect.objectContaining({
          message: 'The gateway is building too many large results at once; try again shortly.',
          path: ['organization', 'spaces'],
          extensions: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 },
        }),
      ]);
      expect((await a).body.data.organization.spaces.nodes).toHaveLength(25);
      expect(t.gateway.resultValues.inFlight()).toBe(0);
      expect((await t.gql(`{ ${page} }`, undefined, t.upstream.world.users.edit.token)).body.errors).toBeUndefined();
    } finally {
      await t.stop();
    }
  });

  it('defaults to a quarter of the heap limit at 512 bytes a value', async () => {
    const { getHeapStatistics } = await import('node:v8');
    expect(t.gateway.resultValues.budget).toBe(Math.floor(getHeapStatistics().heap_size_limit / 4 / 512));
  });
});

describe('request bodies held at once', () => {
  /** A `{ __typename }` request of `bytes` bytes, padded with a string variable. */
  const padded = (bytes: number) => {
    const head = `{"query":"{ __typename }","variables":{"v":"`;
    return `${head}${'x'.repeat(bytes - head.length - 3)}"}}`;
  };

  /**
   * The admin holds 30,000 bytes of `s`'s budget (its headers and half its body sent); `finish()`
   * sends the rest and answers its response.
   */
  async function holdHalfBody(s: TestStack) {
    const { hostname, port } = new URL(s.gateway.url);
    const body = padded(30_000);
    const a = connect(Number(port), hostname);
    await new Promise((r) => a.once('connect', r));
    const answer = new Promise<string>((resolve) => {
      let text = '';
      a.on('data', (d) => (text += String(d)));
      a.on('close', () => resolve(text));
    });
    a.write(
      `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${s.world.users.admin.token}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 15_000)}`,
    );
    return { body, finish: () => (a.write(body.slice(15_000)), answer) };
  }

  it('defaults to a sixteenth of the heap limit (at least one body of --max-body-bytes)', async () => {
    const { getHeapStatistics } = await import('node:v8');
    const { defaultRequestBytesInFlight } = await import('../../src/gateway/lib/requestBytesInFlight.js');
    expect(defaultRequestBytesInFlight(1_000_000)).toBe(Math.max(1_000_000, Math.floor(getHeapStatistics().heap_size_limit / 16)));
    expect(defaultRequestBytesInFlight(10 ** 12)).toBe(10 ** 12);
  });

  it('a body that would pass the budget while others are held is refused before it is read (503, Retry-After: 1)', async () => {
    await using s = await startStack({ limits: { requestBytesInFlight: 100_000 } });
    const { hostname, port } = new URL(s.gateway.url);
    // A holds 60,000 bytes: its headers and half its body sent, the rest not yet.
    const a = connect(Number(port), hostname);
    await new Promise((r) => a.once('connect', r));
    const body = padded(60_000);
    const answerOf = (socket: Socket) =>
      new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (d) => (text += String(d)));
        socket.on('end', () => resolve(text));
        socket.on('close', () => resolve(text));
      });
    const aAnswer = answerOf(a);
    a.write(
      `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${s.world.users.admin.token}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 30_000)}`,
    );
    const post = () =>
      fetch(s.gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.world.users.admin.token}` },
        body: padded(60_000),
      });
    // B would hold 60,000 more: refused at once, its body unread (asked again until A's headers are in).
    let refused = await post();
    for (let i = 0; i < 50 && refused.status !== 503; i++) refused = await post();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ errors: [{ extensions: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 } }] });
    // Nor is what was sent of a refused body read: its connection ends as the 503 is written.
    const large = padded(900_000);
    const read = await bytesReadBy(Number(port), async () => {
      const answer = await sendRaw(
        Number(port),
        `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${s.world.users.admin.token}\r\nContent-Length: ${large.length}\r\n\r\n${large}`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    });
    expect(read).toHaveLength(1);
    expect(read[0]).toBeLessThanOrEqual(2 * 64 * 1024);
    // A small request still fits.
    expect((await s.gql('{ __typename }')).data).toEqual({ __typename: 'Query' });
    // Once A is answered, B goes through.
    a.write(body.slice(30_000));
    expect(await aAnswer).toMatch(/^HTTP\/1\.1 200 /);
    expect((await post()).status).toBe(200);
  });

  it("once half the budget is held, a caller past its share (a quarter) is refused, while another caller's body is read", async () => {
    await using s = await startStack({ limits: { requestBytesInFlight: 100_000 } });
    // Both tokens proven (the REST API answered for them): each has a share of its own.
    for (const role of ['admin', 'edit'] as const) await s.data('{ viewer { restId } }', {}, s.world.users[role].token);
    const { body, finish } = await holdHalfBody(s);
    const post = (token: string) =>
      fetch(s.gateway.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body });
    // Its second would hold 60,000, past half the budget and past its share: refused.
    let refused = await post(s.world.users.admin.token);
    for (let i = 0; i < 50 && refused.status !== 503; i++) refused = await post(s.world.users.admin.token);
    expect(refused.status).toBe(503);
    // Another caller's is read (30,000 of the other half).
    expect((await post(s.world.users.edit.token)).status).toBe(200);
    expect(await finish()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('a body holds what its parse builds: small JSON values past the budget while others are held are refused (503) unparsed', async () => {
    await using s = await startStack({ limits: { requestBytesInFlight: 100_000 } });
    for (const role of ['admin', 'edit'] as const) await s.data('{ viewer { restId } }', {}, s.world.users[role].token);
    const { finish } = await holdHalfBody(s);
    // 20 KB each, within the budget by their bytes: 6,600 empty objects parse into some 370 KB of
    // heap (twelve bodies of 880 KB of them ran `npm start`'s heap out), a string into its text.
    const objects = JSON.stringify({ query: '{ __typename }', variables: { pad: Array.from({ length: 6_600 }, () => ({})) } });
    const text = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(objects.length - 40) } });
    const post = (body: string) =>
      fetch(s.gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.world.users.edit.token}` },
        body,
      });
    let refused = await post(objects);
    for (let i = 0; i < 50 && refused.status !== 503; i++) refused = await post(objects);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ errors: [{ extensions: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 } }] });
    expect([(await post(text)).status, (await post(text)).status]).toEqual([200, 200]);
    // Form-encoded, its variables alike (Yoga decodes the text, then parses them).
    const form = await fetch(s.gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-graphql-yoga-csrf': '1',
        authorization: `Bearer ${s.world.users.edit.token}`,
      },
      body: new URLSearchParams({ query: '{ __typename }', variables: JSON.stringify(JSON.parse(objects).variables) }).toString(),
    });
    expect([form.status, form.headers.get('retry-after')]).toEqual([503, '1']);
    // A graphql-sse POST (which graphql-sse reads and parses itself) alike.
    const stream = (body: string) =>
      fetch(new URL('/graphql/stream', s.gateway.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${s.world.users.edit.token}` },
        body,
      });
    const sse = await stream(objects);
    expect([sse.status, sse.headers.get('retry-after')]).toEqual([503, '1']);
    expect(await sse.json()).toMatchObject({ errors: [{ extensions: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 } }] });
    // Alone, it is read.
    expect(await finish()).toMatch(/^HTTP\/1\.1 200 /);
    const alone = await post(objects);
    expect([alone.status, await alone.json()]).toEqual([200, { data: { __typename: 'Query' } }]);
    const streamed = await stream(objects);
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toMatch(/event: next\ndata: \{"data":\{"__typename":"Query"\}\}/);
  });

  it("a small body's parse, and a GET's query string's, are held too once they build much: past the budget while others are held, refused (503)", async () => {
    const clock = fakeClock();
    await using s = await startStack({ clock, limits: { requestBytesInFlight: 100_000 } });
    for (const role of ['admin', 'edit'] as const) await s.data('{ viewer { restId } }', {}, s.world.users[role].token);
    const { finish } = await holdHalfBody(s);
    // Under 4 KiB, which the budget does not count on arrival: 1,300 empty objects parse into some
    // 85 KB. 1,000 connections of such bodies, each beside an operation waiting for its REST call,
    // ran `npm start`'s heap out in seconds.
    const variables = { pad: Array.from({ length: 1_300 }, () => ({})) };
    const small = JSON.stringify({ query: '{ __typename }', variables });
    expect(small.length).toBeLessThanOrEqual(4096);
    const authorization = `Bearer ${s.world.users.edit.token}`;
    const refused = async (res: Response) => {
      expect([res.status, res.headers.get('retry-after')]).toEqual([503, '1']);
      expect(await res.json()).toMatchObject({ errors: [{ extensions: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 } }] });
    };
    // A refusal of the small-POST path is answered a second later (its Retry-After): the fake clock's.
    const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }, path = '/graphql') =>
      clock.settle(fetch(new URL(path, s.gateway.url), { method: 'POST', headers: { ...headers, authorization }, body }), 1000);
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(new URL(`${path}?${new URLSearchParams({ query: '{ __typename }', variables: JSON.stringify(variables) })}`, s.gateway.url), {
        headers: { ...headers, authorization },
      });
    // The small-POST path, Yoga's (a body with `extensions`), a form, a GET, graphql-sse's POST and GET.
    // (The first until the held body's headers were read.)
    let first = await post(small);
    for (let i = 0; i < 50 && first.status !== 503; i++) first = await post(small);
    await refused(first);
    // Answered when it may try again, not at once: a client looping such bodies sends one a second.
    const waiting = fetch(s.gateway.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: small });
    await refused(await settlesAt(clock, waiting, 1000));
    await refused(await post(JSON.stringify({ query: '{ __typename }', variables, extensions: {} })));
    const form = new URLSearchParams({ query: '{ __typename }', variables: JSON.stringify(variables) }).toString();
    expect(form.length).toBeLessThanOrEqual(4096 * 3);
    await refused(await post(form, { 'content-type': 'application/x-www-form-urlencoded', 'x-graphql-yoga-csrf': '1' }));
    await refused(await get('/graphql'));
    await refused(await post(small, { 'content-type': 'application/json', accept: 'text/event-stream' }, '/graphql/stream'));
    await refused(await get('/graphql/stream', { accept: 'text/event-stream' }));
    // A usual operation's body is not looked at, and is read.
    expect((await post(JSON.stringify({ query: '{ __typename }' }))).status).toBe(200);
    // Alone, it is read.
    expect(await finish()).toMatch(/^HTTP\/1\.1 200 /);
    const alone = await post(small);
    expect([alone.status, await alone.json()]).toEqual([200, { data: { __typename: 'Query' } }]);
    const alongGet = await get('/graphql');
    expect([alongGet.status, await alongGet.json()]).toEqual([200, { data: { __typename: 'Query' } }]);
  });

  it('a document a request parses holds what its parse builds: past the budget while others are held, refused (503); one from the parse cache holds nothing', async () => {
    await using s = await startStack({ limits: { requestBytesInFlight: 100_000 } });
    const authorization = `Bearer ${s.world.users.edit.token}`;
    await s.data('{ viewer { restId } }', {}, s.world.users.edit.token);
    const { finish } = await holdHalfBody(s);
    // 1.9 KB of text, 601 tokens: some 180 KB once parsed (about 300 bytes a token), which a request
    // holds until its response is done. 1,000 connections of new documents of 2,000 tokens (4.8 KB
    // each, 500 KB parsed) ran `npm start`'s heap out in seconds, without a token.
    const document = (n: number) => `query Q${n} { ${'__typename @include(if: true) @skip(if: false) '.repeat(40)}}`;
    const post = (query: string) =>
      fetch(s.gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify({ query }),
      });
    // (The first until the held body's headers were read.)
    let n = 0;
    let refused = await post(document(n));
    while (n < 50 && refused.status !== 503) refused = await post(document(++n));
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '1']);
    expect(await refused.json()).toMatchObject({ errors: [{ extensions: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 } }] });
    // Parsed once, it is in the parse cache: sent again, it holds nothing and runs.
    const again = await post(document(n));
    expect([again.status, await again.json()]).toEqual([200, { data: { __typename: 'Query' } }]);
    // A new one alone is parsed, held, and runs.
    expect(await finish()).toMatch(/^HTTP\/1\.1 200 /);
    const alone = await post(document(n + 1));
    expect([alone.status, await alone.json()]).toEqual([200, { data: { __typename: 'Query' } }]);
  });

  it("tokens the REST API has not answered for share their client address's share: made-up ones, one per request, get none each", async () => {
    await using s = await startStack({ limits: { requestBytesInFlight: 100_000 } });
    const { hostname, port } = new URL(s.gateway.url);
    await s.data('{ viewer { restId } }', {}, s.world.users.admin.token);
    const body = padded(30_000);
    // A made-up token holds 30,000 bytes: its headers and half its body sent.
    const a = connect(Number(port), hostname);
    await new Promise((r) => a.once('connect', r));
    a.on('error', () => undefined);
    a.write(
      `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer made-up-a\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 15_000)}`,
    );
    const post = (token: string) =>
      fetch(s.gateway.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body });
    // Another made-up token from the same address would take its address past its share: refused.
    // Before: each made-up token had a share of its own, and 300 slow bodies took the whole budget.
    let refused = await post('made-up-b');
    for (let i = 0; i < 50 && refused.status !== 503; i++) refused = await post(`made-up-b${i}`);
    expect(refused.status).toBe(503);
    // A proven token's body is read.
    expect((await post(s.world.users.admin.token)).status).toBe(200);
    a.destroy();
  });
});
