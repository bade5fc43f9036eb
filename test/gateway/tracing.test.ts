/**
 * OpenTelemetry tracing, end to end: a gateway with tracing on runs in a child process (tracing is
 * process-global), in front of a recording proxy and the embedded upstream; a small OTLP/HTTP
 * receiver decodes the spans it exports (JSON).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracingEnabled, tracingEndpointError } from '../../src/gateway/tracing.js';
import { startSwitchProxy, type SwitchProxy } from '../helpers/switchProxy.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number; message?: string };
}

const SERVER = 2;
const CLIENT = 3;
const STATUS_ERROR = 2;

const TRACED_GATEWAY = fileURLToPath(new URL('../helpers/tracedGateway.ts', import.meta.url));
const REPORT_LOADS = fileURLToPath(new URL('../helpers/reportLoads.mjs', import.meta.url));

let upstream: TestUpstream;
let proxy: SwitchProxy;
let receiver: Server;
let child: ChildProcess;
let url: string;
const exported: string[] = [];
const spans: OtlpSpan[] = [];
/** Set: the receiver answers the next export with a body that goes on until the gateway closes the socket (or 64 MiB). */
let endless: { written: number; closedByGateway?: boolean } | undefined;
const ENDLESS_CAP = 64 * 1024 * 1024;

/** An OTLP/HTTP traces receiver: keeps the raw bodies and the decoded spans. */
async function startReceiver(): Promise<string> {
  receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.url === '/v1/traces' && req.headers['content-type']?.includes('json')) {
      exported.push(body);
      for (const rs of JSON.parse(body).resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
    }
    if (!endless) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    const answer = endless;
    endless = undefined;
    res.writeHead(200, { 'content-type': 'application/json' }).write('{"partialSuccess":{"errorMessage":"');
    const chunk = Buffer.alloc(64 * 1024, 'x');
    res.on('close', () => (answer.closedByGateway ??= !res.writableFinished));
    const pump = () => {
      while (!res.destroyed && answer.written < ENDLESS_CAP) {
        answer.written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end('"}}');
    };
    pump();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  upstream = await startUpstream();
  await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Guides' });
  proxy = await startSwitchProxy(upstream.url);
  const endpoint = await startReceiver();
  child = spawn(process.execPath, ['--import', 'tsx', TRACED_GATEWAY, proxy.url], {
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'docs-graph-test' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`traced gateway exited with ${code}`)));
  });
  url = JSON.parse(firstLine).url;
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await new Promise((resolve) => receiver?.close(resolve));
  await proxy?.stop();
  await upstream?.stop();
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

async function query(body: { query: string; variables?: Record<string, unknown> }, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${upstream.world.users.admin.token}`, ...headers },
    body: JSON.stringify(body),
  });
  return res.json() as Promise<{ data?: any; errors?: any[] }>;
}

const attr = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value && Object.values(value)[0];
};

/** Waits for the exported spans of a trace until `ready` holds for them. */
async function traceSpans(traceId: string, ready: (spans: OtlpSpan[]) => boolean): Promise<OtlpSpan[]> {
  const of = () => spans.filter((s) => s.traceId === traceId);
  await expect.poll(() => ready(of()), { timeout: 10_000, interval: 50 }).toBe(true);
  return of();
}

const ORG_SPACES = `query OrgSpaces($org: String!) { organization(organizationId: $org) { title spaces(first: 5) { nodes { title } } } }`;

describe('OpenTelemetry tracing', () => {
  it('is off unless an OTLP endpoint is set', () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    // Blank is unset, as the exporter reads it (it then sent the spans to localhost:4318).
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
  });

  it('an endpoint that is no http(s) URL is named (its value never shown), the one the exporter uses', () => {
    expect(tracingEndpointError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://me:s3cret@collector:4318' })).toBeUndefined();
    expect(tracingEndpointError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT: must be an http(s) URL (e.g. http://localhost:4318)',
    );
    expect(tracingEndpointError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'x', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'file:///tmp/s3cret' })).toBe(
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be an http(s) URL (e.g. http://localhost:4318)',
    );
    expect(
      tracingEndpointError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'x', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c/v1/traces' }),
    ).toBeUndefined();
    expect(tracingEndpointError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'x', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
  });

  it('with OTEL_EXPORTER_OTLP_ENDPOINT unset, the gateway loads nothing of OpenTelemetry', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, REPORT_LOADS: '@opentelemetry' };
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', REPORT_LOADS, '--import', 'tsx', TRACED_GATEWAY, 'http://127.0.0.1:9/v1', '--once'],
      { env },
    );
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ status: 200, tracing: false });
    expect(stderr.split('\n').filter((l) => l.startsWith('loaded '))).toEqual([]);
  }, 60_000);

  it('continues the incoming traceparent: an operation span, a child span per REST call, traceparent sent upstream', async () => {
    const traceId = hex(16);
    const callerSpanId = hex(8);
    proxy.requests.length = 0;
    const res = await query(
      { query: ORG_SPACES, variables: { org: upstream.world.orgId } },
      { traceparent: `00-${traceId}-${callerSpanId}-01` },
    );
    expect(res.errors).toBeUndefined();

    // The upstream saw a valid traceparent on each REST call, continuing the caller's trace.
    const seen = proxy.requests.map((r) => r.headers.traceparent);
    expect(seen).toHaveLength(2);
    for (const tp of seen) expect(tp).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const trace = await traceSpans(traceId, (s) => s.filter((x) => x.kind === CLIENT).length >= 2 && s.some((x) => x.kind === SERVER));
    const operation = trace.find((s) => s.kind === SERVER)!;
    expect(operation).toMatchObject({ name: 'query OrgSpaces', parentSpanId: callerSpanId });
    expect(attr(operation, 'graphql.operation.name')).toBe('OrgSpaces');
    expect(attr(operation, 'graphql.operation.type')).toBe('query');

    const rest = trace.filter((s) => s.kind === CLIENT);
    expect(rest.map((s) => s.name).sort()).toEqual(['GET /orgs/{organizationId}', 'GET /orgs/{organizationId}/spaces']);
    for (const span of rest) {
      expect(span.parentSpanId).toBe(operation.spanId);
      expect(attr(span, 'http.route')).toBe(span.name.slice(4));
      expect(Number(attr(span, 'http.response.status_code'))).toBe(200);
      // The upstream got this span's id as the parent in its traceparent.
      expect(seen).toContain(`00-${traceId}-${span.spanId}-01`);
    }
  });

  it('sends the REST API the trace context only: a caller’s `baggage` is not passed on', async () => {
    const traceId = hex(16);
    proxy.requests.length = 0;
    const res = await query(
      { query: ORG_SPACES, variables: { org: upstream.world.orgId } },
      { traceparent: `00-${traceId}-${hex(8)}-01`, baggage: `userId=admin,role=owner,pad=${'x'.repeat(4000)}` },
    );
    expect(res.errors).toBeUndefined();
    expect(proxy.requests).toHaveLength(2);
    for (const { headers } of proxy.requests) {
      expect(headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      expect(headers.baggage).toBeUndefined();
    }
  });

  it('starts a new trace when the caller sends none, and marks failed operations', async () => {
    proxy.requests.length = 0;
    const res = await query({ query: 'query Missing { space(spaceId: "no-such-space-91c2") { title } }' });
    expect(res.errors?.[0].extensions.code).toBe('NOT_FOUND');
    const [tp] = proxy.requests.map((r) => r.headers.traceparent as string);
    const traceId = tp.split('-')[1];
    const trace = await traceSpans(traceId, (s) => s.some((x) => x.kind === SERVER) && s.some((x) => x.kind === CLIENT));
    const operation = trace.find((s) => s.kind === SERVER)!;
    expect(operation.name).toBe('query Missing');
    expect(operation.parentSpanId || undefined).toBeUndefined();
    expect(operation.status).toMatchObject({ code: STATUS_ERROR, message: 'NOT_FOUND' });
    const rest = trace.find((s) => s.kind === CLIENT)!;
    expect(rest.name).toBe('GET /spaces/{spaceId}');
    expect(Number(attr(rest, 'http.response.status_code'))).toBe(404);
  });

  it("marks a variable the operation cannot take with the client's code, BAD_USER_INPUT (was UPSTREAM_ERROR)", async () => {
    const traceId = hex(16);
    const res = await query(
      { query: 'query Coerce($n: Int) { organizations(first: $n) { nodes { id } } }', variables: { n: 'seven' } },
      { traceparent: `00-${traceId}-${hex(8)}-01` },
    );
    expect(res.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    const [operation] = await traceSpans(traceId, (s) => s.some((x) => x.kind === SERVER));
    expect(operation.status).toMatchObject({ code: STATUS_ERROR, message: 'BAD_USER_INPUT' });
  });

  it('marks an operation whose client left as cancelled, not failed (was UPSTREAM_UNAVAILABLE)', async () => {
    const traceId = hex(16);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    proxy.holdAnswer = (_method, path) => (path.endsWith('/orgs') ? released : undefined);
    const client = new AbortController();
    const answered = fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${upstream.world.users.admin.token}`,
        traceparent: `00-${traceId}-${hex(8)}-01`,
      },
      body: JSON.stringify({ query: 'query Leaving { organizations { nodes { title } } }' }),
      signal: client.signal,
    });
    try {
      await expect.poll(() => proxy.requests.some((r) => r.headers.traceparent?.includes(traceId)), { timeout: 10_000 }).toBe(true);
      client.abort();
      await expect(answered).rejects.toThrow();
      const operation = (await traceSpans(traceId, (s) => s.some((x) => x.kind === SERVER))).find((x) => x.kind === SERVER)!;
      expect(attr(operation, 'graphql.operation.outcome')).toBe('cancelled');
      expect(attr(operation, 'graphql.error.codes')).toBeUndefined();
      expect(operation.status?.code ?? 0).not.toBe(STATUS_ERROR);
    } finally {
      proxy.holdAnswer = () => undefined;
      release();
    }
  });

  it("reads at most COLLECTOR_ANSWER_BYTES of the collector's answer, and exports on after it", async () => {
    const answer = { written: 0 } as NonNullable<typeof endless>;
    endless = answer;
    expect((await query({ query: '{ __typename }' })).errors).toBeUndefined();
    await expect.poll(() => answer.closedByGateway, { timeout: 10_000, interval: 50 }).toBeDefined();
    // Without a bound the gateway read all 64 MiB (and a body without end, until it ran out of memory).
    expect(answer).toMatchObject({ closedByGateway: true });
    expect(answer.written).toBeLessThan(ENDLESS_CAP);
    const traceId = hex(16);
    await query({ query: '{ viewer { name } }' }, { traceparent: `00-${traceId}-${hex(8)}-01` });
    await traceSpans(traceId, (s) => s.some((x) => x.kind === SERVER));
  });

  it('exports no token, REST id or variable value', async () => {
    await expect.poll(() => exported.length).toBeGreaterThan(0);
    const all = exported.join('\n');
    for (const secret of [upstream.world.users.admin.token, upstream.world.orgId, 'no-such-space-91c2', 'Bearer']) {
      expect(all).not.toContain(secret);
    }
    expect(all).toContain('docs-graph-test');
  });
});
