import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { connect, type Socket } from 'node:net';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { MAX_PIPELINED } from '../../src/gateway/lib/httpBounds.js';
import { SharedBodies } from '../../src/gateway/lib/sharedBodies.js';
import { MAX_LABEL_NAME_LENGTH, MAX_OPERATION_NAMES } from '../../src/gateway/metrics.js';
import { silentLogger } from '../../src/log.js';
import { error, hang, startBadServer } from '../helpers/badServer.js';
import { until } from '../helpers/clock.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

type Family = ReturnType<typeof parsePrometheusTextFormat>[number];
type Sample = Family['metrics'][number];

let t: TestStack;
let spaceId: string;
const MISSING_ID = 'no-such-space-4f7a';

beforeAll(async () => {
  t = await startStack();
  spaceId = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Handbook' })).body.id;
});
afterAll(() => t.stop());

async function scrape(gateway: Gateway = t.gateway): Promise<{ text: string; families: Map<string, Family> }> {
  const res = await gateway.yoga.fetch('http://gateway.test/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
  // The parser merges a histogram's labelled series into one sample; without their TYPE line, its
  // `_bucket`, `_sum` and `_count` lines parse as plain samples that keep their labels (one
  // family per run of lines: merged here).
  const untyped = text.replace(/^# TYPE \S+ histogram$/gm, '');
  for (const f of parsePrometheusTextFormat(untyped)) {
    if (!/_(bucket|sum|count)$/.test(f.name)) continue;
    const seen = families.get(f.name);
    if (seen) seen.metrics.push(...f.metrics);
    else families.set(f.name, f);
  }
  return { text, families };
}

/** The samples of a family whose labels include `labels`. */
function samples(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): Sample[] {
  const family = families.get(name);
  expect(family, `metric ${name}`).toBeDefined();
  return family!.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

/** The sum of the matching samples' values (of a histogram's `_count` series for a histogram). */
const value = (families: Map<string, Family>, name: string, labels: Record<string, string> = {}) => {
  const series = families.get(name)?.type === 'HISTOGRAM' ? `${name}_count` : name;
  return samples(families, series, labels).reduce((sum, m) => sum + Number(m.value), 0);
};

describe('GET /metrics', () => {
  let text: string;
  let families: Map<string, Family>;

  beforeAll(async () => {
    await t.data(`query OrgSpaces($org: String!) { organization(organizationId: $org) { title spaces(first: 5) { nodes { title } } } }`, {
      org: t.world.orgId,
    });
    await t.data(`query SpaceTitle($id: String!) { space(spaceId: $id) { title } }`, { id: spaceId });
    const failing = await t.gql(`query Missing($id: String!) { space(spaceId: $id) { title } }`, { id: MISSING_ID });
    expect(failing.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    ({ text, families } = await scrape());
  });

  it('counts operations by name, type and outcome, with a duration histogram', () => {
    expect(value(families, 'graphql_envelop_request', { operationName: 'OrgSpaces', operationType: 'query', outcome: 'ok' })).toBe(1);
    expect(value(families, 'graphql_envelop_request', { operationName: 'SpaceTitle', operationType: 'query', outcome: 'ok' })).toBe(1);
    expect(value(families, 'graphql_envelop_request', { operationName: 'Missing', operationType: 'query', outcome: 'error' })).toBe(1);
    expect(families.get('graphql_envelop_request_duration')?.type).toBe('HISTOGRAM');
    expect(value(families, 'graphql_envelop_request_duration', { operationName: 'Missing', outcome: 'error' })).toBe(1);
    const buckets = samples(families, 'graphql_envelop_request_duration_bucket', { operationName: 'OrgSpaces', outcome: 'ok' });
    expect(buckets.length).toBeGreaterThan(5);
    expect(buckets.find((b) => b.labels?.le === '+Inf')?.value).toBe('1');
  });

  it('counts errors by extensions.code', () => {
    expect(value(families, 'graphql_envelop_error_result', { operationName: 'Missing', phase: 'execute', code: 'NOT_FOUND' })).toBe(1);
    expect(samples(families, 'graphql_envelop_error_result', { operationName: 'SpaceTitle' })).toEqual([]);
  });

  it('times REST calls by method, route template and status', () => {
    const rest = 'docs_graph_upstream_request_duration_seconds';
    expect(families.get(rest)?.type).toBe('HISTOGRAM');
    expect(value(families, rest, { method: 'GET', route: '/orgs/{organizationId}', status: '200' })).toBe(1);
    expect(value(families, rest, { method: 'GET', route: '/orgs/{organizationId}/spaces', status: '200' })).toBe(1);
    expect(value(families, rest, { method: 'GET', route: '/spaces/{spaceId}', status: '200' })).toBe(1);
    expect(value(families, rest, { method: 'GET', route: '/spaces/{spaceId}', status: '404' })).toBe(1);
    // Every route label is a template of the REST API (none fell back to `other`).
    const routes = new Set(samples(families, `${rest}_count`).map((m) => m.labels!.route));
    expect([...routes].sort()).toEqual(['/orgs/{organizationId}', '/orgs/{organizationId}/spaces', '/spaces/{spaceId}']);
  });

  it('has no raw id, token or variable value anywhere in the text', () => {
    for (const secret of [t.world.orgId, spaceId, MISSING_ID, t.world.users.admin.token, t.world.users.admin.id]) {
      expect(text).not.toContain(secret);
    }
  });

  it('has the circuit state, response-cache, retry and subscription series and Node process metrics', () => {
    expect(value(families, 'docs_graph_upstream_circuit_state', { state: 'closed' })).toBe(1);
    expect(value(families, 'docs_graph_upstream_circuit_state', { state: 'open' })).toBe(0);
    expect(value(families, 'docs_graph_response_cache_total', { result: 'hit' })).toBe(0);
    expect(value(families, 'docs_graph_response_cache_total', { result: 'miss' })).toBe(0);
    expect(families.get('docs_graph_upstream_retries_total')?.type).toBe('COUNTER');
    expect(value(families, 'docs_graph_subscriptions_open')).toBe(0);
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(families.has(name), name).toBe(true);
    }
  });

  it('circuit changes and response-cache lookups fed by their callbacks show at once', async () => {
    const metrics = t.gateway.metrics!;
    metrics.onCircuitChange('open');
    metrics.onResponseCache(true);
    metrics.onResponseCache(false);
    metrics.onResponseCache(false);
    const after = (await scrape()).families;
    expect(value(after, 'docs_graph_upstream_circuit_state', { state: 'open' })).toBe(1);
    expect(value(after, 'docs_graph_upstream_circuit_state', { state: 'closed' })).toBe(0);
    expect(value(after, 'docs_graph_response_cache_total', { result: 'hit' })).toBe(1);
    expect(value(after, 'docs_graph_response_cache_total', { result: 'miss' })).toBe(2);
    metrics.onCircuitChange('closed');
  });

  it('counts open subscriptions while they are open', async () => {
    await using s = await startStack({}, { askStreamDelayMs: 60_000 });
    const client = new AbortController();
    const res = await fetch(await s.gateway.start(), {
      method: 'POST',
      signal: client.signal,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${s.world.users.admin.token}` },
      body: JSON.stringify({
        query: 'subscription Questions($org: String!) { suggestedQuestionsStream(organizationId: $org) }',
        variables: { org: s.world.orgId },
      }),
    });
    expect(res.status).toBe(200);
    const open = async () => value((await scrape(s.gateway)).families, 'docs_graph_subscriptions_open');
    await expect.poll(open, { timeout: 5000 }).toBe(1);
    client.abort();
    await expect.poll(open, { timeout: 5000 }).toBe(0);
  });

  it('a subscription the client cannot receive (406 for its Accept) is ended, not counted as open', async () => {
    await using s = await startStack({}, { askStreamDelayMs: 60_000 });
    const url = await s.gateway.start();
    const open = async () => value((await scrape(s.gateway)).families, 'docs_graph_subscriptions_open');
    for (const accept of ['application/json', 'multipart/mixed', 'application/graphql-response+json']) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${s.world.users.admin.token}` },
        body: JSON.stringify({
          query: 'subscription Questions($org: String!) { suggestedQuestionsStream(organizationId: $org) }',
          variables: { org: s.world.orgId },
        }),
      });
      expect(res.status).toBe(406);
      await res.arrayBuffer();
      expect(await open()).toBe(0);
    }
  });

  it('the onRestCall of the options still sees every attempt', () => {
    expect(t.calls.length).toBeGreaterThanOrEqual(4);
  });
});

describe('operations answered from the kept introspection answers', () => {
  // Before: the kept answers stop the execution hooks after theirs, and the operation metrics came
  // later: a repeated introspection-only operation counted once, its repeats nowhere.
  it('an introspection-only operation served from the kept answers is counted and timed as one', async () => {
    await using s = await startStack();
    await s.data('query Who { viewer { id } }'); // the token accepted: its operations' names are labels
    for (let i = 0; i < 3; i++) await s.data('query Kept { __typename }');
    const { families } = await scrape(s.gateway);
    expect(value(families, 'graphql_envelop_request', { operationName: 'Kept', outcome: 'ok' })).toBe(3);
    expect(value(families, 'graphql_envelop_request_duration', { operationName: 'Kept' })).toBe(3);
  });
});

describe('operations refused at execution', () => {
  it('are counted, with their error (before: an introspection refused for want of a token was nowhere)', async () => {
    await using s = await startStack();
    const res = await s.gql('query Intro { __schema { queryType { name } } }', undefined, null);
    expect(res.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const { families } = await scrape(s.gateway);
    expect(value(families, 'graphql_envelop_request', { operationType: 'query', outcome: 'error' })).toBe(1);
    expect(value(families, 'graphql_envelop_error_result', { phase: 'execute', code: 'UNAUTHENTICATED' })).toBe(1);
  });
});

describe('a variable the operation cannot take', () => {
  it('is counted, logged and answered as the same BAD_USER_INPUT (before: UPSTREAM_ERROR in the metrics, UNKNOWN in the log)', async () => {
    const debugLines: string[] = [];
    const log = {
      ...silentLogger,
      debug: (msg: string, fields?: Record<string, unknown>) => void debugLines.push(`${msg} ${JSON.stringify(fields)}`),
    };
    await using s = await startStack({ log, logLevel: 'debug' });
    const res = await s.gql('query Coerce($n: Int) { organizations(first: $n) { nodes { id } } }', { n: 'seven' });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const { families } = await scrape(s.gateway);
    expect(value(families, 'graphql_envelop_error_result', { phase: 'execute', code: 'BAD_USER_INPUT' })).toBe(1);
    expect(value(families, 'graphql_envelop_error_result', { code: 'UPSTREAM_ERROR' })).toBe(0);
    expect(debugLines.filter((l) => l.startsWith('graphql query Coerce '))).toEqual([expect.stringContaining('"errors":"BAD_USER_INPUT"')]);
  });
});

describe('an operation whose client leaves while its REST call is in flight', () => {
  it('is counted and logged as cancelled, without an UPSTREAM_UNAVAILABLE error (before: an upstream outage and an error)', async () => {
    await using bad = await startBadServer();
    bad.fallback = hang;
    const debugLines: string[] = [];
    const log = {
      ...silentLogger,
      debug: (msg: string, fields?: Record<string, unknown>) => void debugLines.push(`${msg} ${JSON.stringify(fields)}`),
    };
    const gateway = buildGateway({ upstreamUrl: bad.url, metrics: { slowRenderMs: Infinity }, log, logLevel: 'debug' });
    try {
      const url = new URL(await gateway.start());
      const body = JSON.stringify({ query: 'query Leaving { organizations { nodes { id } } }' });
      const socket = connect(Number(url.port), url.hostname);
      socket.on('error', () => undefined);
      socket.write(
        `POST /graphql HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer tok_leaving\r\ncontent-type: application/json\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await expect.poll(() => bad.requests.length, { timeout: 10_000 }).toBe(1);
      socket.destroy();
      const read = async () => (await scrape(gateway)).families;
      await expect
        .poll(
          async () =>
            (await read()).has('graphql_envelop_request') && value(await read(), 'graphql_envelop_request', { outcome: 'cancelled' }),
          {
            timeout: 10_000,
          },
        )
        .toBe(1);
      const families = await read();
      expect(value(families, 'graphql_envelop_request', { outcome: 'error' })).toBe(0);
      expect(families.get('graphql_envelop_error_result')?.metrics ?? []).toEqual([]);
      // The operation's debug line says the same (it said errors=UPSTREAM_UNAVAILABLE).
      expect(debugLines.filter((l) => l.startsWith('graphql query Leaving '))).toEqual([expect.stringMatching(/"outcome":"cancelled"}$/)]);
    } finally {
      await gateway.stop();
    }
  });
});

describe('retries', () => {
  it('count attempts past the first by method and route template', async () => {
    await using bad = await startBadServer();
    bad.script(error(503, 'busy'), error(503, 'busy'));
    bad.fallback = error(404, 'gone');
    const gateway = buildGateway({ upstreamUrl: bad.url, rest: { retries: 2 } });
    try {
      const res = await gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer secret-token-abc' },
        body: JSON.stringify({ query: 'query Who { viewer { restId } }' }),
      });
      expect((await res.json()).errors?.[0].extensions?.code).toBe('NOT_FOUND');
      const { text, families } = await scrape(gateway);
      expect(value(families, 'docs_graph_upstream_retries_total', { method: 'GET', route: '/user' })).toBe(2);
      expect(value(families, 'docs_graph_upstream_request_duration_seconds', { route: '/user', status: '503' })).toBe(2);
      expect(text).not.toContain('secret-token-abc');
    } finally {
      await gateway.stop();
    }
  });

  it('cuts a long operation name to MAX_LABEL_NAME_LENGTH characters in labels, names that share a beginning kept apart', async () => {
    await using s = await startStack();
    const [a, b] = ['A', 'B'].map((end) => `Op${'x'.repeat(200)}${end}`);
    for (const name of [a, b, a]) await s.data(`query ${name} { viewer { restId } }`);
    const { families } = await scrape(s.gateway);
    const names = samples(families, 'graphql_envelop_request')
      .map((m) => m.labels!.operationName)
      .filter((n) => n.startsWith('Opxx'));
    // Before: each name was kept to 256 characters, in every series of every family (3.4 MB for 200 names).
    expect(names).toHaveLength(2);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(MAX_LABEL_NAME_LENGTH);
    const counts = names.map((operationName) =>
      value(families, 'graphql_envelop_request', { operationName, operationType: 'query', outcome: 'ok' }),
    );
    expect(counts.sort()).toEqual([1, 2]);
  });

  it('renders once for concurrent scrapes, and serves a slow render again for a second', async () => {
    let clock = 0;
    await using s = await startStack({ metrics: { slowRenderMs: 0, now: () => clock } });
    const render = vi.spyOn(s.gateway.metrics!.registry, 'metrics');
    const origin = new URL(await s.gateway.start()).origin;
    const get = () => fetch(`${origin}/metrics`).then((r) => r.text());
    const [one, two] = await Promise.all([get(), get()]);
    expect(one).toBe(two);
    await get();
    expect(render).toHaveBeenCalledTimes(1);
    clock += 1_000;
    await get();
    expect(render).toHaveBeenCalledTimes(2);
  });

  it('keeps at most MAX_OPERATION_NAMES operation names as labels; later new names count as other', async () => {
    await using s = await startStack();
    // A token the REST API accepted (by its first operation's REST call): its operations' names are added.
    await s.data('query Op0 { viewer { id } }');
    for (let i = 1; i <= MAX_OPERATION_NAMES; i++) await s.data(`query Op${i} { __typename }`);
    await s.data('query Op0 { __typename }');
    const { families } = await scrape(s.gateway);
    const names = new Set(samples(families, 'graphql_envelop_request').map((m) => m.labels!.operationName));
    expect(names.size).toBe(MAX_OPERATION_NAMES + 1);
    expect(names.has(`Op${MAX_OPERATION_NAMES}`)).toBe(false);
    expect(value(families, 'graphql_envelop_request', { operationName: 'other' })).toBe(1);
    expect(value(families, 'graphql_envelop_request', { operationName: 'Op0' })).toBe(2);
  });

  it("an anonymous client's made-up names take no place: a token holder's operations keep their names", async () => {
    await using s = await startStack({ anonymousRateLimit: 0 });
    // Before: these took every place, and every later operation of anyone counted as other.
    for (let i = 0; i < MAX_OPERATION_NAMES; i++) await s.gql(`query Junk${i} { __typename }`, undefined, null);
    // A made-up token is no better (its operation makes no REST call that could accept it).
    await s.gql('query JunkToken { __typename }', undefined, 'gb_api_made_up');
    // A token's first operation: its name is decided once its REST calls answered.
    await s.data('query Dashboard { viewer { id } }');
    await s.data('query Dashboard { viewer { id } }');
    await s.gql('query Dashboard { viewer { id } }', undefined, null);
    const { families } = await scrape(s.gateway);
    const names = new Set(samples(families, 'graphql_envelop_request').map((m) => m.labels!.operationName));
    expect([...names].sort()).toEqual(['Dashboard', 'other']);
    expect(value(families, 'graphql_envelop_request', { operationName: 'other', outcome: 'ok' })).toBe(MAX_OPERATION_NAMES + 1);
    // Once added, a name counts for anyone.
    expect(value(families, 'graphql_envelop_request', { operationName: 'Dashboard', outcome: 'error' })).toBe(1);
    expect(value(families, 'graphql_envelop_request', { operationName: 'Dashboard', outcome: 'ok' })).toBe(2);
  });

  it('--metrics-path takes a path or off', () => {
    expect(parseConfig('start', [], {}).metricsPath).toBe('/metrics');
    expect(parseConfig('start', [], { METRICS_PATH: 'off' }).metricsPath).toBe('off');
    expect(parseConfig('start', ['--metrics-path', '/internal/metrics'], {}).metricsPath).toBe('/internal/metrics');
    expect(() => parseConfig('start', ['--metrics-path', 'metrics'], {})).toThrow(/--metrics-path/);
  });

  it('metrics can be turned off: no /metrics endpoint', async () => {
    await using s = await startStack({ metrics: false });
    expect(s.gateway.metrics).toBeUndefined();
    expect((await s.gateway.yoga.fetch('http://gateway.test/metrics')).status).toBe(404);
  });
});

describe('a scrape whose client never reads', () => {
  it('holds its text of the scrapes budget until its connection goes: scrapes past it are answered 503 meanwhile', async () => {
    await using s = await startStack({ metrics: { scrapeBytesInFlight: 64 * 1024 } });
    const url = new URL(await s.gateway.start());
    // MAX_OPERATION_NAMES names of MAX_LABEL_NAME_LENGTH characters (a token's: its first call proves it):
    // a text of about 500 KB, of which MAX_PIPELINED + 1 are more than loopback's socket buffers take.
    await s.data('{ viewer { id } }');
    for (let i = 0; i < MAX_OPERATION_NAMES; i += 20)
      await Promise.all(
        Array.from({ length: 20 }, (_, k) => s.data(`query ${`Q${i + k}_`.padEnd(MAX_LABEL_NAME_LENGTH, 'x')} { __typename }`)),
      );
    const scrape = async () => {
      const res = await fetch(`${url.origin}/metrics`);
      return [res.status, res.headers.get('retry-after'), (await res.text()).length > 300_000];
    };
    expect(await scrape()).toEqual([200, null, true]);
    const accepted: Socket[] = [];
    const onSocket = (message: unknown) => accepted.push((message as { socket: Socket }).socket);
    subscribe('net.server.socket', onSocket);
    const reader = connect(Number(url.port), url.hostname);
    reader.on('error', () => undefined);
    await new Promise((resolve) => reader.once('connect', resolve));
    unsubscribe('net.server.socket', onSocket);
    const served = accepted.find((socket) => socket.remotePort === reader.localPort)!;
    reader.pause();
    reader.write(`GET /metrics HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`.repeat(MAX_PIPELINED + 1));
    // Once its scrapes no longer fit its socket, the next one waits in the gateway, holding its text.
    // Before: nothing held it, and 1,000 such connections took the process to 1.8 GB of RSS.
    await until(() => served.writableLength > 0);
    await expect.poll(scrape, { timeout: 10_000 }).toEqual([503, '1', false]);
    // Its connection gone, the budget is back to rest: the next scrape is served.
    reader.destroy();
    await until(() => served.destroyed);
    expect(await scrape()).toEqual([200, null, true]);
  });
});

describe('scrapes answered by one render', () => {
  it('are written from its text compressed once per encoding (before: compressed at each scrape)', async () => {
    let clock = 0;
    // Every render is kept for a second of this clock, which stands still.
    await using s = await startStack({ metrics: { slowRenderMs: 0, now: () => clock } });
    const url = new URL(await s.gateway.start());
    let made = 0;
    const compressed = SharedBodies.prototype.compressed;
    const spy = vi.spyOn(SharedBodies.prototype, 'compressed').mockImplementation(function (this: SharedBodies, body, encoding, make) {
      return compressed.call(this, body, encoding, () => (made++, make()));
    });
    try {
      const scrapeAs = async (encoding: string) => {
        const res = await fetch(`${url.origin}/metrics`, { headers: { 'accept-encoding': encoding } });
        return [res.headers.get('content-encoding'), (await res.text()).startsWith('# HELP')];
      };
      for (const encoding of ['br', 'br', 'gzip', 'br', 'gzip']) expect(await scrapeAs(encoding)).toEqual([encoding, true]);
      expect(made).toBe(2);
      // The next render is compressed anew.
      clock += 1_001;
      expect(await scrapeAs('br')).toEqual(['br', true]);
      expect(made).toBe(3);
    } finally {
      spy.mockRestore();
    }
  });
});
