/**
 * The README's federation recipe, run: docs-graph (on a loopback port, over the embedded upstream)
 * composed with a second subgraph by @theguild/federation-composition, served by Hive Gateway's
 * runtime (from npm) in-process, with the recipe's header propagation and demand control.
 */
import { buildSubgraphSchema } from '@apollo/subgraph';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import { operationCost } from '../../src/gateway/plugins/useCostLimit.js';
import { schema } from '../../src/schema/index.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { companyGateway, composeSupergraph } from './fixtures/federation/companyGateway.js';

/** Another team's subgraph: reviews of spaces, keyed by the space's REST id. */
const REVIEWS_SDL = `
extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key", "@cost", "@listSize"])
type Space @key(fields: "restId") {
  restId: String!
  reviews(first: Int): [Review!]! @cost(weight: 1) @listSize(slicingArguments: ["first"], requireOneSlicingArgument: false)
}
type Review { stars: Int! }
type Query { reviewCount: Int! }
`;

let t: TestStack;
let docs: Gateway;
let reviews: Server;
let supergraph: string;
let publicSpaceId: string;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
}

beforeAll(async () => {
  t = await startStack();
  // A public space (REST offers no visibility write: made in the embedded upstream's database).
  publicSpaceId = insertSpace(t.upstream.db, t.clock.now().toISOString(), {
    organizationId: t.world.orgId,
    title: 'Handbook',
    visibility: 'public',
  }).id;
  docs = buildGateway({ upstreamUrl: t.url });
  const docsUrl = await docs.start();
  const reviewsSchema = buildSubgraphSchema({
    typeDefs: parse(REVIEWS_SDL),
    resolvers: {
      Space: {
        __resolveReference: (ref: { restId: string }) => ref,
        reviews: (_: unknown, { first }: { first?: number }) => [5, 4, 3].slice(0, first ?? 3).map((stars) => ({ stars })),
      },
      Query: { reviewCount: () => 3 },
    },
  });
  reviews = createServer(createYoga({ schema: reviewsSchema, logging: false }));
  const reviewsUrl = await listen(reviews);
  // The docs-graph SDL as a router fetches it.
  const { _service } = await t.data('{ _service { sdl } }');
  supergraph = composeSupergraph([
    { name: 'docs', url: docsUrl, sdl: _service.sdl },
    { name: 'reviews', url: reviewsUrl, sdl: REVIEWS_SDL },
  ]);
});
afterAll(async () => {
  await docs?.stop();
  reviews?.closeAllConnections();
  if (reviews) await new Promise((resolve) => reviews.close(resolve));
  await t?.stop();
});

type Runtime = ReturnType<typeof companyGateway>;

async function run(gateway: Runtime, query: string, variables: Record<string, unknown> = {}, token?: string) {
  const res = await gateway.fetch('http://company.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return res.json() as Promise<{ data?: any; errors?: Array<{ message: string; path?: unknown[]; extensions?: any }>; extensions?: any }>;
}

describe('Hive Gateway recipe', () => {
  it("the supergraph carries docs-graph's cost directives", () => {
    expect(supergraph).toContain('https://specs.apollo.dev/cost/v0.1');
    expect(supergraph).toMatch(
      /\): SpaceConnection @cost\(weight: 1\) @listSize\(\s*requireOneSlicingArgument: false\s*assumedSize: 20\s*slicingArguments: \["first"\]\s*sizedFields: \["edges", "nodes"\]\s*\)/,
    );
  });

  it("forwards Authorization: viewer resolves through the supergraph, next to another subgraph's fields", async () => {
    await using gateway = companyGateway(supergraph);
    const token = t.world.users.admin.token;
    const res = await run(
      gateway,
      'query($id: String!) { viewer { restId } space(spaceId: $id) { title reviews(first: 2) { stars } } reviewCount }',
      { id: publicSpaceId },
      token,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({
      viewer: { restId: t.world.users.admin.id },
      space: { title: 'Handbook', reviews: [{ stars: 5 }, { stars: 4 }] },
      reviewCount: 3,
    });
  });

  it('without the header propagation, viewer fails with UNAUTHENTICATED while a public space still resolves', async () => {
    const { createGatewayRuntime } = await import('@graphql-hive/gateway-runtime');
    await using gateway = createGatewayRuntime({ supergraph, logging: false });
    const token = t.world.users.admin.token;
    const space = await run(gateway, 'query($id: String!) { space(spaceId: $id) { title } }', { id: publicSpaceId }, token);
    expect(space).toEqual({ data: { space: { title: 'Handbook' } } });
    const viewer = await run(gateway, '{ viewer { restId } }', {}, token);
    expect(viewer.data).toBeNull();
    expect(viewer.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['viewer'], 'UNAUTHENTICATED']]);
  });

  it("prices a nested query as docs-graph's --max-cost does (Hive Gateway's demand control, from the SDL's @cost/@listSize)", async () => {
    await using gateway = companyGateway(supergraph);
    const query = `query($org: String!, $n: Int) {
      organization(organizationId: $org) {
        title
        spaces(first: $n) {
          pageInfo { hasNextPage }
          nodes { title organization { title } changeRequests(first: 5) { edges { node { subject comments(first: 3) { nodes { id } } } } } }
        }
      }
    }`;
    const variables = { org: t.world.orgId, n: 10 };
    const res = await run(gateway, query, variables, t.world.users.admin.token);
    expect(res.errors).toBeUndefined();
    const ours = operationCost(schema, parse(query), variables, undefined, { defaultPageSize: 20, maxPageSize: 100, maxIds: 100 });
    // organization 1 + spaces 1 + 10 × (organization 1 + changeRequests 1 + 5 × comments 1) = 72
    expect(ours).toBe(72);
    expect(res.extensions?.cost).toEqual({ estimated: ours, max: 50_000 });
  });

  it('a connection without `first`: the gateway prices its default page size, Hive Gateway one item (as the README says)', async () => {
    await using gateway = companyGateway(supergraph);
    const query = 'query($org: String!) { organization(organizationId: $org) { spaces { nodes { organization { title } } } } }';
    const res = await run(gateway, query, { org: t.world.orgId }, t.world.users.admin.token);
    expect(
      operationCost(schema, parse(query), { org: t.world.orgId }, undefined, { defaultPageSize: 20, maxPageSize: 100, maxIds: 100 }),
    ).toBe(1 + 1 + 20);
    expect(res.extensions?.cost.estimated).toBe(1 + 1 + 1);
  });
});

describe('Hive Gateway recipe, served over HTTP', () => {
  /** A POST to the router from a loopback address of its own (127.0.0.0/8 is all loopback on Linux). */
  const post = (router: string, localAddress: string, query: string, variables: Record<string, unknown>, token?: string) =>
    new Promise<{ data?: any; errors?: Array<{ extensions?: any }> }>((resolve, reject) => {
      const headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
      const req = request(router, { method: 'POST', headers, localAddress }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve(JSON.parse(body)));
      });
      req.on('error', reject).end(JSON.stringify({ query, variables }));
    });

  it("gives each caller behind the router its own address's budget (--trust-proxy-hops 1)", async () => {
    // Two operations a minute per address without an accepted token; a fresh gateway, so no token is accepted yet.
    const limited = buildGateway({ upstreamUrl: t.url, trustProxyHops: 1, anonymousRateLimit: 2 });
    const docsUrl = await limited.start();
    const { _service } = await t.data('{ _service { sdl } }');
    const routed = composeSupergraph([{ name: 'docs', url: docsUrl, sdl: _service.sdl }]);
    await using gateway = companyGateway(routed);
    const server = createServer(gateway);
    try {
      const router = await listen(server);
      const space = 'query($id: String!) { space(spaceId: $id) { title } }';
      for (let i = 0; i < 2; i++)
        expect((await post(router, '127.0.0.2', space, { id: publicSpaceId })).data).toEqual({ space: { title: 'Handbook' } });
      const over = await post(router, '127.0.0.2', space, { id: publicSpaceId });
      expect(over.errors?.map((e) => e.extensions?.code)).toEqual(['RATE_LIMITED']);
      // Another client of the router, its token not accepted yet (counted against its address too): served.
      const viewer = await post(router, '127.0.0.3', '{ viewer { restId } }', {}, t.world.users.admin.token);
      expect(viewer.errors).toBeUndefined();
      expect(viewer.data).toEqual({ viewer: { restId: t.world.users.admin.id } });
      expect((await post(router, '127.0.0.4', space, { id: publicSpaceId })).data).toEqual({ space: { title: 'Handbook' } });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await limited.stop();
    }
  });
});

describe("Apollo's composition (what rover uses for Apollo Router)", () => {
  it('composes the subgraph SDL with the other subgraph and keeps @cost and @listSize for demand control', async () => {
    const { composeServices } = await import('@apollo/composition');
    const { _service } = await t.data('{ _service { sdl } }');
    const result = composeServices([
      { name: 'docs', url: 'http://docs.test/graphql', typeDefs: parse(_service.sdl) },
      { name: 'reviews', url: 'http://reviews.test/graphql', typeDefs: parse(REVIEWS_SDL) },
    ]);
    expect(result.errors?.map((e) => e.message)).toBeUndefined();
    expect(result.supergraphSdl).toContain('https://specs.apollo.dev/cost/v0.1');
    expect(result.supergraphSdl).toMatch(
      /\): SpaceConnection @cost\(weight: 1\) @listSize\(slicingArguments: \["first"\], sizedFields: \["edges", "nodes"\], assumedSize: 20, requireOneSlicingArgument: false\)/,
    );
  });
});

describe('the README', () => {
  it('shows the recipe the test runs', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const recipe = readFileSync(new URL('./fixtures/federation/companyGateway.ts', import.meta.url), 'utf8');
    expect(readme).toContain(recipe);
  });
});
