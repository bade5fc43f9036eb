/**
 * Walks a GraphQL connection to its end, page by page, and records what each page cost: the
 * query must take `$first: Int` and `$after: String`; `pick` returns the connection from `data`.
 */
import type { TestStack } from './gateway.js';

export interface Walk<N> {
  nodes: N[];
  /** REST calls per page (method and path). */
  pageCalls: string[][];
}

export async function walkConnection<N = any>(
  t: TestStack,
  query: string,
  variables: Record<string, unknown>,
  pick: (data: any) => { nodes: N[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } },
  token?: string,
): Promise<Walk<N>> {
  const walk: Walk<N> = { nodes: [], pageCalls: [] };
  let after: string | null | undefined;
  for (;;) {
    t.resetCalls();
    const conn = pick(await t.data(query, { ...variables, after }, token));
    walk.nodes.push(...conn.nodes);
    walk.pageCalls.push(t.calls.map((c) => `${c.method} ${c.path}`));
    if (!conn.pageInfo.hasNextPage) return walk;
    after = conn.pageInfo.endCursor;
  }
}

/** `METHOD path` of every REST call since the last reset. */
export const callList = (t: TestStack) => t.calls.map((c) => `${c.method} ${c.path}`);
