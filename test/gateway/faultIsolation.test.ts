/**
 * Fan-out and fault isolation, over real HTTP: one operation's REST calls are bounded
 * (`maxRestCalls`), and one caller hammering an id the upstream answers 500 for fails only its own
 * calls, while another caller, on the same route and on others, keeps being served, with no
 * ERROR line per failure.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildGateway, type GatewayOptions } from '../../src/gateway/app.js';
import type { Logger } from '../../src/log.js';
import { startChaosProxy, type ChaosProxy } from '../helpers/chaosProxy.js';
import { startStack, type GqlResult } from '../helpers/gateway.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});

describe('REST calls per operation', () => {
  it('past maxRestCalls, further fields get BAD_USER_INPUT without a call; the rest of the result stands', async () => {
    const t = await startStack({ maxRestCalls: 5 });
    stops.push(() => t.stop());
    const users = Object.values(t.world.users);
    expect(users.length).toBeGreaterThan(5);
    const query = `{ ${users.map((u, i) => `u${i}: user(userId: "${u.id}") { displayName }`).join(' ')} }`;
    t.resetCalls();
    const result = await t.gql(query);
    expect(t.calls).toHaveLength(5);
    expect(Object.values(result.data).filter((u) => u !== null)).toHaveLength(5);
    expect(result.errors).toHaveLength(users.length - 5);
    for (const error of result.errors!) {
      expect(error.message).toMatch(/^maxRestCalls: /);
      expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', limit: 'maxRestCalls', maximum: 5 });
    }
    // The bound is per operation: the next one starts afresh.
    expect((await t.gql(`{ viewer { displayName } }`)).errors).toBeUndefined();
  });
});

describe('an operation whose token the REST API refused', () => {
  it('makes no more REST calls than it had in flight when the first 401 came; its other fields get the same UNAUTHENTICATED', async () => {
    const t = await startStack({ rest: { callerConcurrency: 4 } });
    stops.push(() => t.stop());
    const query = `{ ${Array.from({ length: 30 }, (_, i) => `u${i}: user(userId: "u${i}") { displayName }`).join(' ')} }`;
    for (const token of ['made-up-token', null]) {
      t.resetCalls();
      const result = await t.gql(query, undefined, token);
      // Before: 30 calls, each answered 401 (up to maxRestCalls, 1,000, per operation).
      expect(t.calls.length).toBeLessThanOrEqual(4);
      expect(t.calls.every((c) => c.status === 401)).toBe(true);
      expect(result.errors).toHaveLength(30);
      expect(new Set(result.errors!.map((e) => `${e.extensions?.code} ${e.message}`)).size).toBe(1);
      expect(result.errors![0].extensions?.code).toBe('UNAUTHENTICATED');
    }
  });
});

describe('one caller’s failing id', () => {
  interface Stack {
    upstream: TestUpstream;
    proxy: ChaosProxy;
    lines: string[];
    post(query: string, token: string): Promise<GqlResult>;
  }

  async function stack(options: Omit<GatewayOptions, 'upstreamUrl'> = {}): Promise<Stack> {
    const upstream = await startUpstream();
    const proxy = await startChaosProxy(upstream.url);
    const lines: string[] = [];
    const line = (level: string) => (msg: string) => void lines.push(`${level} ${msg}`);
    const log: Logger = { debug: () => undefined, info: line('info'), warn: line('warn'), error: line('error') };
    const gateway = buildGateway({ ...options, upstreamUrl: proxy.url, log, logLevel: 'info' });
    const url = await gateway.start();
    stops.push(
      () => upstream.stop(),
      () => proxy.stop(),
      () => gateway.stop(),
    );
    const post = async (query: string, token: string) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query }),
      });
      return (await res.json()) as GqlResult;
    };
    return { upstream, proxy, lines, post };
  }

  it('opens no circuit for anyone: ten aliases of bad ids per query, ten queries, and another caller is served on the same route throughout', async () => {
    const t = await stack();
    const { admin, read } = t.upstream.world.users;
    const space = (await t.upstream.api.post(`/orgs/${t.upstream.world.orgId}/spaces`, { title: 'Good' })).body.id as string;
    t.proxy.configure({ failRate: 1, faults: [500], paths: /^\/spaces\/bad/ });
    for (let round = 0; round < 10; round++) {
      const attack = await t.post(
        `{ ${Array.from({ length: 10 }, (_, i) => `b${i}: space(spaceId: "bad-${round}-${i}") { title }`).join(' ')} }`,
        admin.token,
      );
      expect(attack.errors!.map((e) => e.extensions?.code)).toEqual(Array(10).fill('UPSTREAM_ERROR'));
      const other = await t.post(
        `{ viewer { displayName } space(spaceId: "${space}") { title } organization(organizationId: "${t.upstream.world.orgId}") { title } }`,
        read.token,
      );
      expect(other).toEqual({ data: { viewer: { displayName: 'Ada read' }, space: { title: 'Good' }, organization: { title: 'Acme' } } });
    }
    // Every bad read reached the upstream (no circuit refused it), and none was logged as an ERROR.
    expect(t.proxy.requests.filter((r) => r.path.startsWith('/spaces/bad'))).toHaveLength(100);
    expect(t.lines.filter((l) => l.startsWith('error'))).toEqual([]);
    expect(t.lines.filter((l) => /circuit/.test(l))).toEqual([]);
  });
});
