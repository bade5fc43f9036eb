/**
 * The gateway in front of a flickering upstream, over real HTTP: GraphQL client → gateway (its own
 * port) → chaos proxy (seeded faults) → embedded upstream. Error codes, retries within the budget,
 * the circuit breaker, and writes that are never retried.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildGateway, type GatewayOptions } from '../../src/gateway/app.js';
import type { Clock } from '../../src/rest/index.js';
import { fakeClock, until } from '../helpers/clock.js';
import { startChaosProxy, startChaosStack, type ChaosStack } from '../helpers/chaosProxy.js';
import { startUpstream } from '../helpers/upstream.js';
import type { GqlResult } from '../helpers/gateway.js';

const stacks: ChaosStack[] = [];
/** What a test started without a chaos stack, stopped in order. */
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.stop();
  for (const stop of stops.splice(0)) await stop();
});

/** A chaos stack with `spaces` spaces (made through REST) and no faults yet. */
async function chaosStack(
  rest: GatewayOptions['rest'] = {},
  spaces = 1,
  seed = 9,
  clock?: Clock,
): Promise<ChaosStack & { spaceIds: string[] }> {
  const stack = await startChaosStack(rest, undefined, seed, clock);
  stacks.push(stack);
  const spaceIds: string[] = [];
  for (let i = 0; i < spaces; i++) {
    const res = await stack.upstream.api.post(`/orgs/${stack.upstream.world.orgId}/spaces`, { title: `Space ${i}` });
    spaceIds.push(res.body.id);
  }
  return { ...stack, spaceIds };
}

const SPACE = `query($id: String!) { space(spaceId: $id) { title organization { title } } }`;
const SPACE_TITLE = `query($id: String!) { space(spaceId: $id) { title } }`;

describe('a flickering upstream: 20 % of reads fail with 503s and resets', () => {
  it('400 nested queries at 10 concurrent: 99 % of REST calls succeed, failed queries are UPSTREAM_UNAVAILABLE, none past the deadline, retries within the budget', async () => {
    const deadlineMs = 5_000;
    const t = await chaosStack({ requestTimeoutMs: deadlineMs }, 20, 42);
    t.proxy.configure({ failRate: 0.2, faults: [503, 'reset'], methods: ['GET'] });
    const results: { complete: boolean; code?: unknown; message?: string }[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < 400) {
          const id = t.spaceIds[next++ % t.spaceIds.length];
          const { body } = await t.gql(SPACE, { id });
          results.push({
            complete: !body.errors && body.data?.space?.organization?.title === 'Acme',
            code: body.errors?.[0]?.extensions?.code,
            message: body.errors?.[0]?.message,
          });
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    expect(results).toHaveLength(400);
    // Retries hide the faults: at most 1 % of the REST calls fail on their last attempt. Identical
    // reads in flight share one call (single-flight), so such a call fails every query sharing it:
    // those queries get UPSTREAM_UNAVAILABLE ("try again later"), never a masked or other error.
    const attempts = Math.max(...t.calls.map((c) => c.attempt));
    const lastAttemptFailures = t.calls.filter((c) => c.attempt === attempts && c.status !== 200).length;
    expect(lastAttemptFailures).toBeLessThanOrEqual(0.01 * t.calls.filter((c) => c.attempt === 1).length);
    expect(results.filter((r) => !r.complete).map((r) => r.code)).toEqual(
      results.filter((r) => !r.complete).map(() => 'UPSTREAM_UNAVAILABLE'),
    );
    expect(results.filter((r) => r.complete).length).toBeGreaterThanOrEqual(380);
    // Failures are the upstream's (503s, resets), never a call that ran out its deadline.
    expect(results.filter((r) => /deadline/.test(r.message ?? ''))).toEqual([]);

    // The faults really happened, and the retries stayed within 20 % of the calls plus the floor (10/s over a 10 s window).
    const injected = t.proxy.requests.filter((r) => r.fault !== undefined).length;
    expect(injected / t.proxy.count()).toBeGreaterThan(0.1);
    const first = t.calls.filter((c) => c.attempt === 1).length;
    const retries = t.calls.filter((c) => c.attempt > 1).length;
    expect(t.proxy.count()).toBe(first + retries);
    expect(retries).toBeGreaterThanOrEqual(injected * 0.9);
    expect(retries).toBeLessThanOrEqual(0.2 * first + 10 * (Math.ceil(seconds) + 10));
  });
});

describe('an upstream that fails every call', () => {
  it('opens the circuit of the failing route once several callers fail on it: later queries fail fast with no REST call; the gateway recovers by itself', async () => {
    const clock = fakeClock();
    const t = await chaosStack({ circuitCooldownMs: 3_000 }, 1, 9, clock);
    const [id] = t.spaceIds;
    const { admin, read } = t.upstream.world.users;
    // Tokens the REST API accepted before the outage: two callers (tokens it has not accepted yet
    // count as their client address, one caller here).
    for (const token of [admin.token, read.token]) expect((await t.gql('{ viewer { id } }', {}, token)).body.errors).toBeUndefined();
    const calls = t.proxy.count();
    t.proxy.configure({ failRate: 1, faults: [503, 'reset'] });
    const answers: { body: GqlResult; restCalls: number }[] = [];
    for (let i = 0; i < 30; i++) {
      const before = t.proxy.count();
      // Two callers take turns: one caller alone never opens a route's circuit.
      const answer = await clock.settle(t.gql(SPACE_TITLE, { id }, i % 2 ? read.token : admin.token), 1_000);
      answers.push({ ...answer, restCalls: t.proxy.count() - before });
    }
    for (const { body } of answers) {
      expect(body.data).toEqual({ space: null });
      expect(body.errors).toEqual([
        expect.objectContaining({ path: ['space'], extensions: expect.objectContaining({ code: 'UPSTREAM_UNAVAILABLE' }) }),
      ]);
    }
    // Ten failures in a row open it (the default threshold): every later query is answered without the upstream.
    expect(t.proxy.count() - calls).toBe(10);
    const last = answers[29];
    expect(last.restCalls).toBe(0);
    expect(last.body.errors![0]).toMatchObject({
      message: expect.stringMatching(/circuit open/),
      extensions: { upstream: { status: null, method: 'GET', path: `/spaces/${id}` } },
    });
    // Each refusal is counted by route (the 27 queries that made no call, and the retry of the one that opened it), none logged one by one.
    expect(answers.filter((a) => a.restCalls === 0)).toHaveLength(27);
    expect(await t.gateway.metrics!.registry.getSingleMetricAsString('docs_graph_upstream_circuit_refusals_total')).toContain(
      'docs_graph_upstream_circuit_refusals_total{route="/spaces/{spaceId}"} 28',
    );

    t.proxy.configure({ failRate: 0, faults: [] });
    clock.advance(3_000);
    const recovered = await t.gql(SPACE_TITLE, { id });
    expect(recovered.body).toEqual({ data: { space: { title: 'Space 0' } } });
    expect(t.proxy.count() - calls).toBe(11);
  });
});

describe("a failure inside a circuit's probe", () => {
  it('a probe whose call report throws still ends: the route is not refused for good', async () => {
    // Only a stub reaches this branch: the REST client's report of a call (its onRestCall, its
    // metrics) throwing once, as a bug there would, on the call that probes a half-open circuit.
    const clock = fakeClock();
    const upstream = await startUpstream();
    const proxy = await startChaosProxy(upstream.url);
    let throwAt = 0; // none yet
    let reports = 0;
    const gateway = buildGateway({
      upstreamUrl: proxy.url,
      rest: { circuitThreshold: 1, circuitCooldownMs: 3_000, retries: 0 },
      clock,
      onRestCall: () => {
        if (++reports === throwAt) throw new Error('planted: a report that throws');
      },
    });
    const url = await gateway.start();
    stops.push(
      () => gateway.stop(),
      () => proxy.stop(),
      () => upstream.stop(),
    );
    const id = (await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Space 0' })).body.id;
    const { admin, read } = upstream.world.users;
    const title = async (token: string) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: SPACE_TITLE, variables: { id } }),
      });
      return (await res.json()) as GqlResult;
    };
    for (const token of [admin.token, read.token]) expect((await title(token)).errors).toBeUndefined();
    // Two callers fail on the route: its circuit opens.
    proxy.configure({ failRate: 1, faults: [503] });
    for (const token of [admin.token, read.token]) await clock.settle(title(token), 1_000);
    expect((await title(admin.token)).errors?.[0].message).toMatch(/circuit open/);

    // The upstream is back; past the cool-down, the next call is the probe, and its report throws.
    proxy.configure({ failRate: 0, faults: [] });
    clock.advance(3_000);
    throwAt = reports + 1;
    const probed = await title(admin.token);
    expect(reports).toBe(throwAt);
    // Its caller gets the masked error, not the throw's message.
    expect(probed.errors?.[0]).toMatchObject({ message: 'Unexpected error.', extensions: { code: 'UPSTREAM_ERROR' } });
    const calls = proxy.count();
    expect(await title(admin.token)).toEqual({ data: { space: { title: 'Space 0' } } });
    expect(proxy.count()).toBe(calls + 1);
  });
});

describe('error codes', () => {
  it('a persistent 503 is UPSTREAM_UNAVAILABLE after the retries; a 500 is UPSTREAM_ERROR at once', async () => {
    const t = await chaosStack({ circuitThreshold: 0 });
    const [id] = t.spaceIds;
    t.proxy.configure({ failRate: 1, faults: [503] });
    const unavailable = await t.gql(SPACE_TITLE, { id });
    expect(unavailable.body.errors![0]).toMatchObject({
      message: 'Upstream unavailable (HTTP 503)',
      path: ['space'],
      extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: { status: 503, method: 'GET', path: `/spaces/${id}` } },
    });
    expect(t.proxy.count()).toBe(4); // the first attempt and 3 retries

    t.proxy.configure({ failRate: 1, faults: [500] });
    const broken = await t.gql(SPACE_TITLE, { id });
    expect(broken.body.errors![0]).toMatchObject({
      message: 'Upstream error (HTTP 500)',
      extensions: { code: 'UPSTREAM_ERROR', upstream: { status: 500, method: 'GET', path: `/spaces/${id}` } },
    });
    expect(t.proxy.count()).toBe(5);
    expect(JSON.stringify([unavailable.body, broken.body])).not.toMatch(/injected|Bearer/);
  });

  it('a 503 on a write reaches the upstream exactly once and is UPSTREAM_UNAVAILABLE', async () => {
    const t = await chaosStack({ circuitThreshold: 0 });
    const [id] = t.spaceIds;
    t.proxy.configure({ failRate: 1, faults: [503], methods: ['PATCH'] });
    const { body } = await t.gql(`mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { title } } }`, {
      input: { spaceId: id, title: 'Renamed' },
    });
    expect(body.errors![0]).toMatchObject({
      extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: { status: 503, method: 'PATCH', path: `/spaces/${id}` } },
    });
    expect(t.proxy.count('PATCH')).toBe(1);
    expect((await t.upstream.api.get(`/spaces/${id}`)).body.title).toBe('Space 0');
  });

  it('a write whose connection is reset reaches the upstream once, and its error does not say it failed', async () => {
    const t = await chaosStack({ circuitThreshold: 0 });
    const [id] = t.spaceIds;
    t.proxy.configure({ failRate: 1, faults: ['reset'], methods: ['PATCH'] });
    const { body } = await t.gql(`mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { title } } }`, {
      input: { spaceId: id, title: 'Renamed' },
    });
    expect(body.errors![0]).toMatchObject({
      message: expect.stringMatching(/^Upstream unavailable: .*; the write may have been made$/),
      extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: { status: null, method: 'PATCH', path: `/spaces/${id}` } },
    });
    expect(t.proxy.count('PATCH')).toBe(1);
    // A read reset the same way says nothing of a write.
    t.proxy.configure({ failRate: 1, faults: ['reset'], methods: ['GET'] });
    const read = await t.gql(SPACE_TITLE, { id });
    expect(read.body.errors![0].message).not.toMatch(/write/);
  });

  it('a write a proxy answered 502 or 504 once the upstream had it is made once, and its error says it may have been made', async () => {
    const t = await chaosStack({ circuitThreshold: 0 });
    const { orgId } = t.upstream.world;
    const titles = async () => ((await t.upstream.api.get(`/orgs/${orgId}/spaces`)).body.items as { title: string }[]).map((s) => s.title);
    for (const status of [502, 504]) {
      t.proxy.configure({ failRate: 1, faults: [{ afterForward: status }], methods: ['POST'] });
      const posts = t.proxy.count('POST');
      const { body } = await t.gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
        input: { organizationId: orgId, title: `Made ${status}` },
      });
      expect(t.proxy.count('POST')).toBe(posts + 1);
      // The REST API made it: "try again later" alone would have the client make a second one.
      expect((await titles()).filter((title) => title === `Made ${status}`)).toHaveLength(1);
      expect(body.errors![0]).toMatchObject({
        message: `Upstream unavailable (HTTP ${status}); the write may have been made`,
        extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: { status, method: 'POST' } },
      });
    }
    // A 503 is a refusal before any work, and a read's 504 says nothing of a write.
    t.proxy.configure({ failRate: 1, faults: [503], methods: ['POST'] });
    const refused = await t.gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
      input: { organizationId: orgId, title: 'Refused' },
    });
    expect(refused.body.errors![0].message).toBe('Upstream unavailable (HTTP 503)');
    t.proxy.configure({ failRate: 1, faults: [{ afterForward: 504 }], methods: ['GET'] });
    const read = await t.gql(SPACE_TITLE, { id: t.spaceIds[0] });
    expect(read.body.errors![0].message).toBe('Upstream unavailable (HTTP 504)');
  });

  it('a write answered 204 without a body is made once, and its payload reads the object again', async () => {
    const t = await chaosStack({ circuitThreshold: 0 });
    const [spaceId] = t.spaceIds;
    const { orgId } = t.upstream.world;
    const changeRequestId = (await t.upstream.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Before' })).body.id as string;
    t.proxy.configure({ failRate: 1, faults: [{ afterForward: 204 }], methods: ['PATCH', 'POST'] });
    const update = await t.gql(
      `mutation($input: UpdateChangeRequestInput!) { updateChangeRequest(input: $input) { changeRequest { restId subject } } }`,
      { input: { spaceId, changeRequestId, subject: 'After' } },
    );
    // Before: "Unexpected error." (a TypeError reading the missing JSON), the subject changed all the same.
    expect(update.body).toEqual({ data: { updateChangeRequest: { changeRequest: { restId: changeRequestId, subject: 'After' } } } });
    expect(t.proxy.count('PATCH')).toBe(1);
    expect((await t.upstream.api.get(`/spaces/${spaceId}/change-requests/${changeRequestId}`)).body.subject).toBe('After');
    // A create's id is in its answer only: its object is null, and it was made once.
    const create = await t.gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
      input: { organizationId: orgId, title: 'No body' },
    });
    expect(create.body).toEqual({ data: { createSpace: { space: null } } });
    expect(t.proxy.count('POST')).toBe(1);
    const titles = (await t.upstream.api.get(`/orgs/${orgId}/spaces`)).body.items.map((s: { title: string }) => s.title);
    expect(titles.filter((title: string) => title === 'No body')).toHaveLength(1);
  });

  it('a hand-written write answered 204 without a body says it was made, or reads its object again', async () => {
    const t = await chaosStack({ circuitThreshold: 0 });
    const [spaceId] = t.spaceIds;
    const { orgId } = t.upstream.world;
    const changeRequestId = (await t.upstream.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Merge me' })).body.id as string;
    const comments = `/spaces/${spaceId}/change-requests/${changeRequestId}/comments`;
    const commentId = (await t.upstream.api.post(comments, { body: { markdown: 'Hello' } })).body.id as string;
    t.proxy.configure({ failRate: 1, faults: [{ afterForward: 204 }], methods: ['PUT', 'POST'] });
    // A reaction's answer is the comment: it is read again, as a derived write's object is.
    const react = await t.gql(
      `mutation($input: AddCommentReactionInput!) { addCommentReaction(input: $input) { comment { restId reactions { emoji } } } }`,
      { input: { spaceId, changeRequestId, commentId, emoji: '🎉' } },
    );
    expect(react.body).toEqual({ data: { addCommentReaction: { comment: { restId: commentId, reactions: [{ emoji: '🎉' }] } } } });
    // Before: "Unexpected error." (a TypeError, or null in a non-null field) for writes that were made.
    const made = { message: 'Upstream error: the write was made, but its answer had no body', extensions: { code: 'UPSTREAM_ERROR' } };
    const merge = await t.gql(`mutation($input: MergeChangeRequestInput!) { mergeChangeRequest(input: $input) { revision } }`, {
      input: { spaceId, changeRequestId },
    });
    expect(merge.body).toEqual({
      data: { mergeChangeRequest: null },
      errors: [{ ...made, path: ['mergeChangeRequest'], locations: expect.any(Array) }],
    });
    expect((await t.upstream.api.get(`/spaces/${spaceId}/change-requests/${changeRequestId}`)).body.status).toBe('merged');
    const ping = await t.gql(`mutation($o: String!) { pingOrganization(input: { organizationId: $o }) { platformVisitorClaims } }`, {
      o: orgId,
    });
    expect(ping.body).toMatchObject({ data: { pingOrganization: null }, errors: [{ ...made, path: ['pingOrganization'] }] });
    const invite = await t.gql(
      `mutation($o: String!) { inviteToOrganization(input: { organizationId: $o, emails: ["new@example.com"] }) { invited } }`,
      { o: orgId },
    );
    expect(invite.body).toMatchObject({ data: { inviteToOrganization: null }, errors: [{ ...made, path: ['inviteToOrganization'] }] });
    expect(t.proxy.count('PUT')).toBe(1);
    expect(t.proxy.count('POST')).toBe(3);
  });

  it('a read REST takes by POST (the ask) says nothing of a write when it fails', async () => {
    const t = await chaosStack({ circuitThreshold: 0 });
    const ask = `query($org: String!) { organization(organizationId: $org) { ask(query: "webhooks") { answer { markdown } } } }`;
    for (const fault of [{ afterForward: 504 }, 'reset'] as const) {
      t.proxy.configure({ failRate: 1, faults: [fault], methods: ['POST'] });
      const { body } = await t.gql(ask, { org: t.upstream.world.orgId });
      expect(body.errors![0]).toMatchObject({
        path: ['organization', 'ask'],
        extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: { method: 'POST', path: `/orgs/${t.upstream.world.orgId}/ask` } },
      });
      expect(body.errors![0].message).not.toMatch(/write/);
    }
  });

  it('a write answered 2xx whose answer the gateway may not hold says it was made, once', async () => {
    // 64 KiB of answers at once: one operation may hold 32 KiB of its own.
    const t = await chaosStack({ circuitThreshold: 0, answerBytesInFlight: 64 * 1024 });
    const [spaceId] = t.spaceIds;
    const changeRequestId = (await t.upstream.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Comments' })).body.id as string;
    const comments = `/spaces/${spaceId}/change-requests/${changeRequestId}/comments`;
    const markdown = 'x'.repeat(20_000);
    const create = (alias: string) =>
      `${alias}: createComment(input: {spaceId: $s, changeRequestId: $c, body: {markdown: $md}}) { comment { id } }`;
    const { body } = await t.gql(`mutation($s: String!, $c: String!, $md: String!) { ${create('first')} ${create('second')} }`, {
      s: spaceId,
      c: changeRequestId,
      md: markdown,
    });
    expect(t.proxy.count('POST')).toBe(2);
    expect((await t.upstream.api.get(comments)).body.items).toHaveLength(2);
    expect(body.data?.first).toMatchObject({ comment: { id: expect.any(String) } });
    // The second comment was made: its answer's bytes are over the operation's share, and the
    // limit's "ask for fewer items, or split it" alone would have the client post it again.
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]).toMatchObject({
      path: ['second'],
      message: expect.stringMatching(/^answerBytesInFlight: .*; the write was made \(HTTP 200\) but its answer was not read$/),
      extensions: { code: 'BAD_USER_INPUT', upstream: { status: 200, method: 'POST', path: comments } },
    });
  });

  it('a hanging upstream gives UPSTREAM_UNAVAILABLE at the deadline, not a hung gateway', async () => {
    const clock = fakeClock();
    const t = await chaosStack({ requestTimeoutMs: 1_000, headersTimeoutMs: 10_000 }, 1, 9, clock);
    t.proxy.configure({ failRate: 1, faults: ['hang'] });
    const answer = t.gql(SPACE_TITLE, { id: t.spaceIds[0] });
    await until(() => t.proxy.count() === 1);
    clock.advance(999);
    expect(t.proxy.count()).toBe(1);
    clock.advance(1);
    const { body } = await answer;
    expect(body.errors![0]).toMatchObject({
      message: 'Upstream unavailable: no answer within the 1000 ms deadline',
      extensions: { code: 'UPSTREAM_UNAVAILABLE' },
    });
  });
});
