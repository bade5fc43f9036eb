/**
 * A gateway in front of the embedded upstream (loopback port, in-memory SQLite), listening on a
 * loopback port of its own: GraphQL goes over real HTTP, as a client's does (the server's own
 * paths included: lib/plainPost.ts answers most of these requests). REST attempts are counted
 * per method and path.
 */
import { buildGateway, type Gateway, type GatewayOptions } from '../../src/gateway/app.js';
import { expect } from 'vitest';
import type { RestCall } from '../../src/rest/index.js';
import type { UpstreamOptions } from '../../src/upstream/server.js';
import { startUpstream, type TestUpstream } from './upstream.js';

export interface GqlResult<T = any> {
  data?: T;
  errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, any> }>;
  extensions?: Record<string, any>;
}

export interface TestStack extends TestUpstream {
  gateway: Gateway;
  /** REST attempts made by the gateway since the last `resetCalls()`. */
  calls: RestCall[];
  resetCalls(): void;
  /**
   * How many REST round trips of those calls ran one after another: the longest chain of calls
   * each started after the one before it had ended (calls made concurrently overlap). With an
   * upstream latency, this says how many sequential levels a query took, whatever the machine's speed.
   */
  rounds(): number;
  /** Runs a GraphQL operation as a world user (default admin), or with no token (`null`). */
  gql<T = any>(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<GqlResult<T>>;
  /** `gql` that fails the test on any error and returns `data`. */
  data<T = any>(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<T>;
  /** Runs `mutation($input: <Name>Input!) { <name>(input: $input) { <selection> } }`; answers the whole result. */
  mutate(name: string, input: Record<string, unknown>, selection: string, token?: string | null): Promise<GqlResult>;
  /** `mutate` that fails the test on any error and returns the payload of `name`. */
  payload(name: string, input: Record<string, unknown>, selection: string, token?: string | null): Promise<any>;
}

/** The GraphQL enum name of a REST enum value (`in-collection` → `IN_COLLECTION`). */
export const enumName = (v: string) => v.replace(/-/g, '_').toUpperCase();

export async function startStack(
  options: Omit<GatewayOptions, 'upstreamUrl'> = {},
  /** Options of the embedded upstream (e.g. `askStreamDelayMs`, `onAskStreamEnd`). */
  upstreamOptions: Omit<UpstreamOptions, 'db' | 'clock'> = {},
): Promise<TestStack> {
  const upstream = await startUpstream(upstreamOptions);
  const calls: RestCall[] = [];
  /** When each call of `calls` started and ended (performance.now()). */
  const spans: Array<{ start: number; end: number }> = [];
  const onRestCall = (c: RestCall) => {
    const end = performance.now();
    calls.push(c);
    spans.push({ start: end - c.ms, end });
  };
  // Every /metrics scrape renders afresh (a slow render is otherwise served again for a second:
  // on a loaded machine a test read the metrics of before its own requests), unless a test sets it.
  const metrics = options.metrics === false ? false : { slowRenderMs: Infinity, ...options.metrics };
  const gateway = buildGateway({ ...options, metrics, upstreamUrl: upstream.url, onRestCall });
  const url = await gateway.start();
  const gql = async (query: string, variables?: Record<string, unknown>, token?: string | null) => {
    const t = token === undefined ? upstream.world.users.admin.token : token;
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(t ? { authorization: `Bearer ${t}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as GqlResult;
  };
  const data = async (query: string, variables?: Record<string, unknown>, token?: string | null) => {
    const res = await gql(query, variables, token);
    if (res.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(res.errors, null, 2)}`);
    return res.data;
  };
  const mutate = (name: string, input: Record<string, unknown>, selection: string, token?: string | null) => {
    const type = `${name[0].toUpperCase()}${name.slice(1)}Input`;
    return gql(`mutation($input: ${type}!) { ${name}(input: $input) { ${selection} } }`, { input }, token);
  };
  const stop = async () => {
    await gateway.stop();
    await upstream.stop();
    // Every operation gave back the REST answers it held (src/rest/bytesInFlight.ts): none leaks.
    const held = gateway.rest.answers.inFlight();
    if (held !== 0) throw new Error(`REST answer bytes still held after the gateway stopped: ${held}`);
  };
  return {
    ...upstream,
    gateway,
    calls,
    resetCalls: () => void (calls.splice(0), spans.splice(0)),
    rounds: () => longestChain(spans),
    gql,
    data,
    mutate,
    async payload(name, input, selection, token) {
      const res = await mutate(name, input, selection, token);
      if (res.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(res.errors, null, 2)}`);
      return res.data[name];
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Runs a mutation and expects a BAD_USER_INPUT naming `field`, a null payload and no REST call at all; answers the message. */
export async function expectRejected(t: TestStack, name: string, input: Record<string, unknown>, field: string) {
  t.resetCalls();
  const res = await t.mutate(name, input, 'clientMutationId');
  expect(res.errors?.[0]).toMatchObject({ path: [name], extensions: { code: 'BAD_USER_INPUT', field } });
  expect(res.data).toEqual({ [name]: null });
  expect(t.calls).toEqual([]);
  return res.errors![0].message;
}

/** The longest chain of spans each starting at or after the end of the one before it. */
function longestChain(spans: Array<{ start: number; end: number }>): number {
  const byEnd = [...spans].sort((a, b) => a.end - b.end);
  const depth: number[] = [];
  byEnd.forEach((span, i) => {
    depth[i] = 1 + Math.max(0, ...byEnd.slice(0, i).map((before, j) => (before.end <= span.start ? depth[j] : 0)));
  });
  return Math.max(0, ...depth);
}
