/**
 * The small ones of issue 18: bad directive arguments and too-deep variables are the caller's
 * BAD_USER_INPUT (they answered UPSTREAM_ERROR), and the log line of an unexpected error names
 * the operation and a hash of its document, never the document's text or argument values (the
 * ERROR line printed a query excerpt with an inline `shareKey`).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { ERROR_LINE_WINDOW_MS, ERROR_LINES_PER_WINDOW } from '../../src/gateway/lib/maskedErrors.js';
import { fakeClock } from '../helpers/clock.js';
import { jsonDeeperThan, MAX_VARIABLES_DEPTH } from '../../src/gateway/plugins/useMaxVariablesDepth.js';
import { MAX_REQUEST_ERROR_MESSAGE } from '../../src/gateway/plugins/useRequestErrorCodes.js';
import type { Logger } from '../../src/log.js';
import { MAX_URL_CHARS } from '../../src/rest/index.js';
import { json, startBadServer, type BadServer } from '../helpers/badServer.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

const lines: string[] = [];
const capture: Logger = Object.fromEntries(
  (['debug', 'info', 'warn', 'error'] as const).map((level) => [
    level,
    (msg: string, fields?: Record<string, unknown>) => void lines.push(`${level} ${msg}${fields ? ' ' + JSON.stringify(fields) : ''}`),
  ]),
) as unknown as Logger;

let t: TestStack;
beforeAll(async () => {
  t = await startStack({ log: capture, logLevel: 'info' });
});
afterAll(() => t.stop());

/** POSTs a raw JSON body (variables too deep for JSON.stringify). */
async function raw(body: string) {
  const res = await t.gateway.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.world.users.admin.token}` },
    body,
  });
  return (await res.json()) as { data?: unknown; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
}

describe('values too long for a REST URL', () => {
  it('are BAD_USER_INPUT before any REST call (an id, a search string)', async () => {
    for (const [query, variables] of [
      ['query($s: String!) { space(spaceId: $s) { title } }', { s: 'x'.repeat(MAX_URL_CHARS) }],
      [
        'query($o: String!, $q: String!) { organization(organizationId: $o) { members(search: $q) { nodes { role } } } }',
        { o: t.world.orgId, q: 'q'.repeat(MAX_URL_CHARS) },
      ],
    ] as const) {
      t.resetCalls();
      // Before: one REST call, answered 431 by the REST API's HTTP server: UPSTREAM_ERROR.
      const result = await t.gql(query, variables);
      expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      expect(t.calls.filter((c) => c.path.length > 1000)).toEqual([]);
    }
  });

  it('are BAD_USER_INPUT in a write after a read of the same request, however long (no ERROR line)', async () => {
    // What the write makes stale was matched by a regular expression made of its path: past about
    // 40,000 characters V8 refused to compile it ("Regular expression too large"), and the write
    // answered UPSTREAM_ERROR with an ERROR line.
    const write = `mutation($o: String!, $s: String!) {
      ping: pingOrganization(input: { organizationId: $o }) { organization { title } }
      update: updateSpace(input: { spaceId: $s, title: "Renamed" }) { clientMutationId } }`;
    lines.splice(0);
    t.resetCalls();
    const result = await t.gql(write, { o: t.world.orgId, s: 'x'.repeat(100_000) });
    expect(result.data).toEqual({ ping: { organization: { title: expect.any(String) } }, update: null });
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['update'], 'BAD_USER_INPUT']]);
    expect(t.calls.filter((c) => c.path.length > 1000)).toEqual([]);
    expect(lines.filter((l) => l.startsWith('error'))).toEqual([]);
  });
});

describe('a made-up token as long as a header may hold', () => {
  it('is UNAUTHENTICATED (its redaction from the REST answer overflowed the stack: UPSTREAM_UNAVAILABLE)', async () => {
    const token = Array.from({ length: 12_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const result = await t.gql('{ viewer { restId } }', {}, token);
    expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
  });
});

describe('bad directive arguments', () => {
  const STREAM = (count: string) =>
    `query S($org: String!${count === '$n' ? ', $n: Int!' : ''}) { organization(organizationId: $org) { spaces(first: 3) { nodes @stream(initialCount: ${count}) { title } } } }`;

  it('@stream(initialCount: -1) is BAD_USER_INPUT, before any REST call', async () => {
    for (const [count, n] of [
      ['-1', 0],
      ['$n', -1],
    ] as const) {
      t.resetCalls();
      const res = await t.gql(STREAM(count), { org: t.world.orgId, n });
      expect(res.data ?? null).toBeNull();
      expect(res.errors).toHaveLength(1);
      expect(res.errors![0].message).toBe('`@stream(initialCount:)` must be 0 or more, found -1.');
      expect(res.errors![0].extensions).toEqual({ code: 'BAD_USER_INPUT' });
      expect(t.calls).toEqual([]);
    }
  });

  it('a null initialCount, or a null `if` of @defer or @stream, is BAD_USER_INPUT, before any REST call', async () => {
    // Validation lets a nullable variable into these arguments (they have defaults); before, the
    // executor threw at the field: "Unexpected error." UPSTREAM_ERROR and an ERROR line.
    const cases: Array<[query: string, variables: Record<string, unknown>, message: string]> = [
      [STREAM('null'), {}, '`@stream(initialCount:)` must be 0 or more, found null.'],
      [STREAM('$n').replace('$n: Int!', '$n: Int'), { n: null }, '`@stream(initialCount:)` must be 0 or more, found null.'],
      [
        'query($org: String!, $b: Boolean) { organization(organizationId: $org) { spaces(first: 3) { nodes @stream(if: $b) { title } } } }',
        { b: null },
        '`@defer(if:)` and `@stream(if:)` must be true or false, found null.',
      ],
      [
        'query($org: String!, $b: Boolean) { organization(organizationId: $org) { spaces(first: 3) { nodes { ... @defer(if: $b) { title } } } } }',
        { b: null },
        '`@defer(if:)` and `@stream(if:)` must be true or false, found null.',
      ],
    ];
    for (const [query, variables, message] of cases) {
      t.resetCalls();
      const res = await t.gql(query, { org: t.world.orgId, ...variables });
      expect(res.errors).toEqual([{ message, extensions: { code: 'BAD_USER_INPUT' } }]);
      expect(t.calls).toEqual([]);
    }
  });

  it('@stream(initialCount: 0) still streams', async () => {
    const res = await t.gql(STREAM('$n'), { org: t.world.orgId, n: 0 });
    expect(res.errors).toBeUndefined();
  });
});

describe('refusals of what the gateway cannot read or write', () => {
  it('415 and 406 carry a GraphQL error with BAD_USER_INPUT, not an empty body', async () => {
    // Before: Yoga's bodiless 415 and 406, no message and no code.
    const send = (headers: Record<string, string>, body: string) =>
      fetch(t.gateway.url, { method: 'POST', headers: { authorization: `Bearer ${t.world.users.admin.token}`, ...headers }, body });
    for (const [res, status] of [
      [await send({ 'content-type': 'text/xml' }, '<query/>'), 415],
      [await send({ 'content-type': 'multipart/form-data; boundary=x' }, '--x--'), 415],
      [
        await send(
          { 'content-type': 'application/json', accept: 'application/json' },
          JSON.stringify({ query: '{ viewer { id } ... @defer { __typename } }' }),
        ),
        406,
      ],
    ] as const) {
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
      expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(body.errors[0].message.length).toBeGreaterThan(20);
    }
  });

  /** A body asking for the type named `text`, in `charset`. */
  const typeQuery = (text: string, charset: BufferEncoding) =>
    Buffer.from(JSON.stringify({ query: 'query($n: String!) { __type(name: $n) { name } }', variables: { n: text } }), charset);
  /** POSTs `bytes` as `contentType`: at /graphql, a small JSON POST of the fast path (lib/plainPost.ts); graphql-sse's distinct connections at /graphql/stream. */
  const sendTyped = (url: string, contentType: string, bytes: Buffer) =>
    fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.world.users.admin.token}`,
        'content-type': contentType,
        ...(url.endsWith('/stream') && { accept: 'text/event-stream' }),
      },
      body: new Uint8Array(bytes),
    });
  const endpoints = () => [t.gateway.url, `${t.gateway.url}/stream`];

  it('a body in a charset other than UTF-8 is 415, not read as UTF-8; UTF-8 named in any spelling is read', async () => {
    // Before: 200 on both endpoints, the body read as UTF-8 (`Qu\xe9ry` became `Qu\uFFFDry`).
    for (const url of endpoints()) {
      for (const contentType of ['application/json; charset=iso-8859-1', 'application/json;charset="windows-1252"']) {
        t.resetCalls();
        const res = await sendTyped(url, contentType, typeQuery('Qu\u00e9ry', 'latin1'));
        expect([res.status, t.calls.length]).toEqual([415, 0]);
        expect(((await res.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0].extensions.code).toBe(
          'BAD_USER_INPUT',
        );
      }
    }
    for (const contentType of [
      'application/json',
      'application/json; charset=UTF-8',
      'application/json;charset="utf-8"',
      'application/json; charset=utf8',
    ])
      expect(await (await sendTyped(t.gateway.url, contentType, typeQuery('Query', 'utf8'))).json()).toEqual({
        data: { __type: { name: 'Query' } },
      });
  });

  it('the JSON type is read in any case and with a space before its parameters (RFC 9110)', async () => {
    // Before: 415 on both endpoints (`application/json ; charset=utf-8` on /graphql only).
    for (const url of endpoints())
      for (const contentType of ['Application/JSON', 'application/json ; charset=utf-8', 'APPLICATION/JSON;CHARSET=UTF-8']) {
        const res = await sendTyped(url, contentType, typeQuery('Query', 'utf8'));
        expect([res.status, await res.text()]).toEqual([200, expect.stringContaining('{"data":{"__type":{"name":"Query"}}}')]);
      }
  });

  it("a 406 for an Accept naming no format the gateway writes says which it writes, not only an incremental result's", async () => {
    const res = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/html', authorization: `Bearer ${t.world.users.admin.token}` },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(res.status).toBe(406);
    const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].message).toMatch(/`application\/json`/);
  });
});

describe("Accept's weights", () => {
  /** The status, the response's type and the REST calls of `query` sent with `accept`, by POST (the fast path) or GET (Yoga's). */
  async function negotiate(accept: string, query: string, method: 'POST' | 'GET' = 'POST') {
    t.resetCalls();
    const auth = { authorization: `Bearer ${t.world.users.admin.token}`, accept };
    const res =
      method === 'POST'
        ? await fetch(t.gateway.url, { method, headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query }) })
        : await fetch(`${t.gateway.url}?query=${encodeURIComponent(query)}`, { headers: auth });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type')?.split(';')[0], calls: t.calls.length, text };
  }

  it('a type the client refuses (q=0) is never written, and the preferred one is', async () => {
    // Before: Yoga read the types in order and ignored `q`: each of these got the other type
    // (application/json;q=0 got JSON, with its REST call), the multipart stream was written.
    const viewer = '{ viewer { id } }';
    for (const method of ['POST', 'GET'] as const) {
      for (const [accept, type] of [
        ['application/graphql-response+json;q=0.5, application/json', 'application/json'],
        ['application/json;q=0.5, application/graphql-response+json', 'application/graphql-response+json'],
        ['application/json;q=0, application/graphql-response+json', 'application/graphql-response+json'],
        ['*/*;q=0.1, application/json;q=0', 'application/graphql-response+json'],
      ])
        expect(await negotiate(accept, viewer, method)).toMatchObject({ status: 200, type });
      const refused = await negotiate('application/json;q=0', viewer, method);
      expect(refused).toMatchObject({ status: 406, type: 'application/json', calls: 0 });
      expect(refused.text).toContain('BAD_USER_INPUT');
    }
    const deferred = await negotiate('application/json, multipart/mixed;q=0', '{ viewer { id } ... @defer { __typename } }');
    expect(deferred).toMatchObject({ status: 406, calls: 0 });
    expect(await negotiate('multipart/mixed;q=0.1, application/json', '{ viewer { id } ... @defer { __typename } }')).toMatchObject({
      status: 200,
      type: 'multipart/mixed',
    });
  });
});

describe('too-deep documents', () => {
  it("a list literal nested past the parser's stack is BAD_USER_INPUT, not an unexpected error", async () => {
    // graphql-js parses recursively: around 2,000 levels its stack ran out before the token
    // limit (2,000) was reached, and the RangeError answered UPSTREAM_ERROR, with no log line.
    for (const depth of [900, 1500, 2000, 3000, 30_000]) {
      for (const query of [
        `{ node(id: ${'['.repeat(depth)}${']'.repeat(depth)}) { id } }`,
        `query($x: ID = ${'{a:'.repeat(depth)}1${'}'.repeat(depth)}) { __typename }`,
      ]) {
        const res = await raw(JSON.stringify({ query }));
        expect(res.data ?? null).toBeNull();
        expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      }
    }
  });
});

describe('too-deep variables', () => {
  const n = 200_000;
  it('200,000-deep JSON variables are BAD_USER_INPUT, used or not', async () => {
    const cases = [
      `{"query": "query D($ids: [ID!]!) { nodes(ids: $ids) { id } }", "variables": {"ids": ${'['.repeat(n)}1${']'.repeat(n)}}}`,
      `{"query": "query E { __typename }", "variables": {"x": ${'['.repeat(n)}${']'.repeat(n)}}}`,
    ];
    for (const body of cases) {
      const res = await raw(body);
      expect(res.data ?? null).toBeNull();
      expect(res.errors?.[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        limit: 'maxVariablesDepth',
        maximum: MAX_VARIABLES_DEPTH,
      });
    }
  });

  it('are refused before the response cache keys them (its key would walk them: a stack overflow, UPSTREAM_ERROR)', async () => {
    await using s = await startStack({ responseCacheTtlMs: 60_000 });
    const res = await s.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.world.users.admin.token}` },
      body: `{"query": "query E($x: JSON) { __typename }", "variables": {"x": ${'['.repeat(n)}1${']'.repeat(n)}}}`,
    });
    const body = (await res.json()) as { errors?: Array<{ extensions?: Record<string, unknown> }> };
    expect(body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxVariablesDepth' });
  });

  it('a too-deep body is refused from its text, never JSON-parsed (over HTTP, with the status as before)', async () => {
    const url = t.gateway.url || (await t.gateway.start());
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.world.users.admin.token}` },
        body: `{"query": "query E { __typename }", "variables": {"x": ${'['.repeat(n)}${']'.repeat(n)}}}`,
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { errors?: Array<{ extensions?: Record<string, unknown> }> };
      expect(body.errors?.[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        limit: 'maxVariablesDepth',
        maximum: MAX_VARIABLES_DEPTH,
      });
      expect(parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length > n)).toEqual([]);
    } finally {
      parse.mockRestore();
    }
  });

  it('brackets inside strings do not count; a string may end in escaped backslashes', async () => {
    const text = `{"query": "query E { __typename }", "variables": {"s": "${'['.repeat(500)}\\\\", "t": [[1]]}}`;
    expect(await raw(text)).toEqual({ data: { __typename: 'Query' } });
    expect(jsonDeeperThan(text, 4)).toBe(false);
    expect(jsonDeeperThan(text, 3)).toBe(true);
    expect(jsonDeeperThan('{"a": "\\"}', 0)).toBe(true);
  });

  it('variables 64 deep pass, 65 do not', async () => {
    expect(MAX_VARIABLES_DEPTH).toBe(64);
    const nested = (depth: number) => `{"query": "query E { __typename }", "variables": {"x": ${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    expect(await raw(nested(64))).toEqual({ data: { __typename: 'Query' } });
    expect((await raw(nested(65))).errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxVariablesDepth' });
    // Over HTTP, a body under 4 KiB skips the text check (it parses cheaply) and is refused at its parameters.
    const url = t.gateway.url || (await t.gateway.start());
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.world.users.admin.token}` },
      body: nested(1500),
    });
    const body = (await res.json()) as { errors?: Array<{ extensions?: Record<string, unknown> }> };
    expect(body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxVariablesDepth', maximum: MAX_VARIABLES_DEPTH });
  });
});

describe('a JSON value of a mutation input nested as deep as the REST API refuses', () => {
  // An integration setting's `default` takes any JSON: the body is the input, five levels above it.
  const publish = (depth: number) => {
    let value: unknown = { leaf: true };
    for (let i = 1; i < depth; i++) value = { a: value };
    const input = {
      integrationName: `deep-${depth}`,
      organization: t.world.orgId,
      title: 'Deep',
      description: 'Deep',
      scopes: [],
      script: 'export default {}',
      configurations: { space: { properties: { x: { type: 'string', default: value } } } },
    };
    return t.mutate('publishIntegration', input, 'clientMutationId');
  };

  it('is refused by the gateway with BAD_USER_INPUT before any REST call (the REST API answered it 400)', async () => {
    t.resetCalls();
    const refused = await publish(60);
    expect(refused.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxVariablesDepth' });
    expect(t.calls).toEqual([]);
    // One level less is a body of 64 levels, which the REST API takes.
    expect((await publish(59)).errors).toBeUndefined();
  });
});

describe('a JSON value holding a number past ±1.8e308', () => {
  // `1e400` reads as Infinity, which the REST body's JSON writes as null: the setting was stored null.
  const post = (body: string) =>
    fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.world.users.admin.token}` },
      body,
    }).then((res) => res.json() as Promise<{ data?: unknown; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> }>);
  const input = (name: string) =>
    `integrationName: "${name}", organization: "${t.world.orgId}", title: "Big", description: "Big", scopes: [], script: "export default {}"`;
  const mutation = (rest: string) => `mutation($c: JSON) { publishIntegration(input: { ${rest} }) { clientMutationId } }`;

  it('is BAD_USER_INPUT before any REST call, in a variable or written in the document', async () => {
    for (const body of [
      `{"query": ${JSON.stringify(mutation(`${input('big-variable')}, configurations: $c`))}, "variables": {"c": {"space": {"properties": {"x": {"type": "number", "default": 1e400}}}}}}`,
      JSON.stringify({
        query: mutation(`${input('big-literal')}, configurations: { space: { properties: { x: { type: "number", default: -1e400 } } } }`),
      }),
    ]) {
      t.resetCalls();
      const refused = await post(body);
      expect(refused.errors?.[0]).toMatchObject({
        message: expect.stringMatching(/number out of range/),
        extensions: { code: 'BAD_USER_INPUT' },
      });
      expect(t.calls).toEqual([]);
    }
    // A number in range is sent as it was written.
    const fine = await post(
      JSON.stringify({
        query: mutation(`${input('in-range')}, configurations: $c`),
        variables: { c: { space: { properties: { x: { type: 'number', default: 1e300 } } } } },
      }),
    );
    expect(fine.errors).toBeUndefined();
  });
});

describe('half of a surrogate pair in a variable', () => {
  // JSON escapes it (`"\ud800"`); graphql-js refuses it in a document, the REST body rules in a
  // string they know, but a JSON value's strings and keys reached the REST API and were stored.
  const publish = (name: string, configuration: Record<string, unknown>, padding = '') =>
    t.mutate(
      'publishIntegration',
      {
        integrationName: name,
        organization: t.world.orgId,
        title: 'Text',
        description: 'Text',
        scopes: [],
        script: `export default {} // ${padding}`,
        configurations: { space: configuration },
      },
      'clientMutationId',
    );

  it('anywhere in a JSON value, as a string or a key, is BAD_USER_INPUT before any REST call', async () => {
    // Small bodies (parsed at once) and large ones (whose text is checked first).
    for (const padding of ['', 'x'.repeat(8 * 1024)])
      for (const configuration of [
        { properties: { x: { type: 'string', default: 'half \ud800 of a pair' } } },
        { properties: { x: { type: 'string', default: [{ deep: ['\udc00'] }] } } },
        { properties: { x: { type: 'string', default: { ['key \udbff']: 1 } } } },
      ]) {
        t.resetCalls();
        const refused = await publish('half-pair', configuration, padding);
        expect(refused.errors?.[0]).toMatchObject({
          message: 'A variable is not valid Unicode text: a string or key holds half of a surrogate pair.',
          extensions: { code: 'BAD_USER_INPUT' },
        });
        expect(t.calls).toEqual([]);
      }
    expect(t.upstream.db.prepare("SELECT count(*) AS n FROM integrations WHERE name = 'half-pair'").get()).toEqual({ n: 0 });
    // A whole pair (an emoji) is text.
    expect((await publish('whole-pair', { properties: { x: { type: 'string', default: 'a \ud83d\ude00' } } })).errors).toBeUndefined();
  });
});

describe('the log of an unexpected error', () => {
  const SECRET = 'sk_inline_share_key_9f2c';
  let bad: BadServer;
  let gateway: Gateway;
  beforeAll(async () => {
    bad = await startBadServer();
    // Every list answers a body of the wrong shape: resolvers throw (an unexpected error, masked).
    bad.fallback = (req, res) =>
      (req.url?.includes('/spaces') ? json(200, { items: 'not a list', count: 1 }) : json(200, { id: 'org1', title: 'Acme' }))(req, res);
    gateway = buildGateway({ upstreamUrl: bad.url, log: capture, logLevel: 'info', rest: { retries: 0 } });
  });
  afterAll(async () => {
    await gateway.stop();
    await bad.stop();
  });

  it('names the operation and the document hash, never the document or its argument values', async () => {
    const query = `query SharedSpaces {\n  organization(organizationId: "org1") { title spaces(first: 2) { nodes { title } } }\n  space(spaceId: "s1", shareKey: "${SECRET}") { title }\n}`;
    lines.splice(0);
    const res = await gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer tok' },
      body: JSON.stringify({ query }),
    });
    const body = (await res.json()) as { errors?: Array<{ extensions?: Record<string, unknown> }> };
    expect(body.errors?.some((e) => e.extensions?.code === 'UPSTREAM_ERROR')).toBe(true);
    const errors = lines.filter((l) => l.startsWith('error '));
    expect(errors.length).toBeGreaterThan(0);
    const hash = createHash('sha256').update(query).digest('hex');
    expect(errors.some((l) => l.includes('SharedSpaces') && l.includes(hash))).toBe(true);
    for (const line of lines) {
      expect(line).not.toContain(SECRET);
      expect(line).not.toContain('organizationId: "org1"');
    }
  });

  it('is bounded: at most ERROR_LINES_PER_WINDOW lines a window, the rest counted on the next one', async () => {
    // Before: one ERROR line per request, 300 in 1.9 s, for anyone to repeat.
    const clock = fakeClock();
    const timed = buildGateway({ upstreamUrl: bad.url, log: capture, logLevel: 'info', rest: { retries: 0 }, clock });
    try {
      const send = () =>
        timed.yoga.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer tok' },
          body: JSON.stringify({ query: '{ organization(organizationId: "org1") { spaces(first: 2) { nodes { title } } } }' }),
        });
      lines.splice(0);
      for (let i = 0; i < ERROR_LINES_PER_WINDOW + 15; i++) await (await send()).json();
      expect(lines.filter((l) => l.startsWith('error '))).toHaveLength(ERROR_LINES_PER_WINDOW);
      clock.advance(ERROR_LINE_WINDOW_MS);
      await (await send()).json();
      const errors = lines.filter((l) => l.startsWith('error '));
      expect(errors).toHaveLength(ERROR_LINES_PER_WINDOW + 1);
      expect(errors.at(-1)).toContain('"suppressed":15');
    } finally {
      await timed.stop();
    }
  });
});

describe('the debug line of a failed REST call', () => {
  it("names its class, code and path, never the REST API's message (which may quote a variable's value)", async () => {
    const SECRET = 'var_parent_7d41e';
    const debugLines: string[] = [];
    const debugLog: Logger = { ...capture, debug: (msg) => void debugLines.push(msg) };
    const stack = await startStack({ log: debugLog, logLevel: 'debug' });
    try {
      const res = await stack.gql(
        'mutation Create($org: String!, $parent: String) { createSpace(input: { organizationId: $org, title: "t", parent: $parent }) { space { id } } }',
        { org: stack.world.orgId, parent: SECRET },
      );
      // The caller is told, in its own answer.
      expect(res.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
      expect(res.errors?.[0].message).toContain(SECRET);
      expect(debugLines).toContain('RestError BAD_USER_INPUT at createSpace');
      for (const line of debugLines) expect(line).not.toContain(SECRET);
    } finally {
      await stack.stop();
    }
  });
});

describe('a request error quoting a value', () => {
  it('is cut to MAX_REQUEST_ERROR_MESSAGE: a variable of 940 KB given to an Int is not answered with 3.8 MB (fast path and Yoga’s)', async () => {
    const query = 'query Q($a: Int) { organizations(first: $a) { nodes { id } } }';
    // 1,500 quotes: a body the fast path takes (under 4 KiB); 470,000: Yoga's. Each quote was 4 characters of the answer, twice.
    for (const quotes of [1_500, 470_000]) {
      const res = await t.gql(query, { a: '"'.repeat(quotes) });
      expect(res.errors).toHaveLength(1);
      expect(res.errors?.[0].extensions).toEqual({ code: 'BAD_USER_INPUT' });
      expect(res.errors?.[0].message).toMatch(/^Variable "\$a" got invalid value "/);
      expect(res.errors?.[0].message.length).toBeLessThanOrEqual(MAX_REQUEST_ERROR_MESSAGE + 10);
      expect(JSON.stringify(res).length).toBeLessThan(3 * MAX_REQUEST_ERROR_MESSAGE);
    }
    // A short one is answered whole.
    const short = await t.gql(query, { a: 'x' });
    expect(short.errors?.[0].message).toBe('Variable "$a" got invalid value "x"; Int cannot represent non-integer value: "x"');
  });
});
