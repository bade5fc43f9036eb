/**
 * Single-flight across concurrent GraphQL requests: identical GETs of one token in flight at the
 * same moment share one upstream call; never across tokens, never for writes; a read that starts
 * after the caller's write is fresh. Counted and checked at the upstream side (a pass-through proxy
 * that records each request's Authorization).
 */
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startChaosStack, type ChaosStack } from '../helpers/chaosProxy.js';
import { fakeClock, until } from '../helpers/clock.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import type { TestUpstream } from '../helpers/upstream.js';

const stacks: Array<ChaosStack | TestStack> = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.stop();
});

/** GraphQL answers only (the stack's `gql` also times them). */
async function stack(options: { readMs?: number } = {}) {
  // Reads take a slow upstream's round trip. Each request costs the gateway a few ms of CPU before
  // its first REST call (20 requests: 100 ms or more on a loaded 2-core box), so calls must outlast that to overlap.
  const s = await startChaosStack({}, { failRate: 1, faults: [{ delayMs: options.readMs ?? 1_000 }], methods: ['GET'] });
  stacks.push(s);
  // Counts the HTTP requests the gateway registered as they arrived (src/gateway/app.ts's server).
  let arrived = 0;
  const arrive = s.gateway.rest.arrive;
  s.gateway.rest.arrive = (authorization) => (arrived++, arrive(authorization));
  return {
    ...s,
    arrivals: () => arrived,
    gql: async (query: string, variables: Record<string, unknown>, token: string) => (await s.gql(query, variables, token)).body,
  };
}

/** Five spaces with three change requests each, made through the REST API. */
async function fill(up: TestUpstream) {
  for (let i = 0; i < 5; i++) {
    const space = await up.api.post(`/orgs/${up.world.orgId}/spaces`, { title: `Space ${i}` });
    for (let j = 0; j < 3; j++) await up.api.post(`/spaces/${space.body.id}/change-requests`, { subject: `CR ${i}.${j}` });
  }
}

const NESTED = `query($org: String!) {
  viewer { restId }
  organization(organizationId: $org) {
    title
    spaces(first: 5) { nodes { title changeRequests(first: 3) { nodes { subject } } } }
  }
}`;

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/**
 * A request that reaches the gateway now (headers and half its body) and is parsed only when
 * `finish()` sends the rest: it stands for one of a burst that the gateway gets to late.
 */
function slowRequest(url: string, token: string, query: string, variables: Record<string, unknown>) {
  const body = Buffer.from(JSON.stringify({ query, variables }));
  let rest = () => {};
  const answer = new Promise<any>((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'content-length': body.length },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.flushHeaders();
    req.write(body.subarray(0, 10));
    rest = () => req.end(body.subarray(10));
  });
  return {
    finish() {
      rest();
      return answer;
    },
  };
}

describe('single-flight across concurrent requests', () => {
  it('20 identical nested queries at once from one token make at most 1.5 × the distinct REST calls', async () => {
    const t = await stack();
    await fill(t.upstream);
    const { admin } = t.upstream.world.users;
    const alone = await t.gql(NESTED, { org: t.upstream.world.orgId }, admin.token);
    expect(alone.errors).toBeUndefined();
    const distinct = new Set(t.proxy.requests.map(key)).size;
    expect(t.proxy.count()).toBe(distinct);
    expect(distinct).toBeGreaterThanOrEqual(7);

    t.proxy.requests.length = 0;
    const results = await Promise.all(Array.from({ length: 20 }, () => t.gql(NESTED, { org: t.upstream.world.orgId }, admin.token)));
    for (const r of results) expect(r).toEqual(alone);
    // Without single-flight: 20 × distinct.
    expect(t.proxy.count()).toBeLessThanOrEqual(1.5 * distinct);
  });

  it('never across tokens: each token’s calls are its own and carry its own Authorization', async () => {
    const t = await stack();
    await fill(t.upstream);
    const { admin, read } = t.upstream.world.users;
    // A warm gateway (its first request compiles and connects for a while, so later ones would not overlap it), as in the test above.
    for (const token of [admin.token, read.token]) await t.gql(NESTED, { org: t.upstream.world.orgId }, token);
    t.proxy.requests.length = 0;
    const tokens = Array.from({ length: 20 }, (_, i) => (i % 2 ? read.token : admin.token));
    const results = await Promise.all(tokens.map((token) => t.gql(NESTED, { org: t.upstream.world.orgId }, token)));
    results.forEach((r, i) => {
      expect(r.errors).toBeUndefined();
      expect(r.data.viewer.restId).toBe(tokens[i] === admin.token ? admin.id : read.id);
    });
    const byToken = (token: string) => t.proxy.requests.filter((r) => r.authorization === `Bearer ${token}`);
    expect(byToken(admin.token).length + byToken(read.token).length).toBe(t.proxy.count());
    // Each token made every distinct call itself (the viewer call differs by token, so do all others).
    const distinct = new Set(t.proxy.requests.map(key)).size;
    for (const token of [admin.token, read.token]) {
      expect(new Set(byToken(token).map(key)).size).toBe(distinct);
      expect(byToken(token).length).toBeLessThanOrEqual(1.5 * distinct);
    }
  });

  it('a read that starts after the caller’s write does not join a read started before it', async () => {
    const t = await stack({ readMs: 400 });
    const { admin } = t.upstream.world.users;
    const space = await t.upstream.api.post(`/orgs/${t.upstream.world.orgId}/spaces`, { title: 'Before' });
    const TITLE = `query($id: String!) { space(spaceId: $id) { title } }`;
    // Reads are answered 400 ms late (the upstream has read the title by then); writes at once.
    let beforeDone = false;
    const before = t.gql(TITLE, { id: space.body.id }, admin.token).finally(() => (beforeDone = true));
    await until(() => t.proxy.count('GET') === 1);
    const write = await t.gql(
      `mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { title } } }`,
      { input: { spaceId: space.body.id, title: 'After' } },
      admin.token,
    );
    expect(write.errors).toBeUndefined();
    expect(beforeDone).toBe(false); // the read started before the write is still in flight
    const after = await t.gql(TITLE, { id: space.body.id }, admin.token);
    expect((await before).data).toEqual({ space: { title: 'Before' } });
    expect(after.data).toEqual({ space: { title: 'After' } });
    expect(t.proxy.requests.filter((r) => r.method === 'GET' && r.path === `/spaces/${space.body.id}`)).toHaveLength(2);
  });

  it('a request that arrived while an identical read was in flight takes its answer, even when it reads after the answer came back', async () => {
    const t = await stack({ readMs: 300 });
    const { admin } = t.upstream.world.users;
    const space = await t.upstream.api.post(`/orgs/${t.upstream.world.orgId}/spaces`, { title: 'Shared' });
    const TITLE = `query($id: String!) { space(spaceId: $id) { title } }`;
    const first = t.gql(TITLE, { id: space.body.id }, admin.token);
    await until(() => t.proxy.count('GET') === 1);
    // Arrives while the first one's read is in flight; reaches its resolvers after that read is back.
    const late = slowRequest(t.gateway.url, admin.token, TITLE, { id: space.body.id });
    await until(() => t.arrivals() === 2);
    expect((await first).data).toEqual({ space: { title: 'Shared' } });
    expect((await late.finish()).data).toEqual({ space: { title: 'Shared' } });
    expect(t.proxy.requests.filter((r) => r.method === 'GET' && r.path === `/spaces/${space.body.id}`)).toHaveLength(1);

    // A request that arrives after the answer came back reads afresh.
    expect((await t.gql(TITLE, { id: space.body.id }, admin.token)).data).toEqual({ space: { title: 'Shared' } });
    expect(t.proxy.requests.filter((r) => r.method === 'GET' && r.path === `/spaces/${space.body.id}`)).toHaveLength(2);
  });

  it('…but never after the caller’s own write, and never another token’s answer', async () => {
    const t = await stack({ readMs: 300 });
    const { admin, read } = t.upstream.world.users;
    const space = await t.upstream.api.post(`/orgs/${t.upstream.world.orgId}/spaces`, { title: 'Before' });
    const TITLE = `query($id: String!) { space(spaceId: $id) { title } }`;
    const gets = () => t.proxy.requests.filter((r) => r.method === 'GET' && r.path === `/spaces/${space.body.id}`);
    const first = t.gql(TITLE, { id: space.body.id }, admin.token);
    await until(() => gets().length === 1);
    const late = slowRequest(t.gateway.url, admin.token, TITLE, { id: space.body.id });
    const other = slowRequest(t.gateway.url, read.token, TITLE, { id: space.body.id });
    await until(() => t.arrivals() === 3);
    expect((await first).data).toEqual({ space: { title: 'Before' } });
    const write = await t.gql(
      `mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { clientMutationId } }`,
      { input: { spaceId: space.body.id, title: 'After' } },
      admin.token,
    );
    expect(write.errors).toBeUndefined();
    const [mine, theirs] = await Promise.all([late.finish(), other.finish()]);
    expect(mine.data).toEqual({ space: { title: 'After' } });
    expect(theirs.data).toEqual({ space: { title: 'After' } });
    expect(new Set(gets().map((r) => r.authorization))).toEqual(new Set([`Bearer ${admin.token}`, `Bearer ${read.token}`]));
    expect(gets().filter((r) => r.authorization === `Bearer ${admin.token}`)).toHaveLength(2);
    expect(gets().filter((r) => r.authorization === `Bearer ${read.token}`)).toHaveLength(1);
  });
});

describe('answers kept for a caller’s other open requests', () => {
  it('are dropped once older than their age limit, while another request of the caller stays open', async () => {
    const clock = fakeClock();
    const t = await startStack({ clock });
    stacks.push(t);
    const { admin } = t.world.users;
    const space = await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Kept' });
    const TITLE = `query($id: String!) { space(spaceId: $id) { title } }`;
    let arrived = 0;
    const arrive = t.gateway.rest.arrive;
    t.gateway.rest.arrive = (authorization) => (arrived++, arrive(authorization));
    // A request of the caller that stays open (an idle event stream holds one for hours).
    const open = slowRequest(t.gateway.url, admin.token, TITLE, { id: space.body.id });
    await until(() => arrived === 1);
    expect((await t.gql(TITLE, { id: space.body.id }, admin.token)).data).toEqual({ space: { title: 'Kept' } });
    // Kept for the open request (it arrived before the answer came), up to RECENT_MAX_AGE_MS.
    expect(t.gateway.rest.keptAnswerChars()).toBeGreaterThan(0);
    clock.advance(2_001);
    // Nothing else of the caller happened: without a timer of their own they stayed until it closed.
    expect(t.gateway.rest.keptAnswerChars()).toBe(0);
    expect((await open.finish()).data).toEqual({ space: { title: 'Kept' } });
  });
});
