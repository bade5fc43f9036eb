/**
 * @defer and @stream over a real loopback gateway, through multipart/mixed and SSE. A proxy in
 * front of the embedded upstream answers the organization's space list late, so the deferred part
 * has a real reason to come after the first one.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { startStack } from '../helpers/gateway.js';
import { sendRaw } from '../helpers/httpStack.js';
import { startSwitchProxy, type SwitchProxy } from '../helpers/switchProxy.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

const SLOW_MS = 400;
const TITLES = ['Guides', 'API reference', 'Changelog'];
const SLOW_SPACES = (path: string) => (path.endsWith('/spaces') ? SLOW_MS : 0);

let upstream: TestUpstream;
let proxy: SwitchProxy;
let gateway: Gateway;
let url: string;

beforeAll(async () => {
  upstream = await startUpstream();
  for (const title of TITLES) await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title });
  proxy = await startSwitchProxy(upstream.url);
  proxy.delay = SLOW_SPACES;
  gateway = buildGateway({ upstreamUrl: proxy.url });
  url = await gateway.start();
});

afterAll(async () => {
  await gateway.stop();
  await proxy.stop();
  await upstream.stop();
});

interface Part {
  payload: any;
  /** ms since the request was sent. */
  at: number;
}

type Transport = 'multipart' | 'sse';
const ACCEPT: Record<Transport, string> = { multipart: 'multipart/mixed', sse: 'text/event-stream' };

/** Sends `query` over real HTTP and collects each part (multipart) or `next` event (SSE) as it arrives (`onPart` sees each). */
async function incremental(
  transport: Transport,
  query: string,
  variables: Record<string, unknown>,
  onPart: (part: Part) => void = () => undefined,
  target = url,
): Promise<Part[]> {
  const started = performance.now();
  const res = await fetch(target, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT[transport], authorization: `Bearer ${upstream.world.users.admin.token}` },
    body: JSON.stringify({ query, variables }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain(ACCEPT[transport]);
  const parts: Part[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    const found = transport === 'multipart' ? multipartPayloads(buffer) : ssePayloads(buffer);
    buffer = found.rest;
    for (const payload of found.payloads) {
      parts.push({ payload, at: performance.now() - started });
      onPart(parts.at(-1)!);
    }
  }
  return parts;
}

/** Complete parts of a `multipart/mixed; boundary="-"` body: each is headers, a blank line, JSON. */
function multipartPayloads(buffer: string): { payloads: any[]; rest: string } {
  const payloads: any[] = [];
  const pieces = buffer.split('\r\n---');
  const rest = pieces.pop() ?? '';
  for (const piece of pieces) {
    const body = piece.split('\r\n\r\n').slice(1).join('\r\n\r\n').trim();
    if (body) payloads.push(JSON.parse(body));
  }
  return { payloads, rest };
}

/** Complete `next` events of an event stream. */
function ssePayloads(buffer: string): { payloads: any[]; rest: string } {
  const events = buffer.split('\n\n');
  const rest = events.pop() ?? '';
  const payloads = events
    .filter((e) => /^event: next$/m.test(e))
    .map((e) =>
      JSON.parse(
        e
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trim())
          .join('\n'),
      ),
    );
  return { payloads, rest };
}

const DEFERRED = /* GraphQL */ `
  query OrgFirst($org: String!) {
    organization(organizationId: $org) {
      title
      ... @defer(label: "spaces") {
        spaces(first: 10) {
          nodes {
            title
          }
        }
      }
    }
  }
`;

describe.each(['multipart', 'sse'] as const)('@defer over %s', (transport) => {
  it('sends the organization first, and its slow space list in a later part', async () => {
    // The proxy holds the space list until the client has the first part: were the first part to
    // wait for the list, neither would come (the test would time out).
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    proxy.delay = (path) => (path.endsWith('/spaces') ? held : 0);
    const parts = await incremental(transport, DEFERRED, { org: upstream.world.orgId }, release).finally(() => (proxy.delay = SLOW_SPACES));
    expect(parts.length).toBeGreaterThanOrEqual(2);
    const [first, ...later] = parts;
    expect(first.payload).toEqual({ data: { organization: { title: 'Acme' } }, hasNext: true });
    const deferred = later.flatMap((p) => p.payload.incremental ?? []);
    expect(deferred).toEqual([
      { data: { spaces: { nodes: TITLES.map((title) => ({ title })) } }, path: ['organization'], label: 'spaces' },
    ]);
    expect(parts.at(-1)!.payload.hasNext).toBe(false);
  });
});

describe('the framing of a multipart response', () => {
  /** The raw response to a multipart `@defer` request sent as HTTP/`version`. */
  const raw = (version: string) => {
    const body = JSON.stringify({ query: '{ __typename ... @defer { later: __typename } }' });
    return sendRaw(
      Number(new URL(url).port),
      `POST /graphql HTTP/${version}\r\nHost: gateway.test\r\nContent-Type: application/json\r\nAccept: multipart/mixed\r\n` +
        `Authorization: Bearer ${upstream.world.users.admin.token}\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
  };

  it('names no Transfer-Encoding to an HTTP/1.0 client, which gets the parts as they are, and chunks them for HTTP/1.1', async () => {
    // Before: `Transfer-Encoding: chunked` (Yoga's) over a body node:http did not chunk for
    // HTTP/1.0, so such a client read the first part's bytes as a chunk size.
    const split = (response: string) => {
      const end = response.indexOf('\r\n\r\n');
      return { head: response.slice(0, end).toLowerCase(), body: response.slice(end + 4) };
    };
    const old = split(await raw('1.0'));
    expect(old.head).not.toContain('transfer-encoding');
    expect(old.body).toMatch(
      /^\r\n---\r\ncontent-type: application\/json; charset=utf-8\r\ncontent-length: \d+\r\n\r\n\{"data":\{"__typename":"Query"\},"hasNext":true\}/i,
    );
    expect(old.body).toMatch(/"hasNext":false\}\r\n-----\r\n$/);
    const current = split(await raw('1.1'));
    expect(current.head).toContain('transfer-encoding: chunked');
    expect(current.body).toMatch(/^[0-9a-f]+\r\n/);
  });
});

describe.each(['multipart', 'sse'] as const)('@stream over %s', (transport) => {
  it.each(['edges', 'nodes'])('streams a connection’s %s after the initial count', async (field) => {
    const selection = field === 'edges' ? 'edges @stream(initialCount: 1) { node { title } }' : 'nodes @stream(initialCount: 1) { title }';
    const query = `query OrgStream($org: String!) { organization(organizationId: $org) { spaces(first: 10) { ${selection} } } }`;
    const parts = await incremental(transport, query, { org: upstream.world.orgId });
    expect(parts.length).toBeGreaterThanOrEqual(2);
    const initial = parts[0].payload.data.organization.spaces[field];
    expect(initial).toHaveLength(1);
    const streamed = parts.slice(1).flatMap((p) => (p.payload.incremental ?? []).flatMap((i: { items: unknown[] }) => i.items));
    const all = [...initial, ...streamed].map((item) => (field === 'edges' ? item.node.title : item.title));
    expect(all).toEqual(TITLES);
    expect(parts.at(-1)!.payload.hasNext).toBe(false);
  });
});

describe('the README example', () => {
  it('its curl query is deferred and arrives in parts', async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### @defer and @stream'));
    const body = section.match(/-d '(\{.*\})'/)?.[1];
    expect(body).toBeDefined();
    const { query, variables } = JSON.parse(body!);
    expect(query).toContain('@defer');
    const parts = await incremental('multipart', query, { ...variables, org: upstream.world.orgId });
    expect(parts.length).toBeGreaterThanOrEqual(2);
    expect(parts.flatMap((p) => p.payload.errors ?? [])).toEqual([]);
  });
});

describe('the parts of an incremental result are priced', () => {
  // Each @defer fragment and each streamed item is a record the executor makes before any part is
  // sent or measured: 20 fragments of one field under 10,000 spaces (cost 202 without them) ran
  // `npm start` out of heap with one request.
  const deferred = (fragments: string[], condition = '') =>
    `query($org: String!${condition.includes('$v') ? ', $v: Boolean = true' : ''}) { organization(organizationId: $org) { spaces(first: 30) { nodes { id ${fragments
      .map((f) => `... @defer${condition} { ${f} }`)
      .join(' ')} } } } }`;

  it('each @defer fragment costs one per item of the lists above it; past maxCost, refused before any REST call', async () => {
    // organization (1) + spaces (1) + 30 × (1 part per fragment)
    await using s = await startStack({ limits: { maxCost: 100 } });
    const org = s.world.orgId;
    const ok = await s.gql(deferred(['title', 'emoji', 'restId']), { org });
    expect(ok.errors).toBeUndefined();
    s.resetCalls();
    const over = await s.gql(deferred(['title', 'emoji', 'restId', 'createdAt']), { org });
    expect(over.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxCost', actual: 2 + 4 * 30 });
    expect(s.calls).toEqual([]);
    // A fragment whose @defer does not apply, or that is skipped, makes no part.
    for (const condition of ['(if: false)', '(if: $v) @skip(if: $v)'])
      expect((await s.gql(deferred(['title', 'emoji', 'restId', 'createdAt'], condition), { org })).errors).toBeUndefined();
    // A fragment spread twice makes its parts twice.
    const spread = `query($org: String!) { organization(organizationId: $org) { spaces(first: 30) { nodes { ...A ...A } } } }
      fragment A on Space { ... @defer { title } ... @defer { emoji } }`;
    expect((await s.gql(spread, { org })).errors?.[0].extensions).toMatchObject({ limit: 'maxCost', actual: 2 + 4 * 30 });
  });

  it('each item of a @stream list costs one', async () => {
    await using s = await startStack({ limits: { maxCost: 100 } });
    const streamed = (first: number) =>
      `query($org: String!) { organization(organizationId: $org) { spaces(first: ${first}) { nodes @stream(initialCount: 1) { id } } } }`;
    expect((await s.gql(streamed(98), { org: s.world.orgId })).errors).toBeUndefined();
    expect((await s.gql(streamed(99), { org: s.world.orgId })).errors?.[0].extensions).toMatchObject({ limit: 'maxCost', actual: 2 + 99 });
  });
});

describe.each(['multipart', 'sse'] as const)('a part past maxResponseBytes, over %s', (transport) => {
  let bounded: Gateway;
  let boundedUrl: string;
  beforeAll(async () => {
    bounded = buildGateway({ upstreamUrl: proxy.url, limits: { maxResponseBytes: 300 } });
    boundedUrl = await bounded.start();
  });
  afterAll(() => bounded.stop());

  it('ends the result: nothing after its error, however long the later parts take', async () => {
    // The space list passes the bound; the member list is held until the client has that part.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    proxy.delay = (path) => (path.endsWith('/members') ? held : 0);
    const query = `query($org: String!) { organization(organizationId: $org) { title
      ... @defer(label: "big") { spaces(first: 10) { nodes { title restId createdAt } } }
      ... @defer(label: "late") { members(first: 1) { nodes { role } } } } }`;
    const parts = await incremental(
      transport,
      query,
      { org: upstream.world.orgId },
      (part) => part.payload.errors && release(),
      boundedUrl,
    ).finally(() => {
      release();
      proxy.delay = SLOW_SPACES;
    });
    const refused = parts.findIndex((p) => p.payload.errors);
    expect(parts[refused].payload).toMatchObject({
      errors: [{ extensions: { code: 'BAD_USER_INPUT', limit: 'maxResponseBytes' } }],
      hasNext: false,
    });
    // Before: one `{"hasNext": false}` part per later part of the executor, once its REST call was answered.
    expect(parts.slice(refused + 1)).toEqual([]);
  });

  it("a mutation's first part past it still says that its write was made", async () => {
    const title = `Deferred payload ${transport}`;
    const mutation = `mutation($org: String!, $title: String!, $id: ID!) {
      createSpace(input: { organizationId: $org, title: $title, clientMutationId: $id }) { clientMutationId ... @defer { space { title } } } }`;
    const parts = await incremental(transport, mutation, { org: upstream.world.orgId, title, id: 'x'.repeat(400) }, undefined, boundedUrl);
    // Before: `{"errors": [maxResponseBytes], "hasNext": false}`, no data: read as a refused write.
    expect(parts).toHaveLength(1);
    expect(parts[0].payload).toMatchObject({
      data: { createSpace: null },
      errors: [{ path: ['createSpace'], message: expect.stringMatching(/^The write was made/), extensions: { limit: 'maxResponseBytes' } }],
      hasNext: false,
    });
    const spaces = await upstream.api.get(`/orgs/${upstream.world.orgId}/spaces`);
    expect(spaces.body.items.filter((s: { title: string }) => s.title === title)).toHaveLength(1);
  });
});

describe('a client that takes only JSON', () => {
  const post = (query: string, variables: Record<string, unknown>, accept: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${upstream.world.users.admin.token}` },
      body: JSON.stringify({ query, variables }),
    });

  it.each(['application/json', 'application/graphql-response+json'])(
    'is answered 406 for an incremental operation before it runs (accept: %s): a mutation makes no write',
    async (accept) => {
      const title = `Deferred for ${accept}`;
      const sent = proxy.requests.length;
      const res = await post(
        `mutation($org: String!, $title: String!) { createSpace(input: { organizationId: $org, title: $title }) { space { id ... @defer { title } } } }`,
        { org: upstream.world.orgId, title },
        accept,
      );
      expect(res.status).toBe(406);
      expect((await res.json()).errors).toEqual([
        { message: expect.stringContaining('`multipart/mixed`'), extensions: { code: 'BAD_USER_INPUT' } },
      ]);
      // Before: the space was made, then the result could not be written.
      expect(proxy.requests.slice(sent)).toEqual([]);
      const spaces = await upstream.api.get(`/orgs/${upstream.world.orgId}/spaces`);
      expect(spaces.body.items.filter((s: { title: string }) => s.title === title)).toEqual([]);
    },
  );

  it('gets the whole result when no @defer or @stream applies', async () => {
    const query = `query($org: String!, $v: Boolean = false) { organization(organizationId: $org) { title ... @defer(if: $v) { restId } } }`;
    const res = await post(query, { org: upstream.world.orgId }, 'application/json');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { organization: { title: 'Acme', restId: upstream.world.orgId } } });
    expect((await post(query, { org: upstream.world.orgId, v: true }, 'application/json')).status).toBe(406);
    // A bad argument of the directive is named first, whatever the client accepts.
    const bad = await post(
      `query($org: String!) { organization(organizationId: $org) { spaces { nodes @stream(initialCount: -1) { id } } } }`,
      { org: upstream.world.orgId },
      'application/json',
    );
    expect((await bad.json()).errors[0].message).toContain('initialCount');
  });

  it("is answered the operation it names, whatever the document's other operations defer", async () => {
    const post = (operationName: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${upstream.world.users.admin.token}`,
        },
        body: JSON.stringify({ query: document, operationName }),
      });
    const document = `query Plain { viewer { restId ...Later } } query Deferred { viewer { ... @defer { restId } } }
      query Streamed { organizations { nodes @stream(initialCount: -1) { id } } } fragment Later on User { displayName }`;
    // Before: BAD_USER_INPUT for Streamed's initialCount (without Streamed: 406 for Deferred's @defer), for an operation with neither.
    const plain = await post('Plain');
    expect(plain.status).toBe(200);
    expect(await plain.json()).toEqual({ data: { viewer: { restId: upstream.world.users.admin.id, displayName: 'Ada admin' } } });
    expect((await post('Deferred')).status).toBe(406);
    expect((await (await post('Streamed')).json()).errors[0].message).toContain('initialCount');
  });
});
