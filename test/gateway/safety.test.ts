import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import type { Logger } from '../../src/log.js';
import { SseParser } from '../../src/rest/index.js';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import { error, json, startBadServer, type BadServer, type Step } from '../helpers/badServer.js';
import { startStack, type GqlResult, type TestStack } from '../helpers/gateway.js';
import { startUpstream } from '../helpers/upstream.js';

/** A logger at debug level that keeps every line (message and fields) as written. */
function captureLog(lines: string[]): Logger {
  const write = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void lines.push(`${level} ${msg}${fields ? ' ' + JSON.stringify(fields) : ''}`);
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** What must never reach a client: stack frames, error class names, file paths, the token. */
function expectNothingInternal(text: string, token: string) {
  expect(text).not.toContain(token);
  expect(text).not.toMatch(/\bat \S+ \(|node_modules|\/srv\/|TypeError|stack|originalError|forEach/);
}

describe('error masking in front of a misbehaving upstream', () => {
  const TOKEN = 'tok_5ecret_caller_token_0123456789';
  const ORG = 'org1';
  const lines: string[] = [];
  let bad: BadServer;
  let gateway: Gateway;
  let orgJson: unknown;
  /** Answers for `/v1/orgs/org1/spaces…`; `/v1/orgs/org1` gets a real organization. */
  let spaces: Step;

  beforeAll(async () => {
    // A real organization JSON, so that only the spaces list misbehaves.
    await using upstream = await startUpstream();
    orgJson = (await upstream.api.get(`/orgs/${upstream.world.orgId}`)).body;
    bad = await startBadServer();
    bad.fallback = (req, res) =>
      (req.url?.startsWith(`/v1/orgs/${ORG}/spaces`) ? spaces : json(200, { ...(orgJson as object), id: ORG }))(req, res);
    gateway = buildGateway({ upstreamUrl: bad.url, log: captureLog(lines), rest: { retries: 0 } });
  });
  afterAll(async () => {
    await gateway.stop();
    await bad.stop();
  });
  afterEach(() => {
    // Nothing the gateway logged, at any level, carries the caller's token.
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain(TOKEN);
  });

  const QUERY = `{ organization(organizationId: "${ORG}") { title spaces { nodes { title } } } }`;
  async function run(): Promise<{ body: GqlResult; text: string }> {
    const res = await gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ query: QUERY }),
    });
    const text = await res.text();
    return { body: JSON.parse(text), text };
  }

  it('an exception in a resolver (an answer of the wrong shape) is "Unexpected error." at its path, the rest resolves', async () => {
    spaces = json(200, { items: 'not a list', count: 1 });
    const { body, text } = await run();
    expect(body.data).toEqual({ organization: { title: 'Acme', spaces: null } });
    expect(body.errors).toEqual([
      {
        message: 'Unexpected error.',
        path: ['organization', 'spaces'],
        locations: [{ line: 1, column: QUERY.indexOf('spaces') + 1 }],
        extensions: { code: 'UPSTREAM_ERROR' },
      },
    ]);
    expectNothingInternal(text, TOKEN);
    // The operator still learns what happened.
    expect(lines.some((l) => l.startsWith('error ') && l.includes('is not a function'))).toBe(true);
  });

  it('stays masked with NODE_ENV=development (Yoga would otherwise add the original error and its stack)', async () => {
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'development';
    try {
      spaces = json(200, { items: 'not a list', count: 1 });
      const { body, text } = await run();
      expect(body.errors?.[0].extensions).toEqual({ code: 'UPSTREAM_ERROR' });
      expectNothingInternal(text, TOKEN);
    } finally {
      process.env.NODE_ENV = previous;
    }
  });

  it('a 500 whose body holds a stack trace and the token gives a generic UPSTREAM_ERROR', async () => {
    spaces = error(500, `TypeError: cannot read 'rows'\n    at Db.query (/srv/api/node_modules/pg/index.js:12:5)\n    token=${TOKEN}`);
    const { body, text } = await run();
    expect(body.errors?.[0]).toMatchObject({
      message: 'Upstream error (HTTP 500)',
      path: ['organization', 'spaces'],
      extensions: { code: 'UPSTREAM_ERROR', upstream: { status: 500, method: 'GET', path: `/orgs/${ORG}/spaces` } },
    });
    expectNothingInternal(text, TOKEN);
  });

  it('invalid JSON is UPSTREAM_ERROR, without the body', async () => {
    spaces = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"items": [ at Object.<anonymous> (/srv/api/app.js:1:1)');
    };
    const { body, text } = await run();
    expect(body.errors?.[0]).toMatchObject({ message: 'Upstream sent invalid JSON', extensions: { code: 'UPSTREAM_ERROR' } });
    expectNothingInternal(text, TOKEN);
  });

  it('a 4xx message that echoes the token keeps its text with the token redacted', async () => {
    spaces = error(400, `limit: bad value for caller ${TOKEN}`);
    const { body, text } = await run();
    expect(body.errors?.[0]).toMatchObject({ message: 'limit: bad value for caller [redacted]', extensions: { code: 'BAD_USER_INPUT' } });
    expectNothingInternal(text, TOKEN);
  });

  it('every REST attempt was logged at debug level, without headers', () => {
    const rest = lines.filter((l) => l.startsWith('debug rest GET'));
    expect(rest.length).toBeGreaterThanOrEqual(5);
    for (const line of rest) expect(line).not.toMatch(/bearer|authorization/i);
  });

  it('every operation was logged once at debug level, with its error codes and no token', () => {
    const ops = lines.filter((l) => l.startsWith('debug graphql query'));
    expect(ops.length).toBeGreaterThanOrEqual(4);
    expect(ops.some((l) => /UPSTREAM_ERROR|BAD_USER_INPUT/.test(l))).toBe(true);
    for (const line of ops) expect(line).not.toContain(TOKEN);
  });
});

describe('the ERROR line of an upstream value of the wrong shape (over real HTTP)', () => {
  it("keeps the caller's token out of it when the value graphql-js quotes holds it", async () => {
    const TOKEN = 'tok_echoed_by_upstream_0123456789abcdef';
    const lines: string[] = [];
    await using bad = await startBadServer();
    // A title that is no string, holding the token: graphql-js quotes it in its error's message, the
    // token across the logged message's cut (300 characters).
    bad.fallback = json(200, { id: 'space1', object: 'space', title: { pad: 'p'.repeat(230), echo: TOKEN } });
    const gateway = buildGateway({ upstreamUrl: bad.url, log: captureLog(lines), rest: { retries: 0 } });
    try {
      const res = await fetch(await gateway.start(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ query: 'query Shape { space(spaceId: "space1") { title } }' }),
      });
      const body = (await res.json()) as GqlResult;
      expect(body.errors?.[0]).toMatchObject({
        message: 'Unexpected error.',
        path: ['space', 'title'],
        extensions: { code: 'UPSTREAM_ERROR' },
      });
      const errors = lines.filter((l) => l.startsWith('error unexpected error in query Shape'));
      expect(errors).toEqual([expect.stringContaining('String cannot represent value: (not logged)')]);
      for (const line of lines) expect(line).not.toContain(TOKEN.slice(0, 12));
    } finally {
      await gateway.stop();
    }
  });

  // An upstream value a scalar cannot represent: a raw id and content in the wrong place (graphql-js's
  // String), and content where a timestamp belongs (the DateTime scalar quoted it whole:
  // `DateTime cannot represent private draft of the launch plan at space.createdAt`).
  it.each([
    ['a raw id or content in the wrong place', 'title', { title: { x: '/v1/spaces/rawSpaceId7fQ2', body: 'private draft' } }, 'String'],
    ['a timestamp that is no date-time', 'createdAt', { title: 'T', createdAt: 'private draft of the launch plan' }, 'DateTime'],
  ] as const)('keeps the value out of it: %s', async (_what, field, answer, scalar) => {
    const lines: string[] = [];
    await using bad = await startBadServer();
    bad.fallback = json(200, { id: 'space1', object: 'space', ...answer });
    const gateway = buildGateway({ upstreamUrl: bad.url, log: captureLog(lines), rest: { retries: 0 } });
    try {
      const res = await fetch(await gateway.start(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer tok_value_test' },
        body: JSON.stringify({ query: `query Shape { space(spaceId: "space1") { title ${field} } }` }),
      });
      expect(((await res.json()) as GqlResult).errors).toEqual([
        expect.objectContaining({ message: 'Unexpected error.', path: ['space', field] }),
      ]);
      const errors = lines.filter((l) => l.startsWith('error unexpected error in query Shape'));
      // What failed and where stay in the line; the value does not.
      expect(errors).toEqual([
        expect.stringMatching(new RegExp(`${scalar} cannot represent value: \\(not logged\\).* at space\\.${field}`)),
      ]);
      for (const line of lines) {
        expect(line).not.toContain('rawSpaceId7fQ2');
        expect(line).not.toContain('private draft');
      }
    } finally {
      await gateway.stop();
    }
  });
});

describe('a subscription whose REST stream is answered 2xx but is no event stream (over real HTTP)', () => {
  it('ends with UPSTREAM_ERROR, not as if the REST API had sent nothing', async () => {
    await using bad = await startBadServer();
    const gateway = buildGateway({ upstreamUrl: bad.url, log: captureLog([]), rest: { retries: 0 } });
    try {
      const url = await gateway.start();
      const subscribe = async () => {
        const res = await fetch(`${url}/stream`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer tok_sse_shape' },
          body: JSON.stringify({ query: 'subscription { suggestedQuestionsStream(organizationId: "org1") }' }),
        });
        return new SseParser().push(await res.text()).filter((e) => e.event === 'next');
      };
      // A JSON body (an error object sent with 200), then a proxy's HTML page.
      bad.script(json(200, { error: { code: 500, message: 'no stream today' } }), (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>data: not an event</html>\n\n');
      });
      for (let i = 0; i < 2; i++) {
        const events = await subscribe();
        expect(events).toHaveLength(1);
        expect(JSON.parse(events[0].data).errors).toEqual([
          expect.objectContaining({
            message: 'Upstream sent an unexpected body (not an event stream)',
            extensions: expect.objectContaining({ code: 'UPSTREAM_ERROR' }),
          }),
        ]);
      }
      expect(bad.requests.map((r) => r.url)).toEqual(['/v1/orgs/org1/ask/questions/stream', '/v1/orgs/org1/ask/questions/stream']);
    } finally {
      await gateway.stop();
    }
  });
});

describe('per-request isolation', () => {
  let t: TestStack;
  const lines: string[] = [];
  beforeAll(async () => {
    // Some upstream latency, so that concurrent requests really overlap.
    t = await startStack({ log: captureLog(lines) }, { latencyMs: 5 });
    for (let i = 1; i <= 3; i++)
      insertSpace(t.upstream.db, t.clock.now().toISOString(), { organizationId: t.world.orgId, title: `Space ${i}` });
  });
  afterAll(() => t.stop());

  const ORG = `query($org: String!) { organization(organizationId: $org) { restId title spaces { nodes { title organization { title } } } } }`;

  it('an admin and an outsider asking for the same organization concurrently never see each other’s answers', async () => {
    const { admin, outsider } = t.world.users;
    for (let round = 0; round < 5; round++) {
      const callers = Array.from({ length: 10 }, (_, i) => (i % 2 === round % 2 ? admin : outsider));
      const results = await Promise.all(callers.map((u) => t.gql(ORG, { org: t.world.orgId }, u.token)));
      results.forEach((res, i) => {
        if (callers[i] === admin) {
          expect(res.errors).toBeUndefined();
          expect(res.data.organization.title).toBe('Acme');
          expect(res.data.organization.spaces.nodes.map((s: any) => s.title)).toEqual(['Space 1', 'Space 2', 'Space 3']);
        } else {
          // Its own GET and its list run side by side: NOT_FOUND at both, the lookup null.
          expect(res.data.organization).toBeNull();
          expect(res.errors!.map((e) => [e.path![0], e.extensions?.code])).toEqual(res.errors!.map(() => ['organization', 'NOT_FOUND']));
        }
      });
    }
  });

  it('each caller sees their own viewer and organization, and no token at all is UNAUTHENTICATED', async () => {
    const { read, outsider } = t.world.users;
    const q = `query($acme: String!, $globex: String!) { viewer { restId } acme: organization(organizationId: $acme) { title } globex: organization(organizationId: $globex) { title } }`;
    const vars = { acme: t.world.orgId, globex: t.world.otherOrgId };
    for (let round = 0; round < 3; round++) {
      const [a, b, none] = await Promise.all([t.gql(q, vars, read.token), t.gql(q, vars, outsider.token), t.gql(q, vars, null)]);
      expect(a.data).toEqual({ viewer: { restId: read.id }, acme: { title: 'Acme' }, globex: null });
      expect(a.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['globex'], 'NOT_FOUND']]);
      expect(b.data).toEqual({ viewer: { restId: outsider.id }, acme: null, globex: { title: 'Globex' } });
      expect(b.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['acme'], 'NOT_FOUND']]);
      expect(none.data).toBeNull();
      expect(none.errors?.every((e) => e.extensions?.code === 'UNAUTHENTICATED')).toBe(true);
    }
  });

  it('no token appears in any log line', () => {
    expect(lines.length).toBeGreaterThan(0);
    const tokens = Object.values(t.world.users).map((u) => u.token);
    for (const line of lines) for (const token of tokens) expect(line).not.toContain(token);
  });
});

describe('malformed requests are the client’s BAD_USER_INPUT, masked, and log no error (over real HTTP)', () => {
  const lines: string[] = [];
  let t: TestStack;
  let url: string;
  beforeAll(async () => {
    t = await startStack({ log: captureLog(lines) });
    url = await t.gateway.start();
  });
  afterAll(() => t.stop());

  const token = () => t.world.users.admin.token;
  const get = (params: string) =>
    fetch(`${url}?query=${encodeURIComponent('query($a: Int) { viewer { restId } a: __typename @include(if: true) } ')}&${params}`, {
      headers: { authorization: `Bearer ${token()}` },
    });

  it('GET with variables or extensions that are not JSON: 400 BAD_USER_INPUT, no ERROR line, no REST call', async () => {
    t.resetCalls();
    for (const params of ['variables=notjson', 'extensions=notjson', 'variables=%7B']) {
      const res = await get(params);
      expect(res.status).toBe(400);
      const text = await res.text();
      const body = JSON.parse(text) as GqlResult;
      expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
      expect(body.errors?.[0].message).toMatch(/variables/);
      expectNothingInternal(text, token());
      expect(text).not.toContain('SyntaxError');
    }
    expect(t.calls).toEqual([]);
    expect(lines.filter((l) => l.startsWith('error '))).toEqual([]);
  });

  it('a POST body that is not JSON: 400 BAD_USER_INPUT without the parser’s internal error', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token()}` },
      body: 'notjson',
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(JSON.parse(text).errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT' });
    expectNothingInternal(text, token());
    expect(text).not.toContain('SyntaxError');
    expect(lines.filter((l) => l.startsWith('error '))).toEqual([]);
  });

  it('half of a surrogate pair in an id or a query argument: BAD_USER_INPUT for the request, no REST call, no ERROR line', async () => {
    const orgId = t.world.orgId;
    const post = (query: string, variables: Record<string, unknown>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token()}` },
        body: JSON.stringify({ query, variables }),
      });
    const cases: Array<[string, Record<string, unknown>]> = [
      ['query($v: String!) { space(spaceId: $v) { title } }', { v: 'a\ud800' }],
      ['mutation($v: String!) { deleteSpace(input: { spaceId: $v }) { deletedId } }', { v: '\udc00' }],
      [`query($v: String) { organization(organizationId: "${orgId}") { members(search: $v) { nodes { role } } } }`, { v: '\ud800' }],
    ];
    t.resetCalls();
    for (const [query, variables] of cases) {
      // JSON.stringify escapes the lone half (`"\ud800"`), as a client's JSON would. Refused as a
      // variable that cannot be coerced is (graphql-js refuses it written in the document): the
      // whole request, before any field runs (useMaxVariablesDepth.ts).
      const body = (await (await post(query, variables)).json()) as GqlResult;
      expect(body.errors?.map((e) => [e.extensions?.code, e.path])).toEqual([['BAD_USER_INPUT', undefined]]);
      expect(body.errors?.[0].message).toMatch(/surrogate/);
      expect(body.data).toBeUndefined();
    }
    expect(t.calls).toEqual([]);
    expect(lines.filter((l) => l.startsWith('error '))).toEqual([]);
  });

  it('a body that is not UTF-8: 400 BAD_USER_INPUT on every path, nothing written; UTF-8 text round-trips byte for byte', async () => {
    const query = 'mutation($t: String) { createSpace(input: { organizationId: $o, title: $t }) { space { title } } }'.replace(
      '$o',
      JSON.stringify(t.world.orgId),
    );
    const body = (title: Buffer) =>
      Buffer.concat([Buffer.from(`{"query":${JSON.stringify(query)},"variables":{"t":"`), title, Buffer.from('"}}')]);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token()}` };
    // With a Content-Length (lib/plainPost.ts), chunked (Yoga's parser), and to graphql-sse.
    const send = (bytes: Buffer, path: 'length' | 'chunked' | 'stream') =>
      fetch(path === 'stream' ? `${url}/stream` : url, {
        method: 'POST',
        headers: path === 'stream' ? { ...headers, accept: 'text/event-stream' } : headers,
        body: path === 'chunked' ? new Blob([new Uint8Array(bytes)]).stream() : bytes,
        duplex: 'half',
      } as RequestInit);
    // A lead byte without its continuation, an overlong `/`, an emoji cut after three of its bytes.
    const invalid = [Buffer.from('bad\xc3(x', 'latin1'), Buffer.from('over\xc0\xafx', 'latin1'), Buffer.from('cut\xf0\x9f\x98', 'latin1')];
    t.resetCalls();
    for (const title of invalid)
      for (const path of ['length', 'chunked', 'stream'] as const) {
        const res = await send(body(title), path);
        expect([path, res.status]).toEqual([path, 400]);
        const result = (await res.json()) as GqlResult;
        expect(result.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([
          ['BAD_USER_INPUT', 'The request body is not valid UTF-8 text.'],
        ]);
      }
    expect(t.calls).toEqual([]);
    const valid = 'NFC \u00e9, NFD e\u0301, \ud83d\ude00, \u2028, U+FFFD \ufffd';
    const res = await send(body(Buffer.from(valid)), 'length');
    expect(await res.json()).toEqual({ data: { createSpace: { space: { title: valid } } } });
    expect(lines.filter((l) => l.startsWith('error '))).toEqual([]);
  });

  it('a query string whose escapes are not UTF-8: 400 BAD_USER_INPUT over GET and graphql-sse GET, no REST call', async () => {
    const query = `query($s: String) { organization(organizationId: "${t.world.orgId}") { members(search: $s) { nodes { role } } } }`;
    const get = (search: string, path = '') =>
      fetch(`${url}${path}?query=${encodeURIComponent(query)}&variables=%7B%22s%22%3A%22${search}%22%7D`, {
        headers: { authorization: `Bearer ${token()}`, accept: path ? 'text/event-stream' : 'application/json' },
      });
    t.resetCalls();
    for (const search of ['bad%C3(x', 'over%C0%AFx', 'cut%F0%9F%98'])
      for (const path of ['', '/stream']) {
        const res = await get(search, path);
        expect([search, path, res.status]).toEqual([search, path, 400]);
        const result = (await res.json()) as GqlResult;
        expect(result.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([
          ['BAD_USER_INPUT', 'The query string is not valid UTF-8 text.'],
        ]);
      }
    expect(t.calls).toEqual([]);
    // UTF-8 escapes, and a `%` that escapes nothing, are read as before.
    const res = await get('%C3%A9%zz');
    expect(res.status).toBe(200);
    expect(t.calls.map((c) => [c.path, c.status])).toEqual([[`/orgs/${t.world.orgId}/members`, 200]]);
  });
});

describe('log level', () => {
  it('at info, the gateway makes no log call per request (debug lines are not even formatted)', async () => {
    const calls: string[] = [];
    const record = (msg: string) => void calls.push(msg);
    await using s = await startStack({ log: { debug: record, info: record, warn: record, error: record }, logLevel: 'info' });
    const url = await s.gateway.start();
    for (let i = 0; i < 3; i++) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.world.users.read.token}` },
        body: JSON.stringify({ query: '{ viewer { restId } }' }),
      });
      expect(res.status).toBe(200);
    }
    // What is left is the REST client's own line per call (src/rest).
    expect(calls.filter((msg) => !msg.startsWith('rest '))).toEqual([]);
  });
});
