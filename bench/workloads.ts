/**
 * What the benchmark sends: GraphQL operations to the gateway, and the same data fetched by a REST
 * client doing the calls itself (the "REST floor"), over keep-alive undici pools.
 */
import { Pool } from 'undici';

/** One resource: `GET /spaces/{spaceId}` (one REST call per query). */
export const ONE_RESOURCE = `query OneResource($space: String!) { space(spaceId: $space) { title visibility } }`;

/** The same query to the generic gateway (bench/genericGateway.mjs), in its names. */
export const GENERIC_ONE_RESOURCE = `query OneResource($space: EntityId!) { getSpaceById(spaceId: $space) { title visibility } }`;

/** The global id of a change request's first comment (the seeded 900 KB one: `bigComment`). */
export const FIRST_COMMENT_ID = `query($s: String!, $c: String!) { changeRequest(spaceId: $s, changeRequestId: $c) { comments(first: 1) { nodes { id } } } }`;

/**
 * organization → spaces(first: 5) → changeRequests(first: 3): no field of the organization itself,
 * so the minimum is 6 REST calls (the spaces page, then the 5 change-request pages) in 2 levels.
 */
export const NESTED = `query Nested($org: String!) {
  organization(organizationId: $org) {
    spaces(first: 5) { nodes { id title changeRequests(first: 3) { nodes { id number subject status } } } }
  }
}`;
export const NESTED_MINIMUM = 6;
export const NESTED_DEPTH = 2;

/** A GraphQL client of one gateway (or any GraphQL URL); throws on any error in the answer. */
export function gqlClient(url: string, connections = 64) {
  const { origin, pathname } = new URL(url);
  const pool = new Pool(origin, { connections });
  return {
    /** The whole answer (data, extensions), throwing when it has errors. */
    async send(token: string, query: string, variables: Record<string, unknown> = {}): Promise<{ data: any; extensions?: any }> {
      const res = await pool.request({
        path: pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.body.json()) as { data?: unknown; errors?: unknown[]; extensions?: unknown };
      if (body.errors?.length || res.statusCode !== 200)
        throw new Error(`GraphQL errors (HTTP ${res.statusCode}): ${JSON.stringify(body.errors)}`);
      return body as { data: any; extensions?: any };
    },
    close: () => pool.close(),
  };
}

/** A REST client of the upstream (a keep-alive pool, like the gateway's). */
export function restClient(baseUrl: string, connections = 64) {
  const { origin, pathname } = new URL(baseUrl);
  const pool = new Pool(origin, { connections });
  return {
    async get(token: string, path: string): Promise<any> {
      const res = await pool.request({ path: `${pathname}${path}`, method: 'GET', headers: { authorization: `Bearer ${token}` } });
      const body = await res.body.json();
      if (res.statusCode !== 200) throw new Error(`GET ${path} answered ${res.statusCode}`);
      return body;
    },
    close: () => pool.close(),
  };
}

/** The nested query's data through REST, level by level, each level's calls concurrent: the REST floor. */
export async function restFloor(rest: ReturnType<typeof restClient>, token: string, organizationId: string) {
  const spaces = await rest.get(token, `/orgs/${organizationId}/spaces?limit=5`);
  return Promise.all((spaces.items as any[]).map((s) => rest.get(token, `/spaces/${s.id}/change-requests?limit=3`)));
}
