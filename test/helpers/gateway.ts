/**
 * A gateway in front of the embedded upstream (loopback port, in-memory SQLite). GraphQL goes
 * through `yoga.fetch` (no gateway port needed); REST attempts are counted per method and path.
 */
import { buildGateway, type Gateway, type GatewayOptions } from '../../src/gateway/app.js';
import type { RestCall } from '../../src/rest/index.js';
import type { UpstreamOptions } from '../../src/upstream/server.js';
import { startUpstream, type TestUpstream } from './upstream.js';

export interface GqlResult<T = any> {
  data?: T;
  errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, any> }>;
}

export interface TestStack extends TestUpstream {
  gateway: Gateway;
  /** REST attempts made by the gateway since the last `resetCalls()`. */
  calls: RestCall[];
  resetCalls(): void;
  /** Runs a GraphQL operation as a world user (default admin), or with no token (`null`). */
  gql<T = any>(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<GqlResult<T>>;
  /** `gql` that fails the test on any error and returns `data`. */
  data<T = any>(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<T>;
}

export async function startStack(
  options: Omit<GatewayOptions, 'upstreamUrl'> = {},
  /** Options of the embedded upstream (e.g. `askStreamDelayMs`, `onAskStreamEnd`). */
  upstreamOptions: Omit<UpstreamOptions, 'db' | 'clock'> = {},
): Promise<TestStack> {
  const upstream = await startUpstream(upstreamOptions);
  const calls: RestCall[] = [];
  const gateway = buildGateway({ ...options, upstreamUrl: upstream.url, onRestCall: (c) => calls.push(c) });
  const gql = async (query: string, variables?: Record<string, unknown>, token?: string | null) => {
    const t = token === undefined ? upstream.world.users.admin.token : token;
    const res = await gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(t ? { authorization: `Bearer ${t}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as GqlResult;
  };
  const stop = async () => {
    await gateway.stop();
    await upstream.stop();
  };
  return {
    ...upstream,
    gateway,
    calls,
    resetCalls: () => void calls.splice(0),
    gql,
    async data(query, variables, token) {
      const res = await gql(query, variables, token);
      if (res.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(res.errors, null, 2)}`);
      return res.data;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
