/**
 * Operation names are the client's text: wherever the gateway keeps one (metric labels, span
 * names, log lines) it is bounded (metric labels to MAX_LABEL_NAME_LENGTH), and a name longer than MAX_OPERATION_NAME_LENGTH is refused
 * (issue 18: 35 operations with 900 KB names exhausted the heap through the metrics' label sets).
 * Tracing runs in process here, with an in-memory exporter (this file's worker only).
 */
import { createHash } from 'node:crypto';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_OPERATION_NAME_LENGTH } from '../../src/gateway/lib/operationName.js';
import { useTracing } from '../../src/gateway/plugins/useTracing.js';
import { MAX_LABEL_NAME_LENGTH } from '../../src/gateway/metrics.js';
import type { Logger } from '../../src/log.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const lines: string[] = [];
const write = (m: string, fields?: Record<string, unknown>) => void lines.push(`${m} ${JSON.stringify(fields ?? {})}`);
const log: Logger = { debug: write, info: write, warn: write, error: write };

let t: TestStack;
beforeAll(async () => {
  t = await startStack({
    log,
    tracing: { plugin: (namesFrom) => useTracing(provider.getTracer('test'), namesFrom), shutdown: async () => undefined },
  });
});
afterAll(async () => {
  await t.stop();
  await provider.shutdown();
});

const named = (name: string) => `query ${name} { viewer { id } }`;
const metricsText = async () => (await t.gateway.yoga.fetch('http://gateway.test/metrics')).text();

describe('operation names', () => {
  it(`a name of ${MAX_OPERATION_NAME_LENGTH} characters runs and is kept whole (in metric labels, cut with a hash of it)`, async () => {
    const name = `N${'a'.repeat(MAX_OPERATION_NAME_LENGTH - 1)}`;
    exporter.reset();
    expect((await t.gql(named(name))).errors).toBeUndefined();
    const label = `${name.slice(0, MAX_LABEL_NAME_LENGTH - 9)}…${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
    expect(await metricsText()).toContain(`operationName="${label}"`);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toContain(`query ${name}`);
    const hash = createHash('sha256').update(named(name)).digest('hex');
    expect(lines.some((l) => l.includes(`graphql query ${name} `) && l.includes(hash))).toBe(true);
  });

  it("names a span by its operation's name only for a caller whose token the REST API accepted", async () => {
    // The admin's token, once the REST API has accepted it (as any token's first REST call does).
    expect((await t.gql('{ viewer { id } }')).errors).toBeUndefined();
    exporter.reset();
    for (const [token, name] of [
      [null, 'AnonymousJunk1'],
      ['not-a-token', 'UnknownTokenJunk2'],
      [undefined, 'AdminDashboard'],
    ] as const) {
      const res = await t.gql(`query ${name} { __typename }`, {}, token);
      expect(res.data).toEqual({ __typename: 'Query' });
    }
    const spans = exporter.getFinishedSpans().filter((s) => s.attributes['graphql.operation.type'] === 'query');
    expect(spans.map((s) => [s.name, s.attributes['graphql.operation.name']])).toEqual([
      ['query', undefined],
      ['query', undefined],
      ['query AdminDashboard', 'AdminDashboard'],
    ]);
  });

  it('a longer name is refused with BAD_USER_INPUT before any REST call, and kept nowhere whole', async () => {
    const name = `L${'b'.repeat(60_000)}`;
    t.resetCalls();
    exporter.reset();
    lines.splice(0);
    const res = await t.gql(named(name));
    expect(res.data ?? null).toBeNull();
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0].message).toBe(
      `maxOperationName: Operation names are limited to ${MAX_OPERATION_NAME_LENGTH} characters, found ${name.length}.`,
    );
    expect(res.errors![0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      limit: 'maxOperationName',
      maximum: MAX_OPERATION_NAME_LENGTH,
      actual: name.length,
    });
    expect(t.calls).toEqual([]);
    const text = await metricsText();
    expect(text).not.toContain('b'.repeat(MAX_OPERATION_NAME_LENGTH + 1));
    for (const span of exporter.getFinishedSpans()) {
      expect(span.name.length).toBeLessThanOrEqual(MAX_OPERATION_NAME_LENGTH + 20);
      for (const v of Object.values(span.attributes)) expect(String(v).length).toBeLessThanOrEqual(MAX_OPERATION_NAME_LENGTH + 20);
    }
    for (const line of lines) expect(line.length).toBeLessThan(2 * MAX_OPERATION_NAME_LENGTH + 200);
  });

  it('an operationName parameter the document does not hold is refused without being echoed or kept', async () => {
    const name = `P${'c'.repeat(10_000)}`;
    const res = await t.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.world.users.admin.token}` },
      body: JSON.stringify({ query: named('Short'), operationName: name }),
    });
    const body = (await res.json()) as { errors: Array<{ message: string; extensions: Record<string, unknown> }> };
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(JSON.stringify(body).length).toBeLessThan(1000);
    expect(await metricsText()).not.toContain('c'.repeat(MAX_OPERATION_NAME_LENGTH + 1));
  });
});
