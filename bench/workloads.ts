/**
 * What the benchmark runs: GraphQL operations against the gateway, and the same nested data
 * fetched by a REST client doing the calls itself, over keep-alive undici pools (like the gateway's).
 */
import { Pool } from 'undici';

/** organization → spaces → change requests → comments → replies (5 dependent levels of REST calls). */
const ORGANIZATION = `organization(organizationId: $org) {
    title
    spaces(first: 10) { nodes { title
      changeRequests(first: 10) { nodes { id subject
        comments(first: 10, format: MARKDOWN) { nodes { body { markdown } postedBy { displayName }
          replies(first: 10, format: MARKDOWN) { nodes { body { markdown } postedBy { displayName } } } } } } } } }
  }`;
export const NESTED = `query Nested($org: String!) {\n  ${ORGANIZATION}\n}`;

/** The nested query twice under aliases: the second copy must cost no REST call. */
export const NESTED_TWICE = `query NestedTwice($org: String!) {\n  a: ${ORGANIZATION}\n  b: ${ORGANIZATION}\n}`;

export const NODE = `query Node($id: ID!) {
  node(id: $id) { ... on ChangeRequest { subject status createdBy { displayName }
    comments(first: 10, format: MARKDOWN) { nodes { body { markdown } repliesCount } } } }
}`;

export const WALK = `query Walk($org: String!, $after: String) {
  organization(organizationId: $org) { spaces(first: 1, after: $after) { nodes { title } pageInfo { hasNextPage endCursor } } }
}`;

export type Gql = (query: string, variables: Record<string, unknown>) => Promise<any>;
export type Get = (path: string, query?: Record<string, string | number>) => Promise<any>;

/** A GraphQL client of the gateway; throws on any error in the answer. */
export function gqlClient(url: string, token: string): { gql: Gql; close(): Promise<void> } {
  const { origin, pathname } = new URL(url);
  const pool = new Pool(origin, { connections: 64 });
  const gql: Gql = async (query, variables) => {
    const res = await pool.request({
      path: pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.body.json()) as { data?: unknown; errors?: unknown[] };
    if (body.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
    return body.data;
  };
  return { gql, close: () => pool.close() };
}

/** A REST client of the upstream (same pool settings as the gateway's); counts its calls. */
export function restClient(baseUrl: string, token: string): { get: Get; calls: () => number; close(): Promise<void> } {
  const { origin, pathname } = new URL(baseUrl);
  const pool = new Pool(origin, { connections: 128 });
  let calls = 0;
  const get: Get = async (path, query = {}) => {
    calls++;
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
    const res = await pool.request({ path: `${pathname}${path}${qs ? `?${qs}` : ''}`, method: 'GET', headers: { authorization: `Bearer ${token}` } });
    const body = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`GET ${path} answered ${res.statusCode}`);
    return body;
  };
  return { get, calls: () => calls, close: () => pool.close() };
}

type MapFn = <T, R>(items: T[], f: (item: T) => Promise<R>) => Promise<R[]>;
export const concurrently: MapFn = (items, f) => Promise.all(items.map(f));
export const oneByOne: MapFn = async (items, f) => {
  const out = [];
  for (const item of items) out.push(await f(item));
  return out;
};

/**
 * The nested query's data through REST: organization and its spaces, then each level's lists
 * (`map` decides whether the calls of one level run concurrently or one by one). Returns the tree.
 */
export async function restNested(get: Get, organizationId: string, map: MapFn) {
  const [organization, spaces] = await map([`/orgs/${organizationId}`, `/orgs/${organizationId}/spaces`], (p) =>
    get(p, p.endsWith('/spaces') ? { limit: 10 } : {}),
  );
  const withCrs = await map(spaces.items as any[], async (space) => {
    const crs = await get(`/spaces/${space.id}/change-requests`, { limit: 10 });
    const changeRequests = await map(crs.items as any[], async (cr) => {
      const base = `/spaces/${space.id}/change-requests/${cr.id}/comments`;
      const comments = await get(base, { limit: 10, format: 'markdown' });
      const withReplies = await map(comments.items as any[], async (c) => ({
        ...c,
        replies: (await get(`${base}/${c.id}/replies`, { limit: 10, format: 'markdown' })).items,
      }));
      return { ...cr, comments: withReplies };
    });
    return { ...space, changeRequests };
  });
  return { ...organization, spaces: withCrs };
}

/** Replies in a nested answer (GraphQL or REST), to check both workloads fetch the same data. */
export function countReplies(org: any): number {
  const list = (x: any) => (Array.isArray(x) ? x : x.nodes);
  let n = 0;
  for (const s of list(org.spaces)) for (const cr of list(s.changeRequests)) for (const c of list(cr.comments)) n += list(c.replies).length;
  return n;
}
