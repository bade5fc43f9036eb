/**
 * The REST client's protection of the upstream and of other callers: full-jitter backoff, the
 * retry budget, the circuit breaker, concurrency bounds with queues, and single-flight of
 * identical reads of one caller. Each against a scripted server over real HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { backoff, createRestClient, RestCallLog, type RestClient, type RestClientConfig, RestError } from '../../src/rest/index.js';
import { RetryBudget } from '../../src/rest/retryBudget.js';
import { fakeClock, until } from '../helpers/clock.js';
import { echoAuthorization, error, hang, json, rawAnswer, startBadServer, type BadServer, type Step } from '../helpers/badServer.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

function client(baseUrl: string, config: Partial<RestClientConfig> = {}): { rest: RestClient; calls: RestCallLog } {
  const calls = new RestCallLog();
  const rest = createRestClient({
    baseUrl,
    headersTimeoutMs: 2_000,
    requestTimeoutMs: 5_000,
    onRequest: calls.record,
    ...config,
    retry: { baseDelayMs: 5, maxDelayMs: 20, ...config.retry },
  });
  cleanup.push(() => rest.close());
  return { rest, calls };
}

async function badServer(): Promise<BadServer> {
  const server = await startBadServer();
  cleanup.push(() => server.stop());
  return server;
}

/** Answers with `step` after `ms`. */
const delayed =
  (ms: number, step: Step): Step =>
  (req, res) =>
    void setTimeout(() => step(req, res), ms);

/** The error code a settled call failed with, or 'ok'. */
const outcome = (r: PromiseSettledResult<unknown>) =>
  r.status === 'fulfilled' ? 'ok' : r.reason instanceof RestError ? String(r.reason.extensions.code) : String(r.reason);

const tally = (results: PromiseSettledResult<unknown>[]) =>
  results.map(outcome).reduce<Record<string, number>>((acc, code) => ({ ...acc, [code]: (acc[code] ?? 0) + 1 }), {});

describe('backoff with full jitter', () => {
  const retry = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 };

  it('is uniform between 0 and the capped exponential', () => {
    expect(backoff(retry, 1, () => 0)).toBe(0);
    expect(backoff(retry, 1, () => 0.5)).toBe(50);
    expect(backoff(retry, 3, () => 0.5)).toBe(200);
    expect(backoff(retry, 10, () => 0.999)).toBeCloseTo(999);
    const samples = Array.from({ length: 2_000 }, () => backoff(retry, 2));
    expect(Math.min(...samples)).toBeLessThan(20);
    expect(Math.max(...samples)).toBeGreaterThan(180);
    expect(Math.max(...samples)).toBeLessThan(200);
  });
});

describe('retry budget', () => {
  it('allows `percent` of the calls of the window plus the floor, and forgets calls older than the window', () => {
    let now = 1_000;
    const budget = new RetryBudget({ percent: 20, minPerSecond: 1, ttlMs: 10_000 }, () => now);
    for (let i = 0; i < 100; i++) budget.deposit();
    let retries = 0;
    while (budget.tryWithdraw()) retries++;
    expect(retries).toBe(30); // 20 % of 100, plus 1 per second over 10 s
    now += 11_000;
    // The deposits and withdrawals expired: the floor alone remains.
    expect(budget.balance()).toBeCloseTo(10);
  });

  it('forgets a deposit after the window however sparse the calls (slots on their grid)', () => {
    // The minimal sequence the model test (model.test.ts) shrank to: a call every 1,999 ms.
    let now = 1_000;
    const budget = new RetryBudget({ percent: 100, minPerSecond: 0, ttlMs: 10_000 }, () => now);
    budget.deposit();
    const balances = [];
    for (let i = 0; i < 6; i++) {
      now += 1_999;
      balances.push(budget.balance());
    }
    // 11,994 ms after it, the deposit no longer counts (it counted for 19,990 ms when each slot started at the call after the last one ended).
    expect(balances).toEqual([1, 1, 1, 1, 1, 0]);
  });

  it('allows no retry on the deposits of calls older than the window, through HTTP', async () => {
    const server = await badServer();
    server.fallback = json(200, { ok: true });
    const clock = fakeClock();
    const { rest } = client(server.url, {
      retries: 1,
      retryBudgetPercent: 10,
      retryBudget: { minPerSecond: 0 },
      circuitThreshold: 0,
      clock,
    });
    const caller = rest.forCaller('Bearer t');
    // Ten calls at once deposit one retry; one call every 1,999 ms after them deposits half of another.
    await clock.settle(Promise.all(Array.from({ length: 10 }, (_, i) => caller.get(`/spaces/s${i}`))), 100);
    for (let i = 0; i < 5; i++) {
      clock.advance(1_999);
      await clock.settle(caller.get(`/spaces/t${i}`), 100);
    }
    clock.advance(1_999);
    server.fallback = error(503, 'down');
    await expect(clock.settle(caller.get('/spaces/late'), 100)).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
    // The first ten calls are 11,994 ms old: the late call's failure is not retried (it was when their deposits counted twice the window).
    expect(server.requests.filter((r) => r.url.endsWith('/spaces/late'))).toHaveLength(1);
  });

  it('bounds the retries against an upstream failing every call: at most 20 % of the calls plus the floor', async () => {
    const server = await badServer();
    server.fallback = error(503, 'down');
    const { rest, calls } = client(server.url, {
      retries: 4,
      retryBudgetPercent: 20,
      retryBudget: { minPerSecond: 1 },
      circuitThreshold: 0,
    });
    const caller = rest.forCaller('Bearer t');
    const results = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => caller.get(`/spaces/s${i}`)));
    expect(tally(results)).toEqual({ UPSTREAM_UNAVAILABLE: 100 });
    const retries = calls.calls.filter((c) => c.attempt > 1).length;
    // Without the budget: 400 retries (4 per call).
    expect(retries).toBeLessThanOrEqual(30);
    expect(retries).toBeGreaterThanOrEqual(20);
    expect(server.requests.length).toBe(100 + retries);
  });
});

describe('circuit breaker', () => {
  function breakerClient(server: BadServer | string, circuit: { circuitThreshold?: number; retries?: number } = {}) {
    const states: string[] = [];
    const refused: string[] = [];
    const lines: string[] = [];
    const clock = fakeClock();
    const logger = {
      info: (m: string, f?: object) => lines.push(`info ${m} ${JSON.stringify(f)}`),
      warn: (m: string, f?: object) => lines.push(`warn ${m} ${JSON.stringify(f)}`),
    };
    const { rest, calls } = client(typeof server === 'string' ? server : server.url, {
      retries: 0,
      circuitThreshold: 3,
      circuitCooldownMs: 300,
      ...circuit,
      onCircuitChange: (s) => states.push(s),
      onCircuitRefusal: (route) => refused.push(route),
      logger,
      clock,
    });
    const caller = (token: string) => rest.forCaller(`Bearer ${token}`);
    return { rest, caller, calls, states, refused, lines, clock };
  }

  it('one caller hammering an id the upstream fails on opens no circuit: its calls fail on their own, another caller is served', async () => {
    const server = await badServer();
    server.fallback = (req, res) => (req.url!.includes('/bad') ? error(500, 'broken') : json(200, { ok: true }))(req, res);
    const { caller, states, refused } = breakerClient(server);
    const attacker = caller('attacker');
    const other = caller('other');
    for (let round = 0; round < 10; round++) {
      const burst = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => attacker.get(`/spaces/bad${i}`)));
      expect(tally(burst)).toEqual({ UPSTREAM_ERROR: 10 });
      await expect(other.get(`/spaces/s${round}`)).resolves.toEqual({ ok: true });
      await expect(other.get('/orgs/o')).resolves.toEqual({ ok: true });
    }
    // Every one of the attacker's calls reached the upstream (and failed there): nobody was refused.
    expect(server.requests.filter((r) => r.url.includes('/bad'))).toHaveLength(100);
    expect(states).toEqual([]);
    expect(refused).toEqual([]);
  });

  it('failures of several callers open the circuit of their route only; refusals are counted, not made', async () => {
    const server = await badServer();
    server.fallback = (req, res) => (/^\/v1\/spaces\/[^/]+$/.test(req.url!) ? error(500, 'broken') : json(200, { ok: true }))(req, res);
    const { caller, states, refused, calls } = breakerClient(server);
    for (const who of ['a', 'b', 'a'])
      await expect(caller(who).get(`/spaces/${who}`)).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_ERROR' } });
    expect(states).toEqual(['open']);
    const fast = await caller('c')
      .get('/spaces/c')
      .catch((e: RestError) => e);
    expect(fast).toMatchObject({
      message: expect.stringMatching(/circuit open/),
      extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: { status: null, method: 'GET', path: '/spaces/c' } },
    });
    expect(refused).toEqual(['/spaces/{spaceId}']);
    // Other routes are served.
    await expect(caller('c').get('/orgs/o')).resolves.toEqual({ ok: true });
    await expect(caller('c').get('/spaces/s/change-requests')).resolves.toEqual({ ok: true });
    expect(calls.count('GET')).toBe(5);
  });

  it('a call its callers left just before its deadline is no timeout of its route', async () => {
    const server = await badServer();
    server.fallback = (req, res) => (req.url!.includes('/slow') ? hang(req, res) : json(200, { ok: true })(req, res));
    const clock = fakeClock();
    const states: string[] = [];
    const { rest } = client(server.url, {
      retries: 0,
      requestTimeoutMs: 1_000,
      circuitThreshold: 1,
      circuit: { minCallers: 1 },
      onCircuitChange: (s) => states.push(s),
      clock,
    });
    const controller = new AbortController();
    const left = rest.forCaller('Bearer a', { signal: controller.signal }).get('/spaces/slow');
    await until(() => server.requests.length === 1);
    clock.advance(999);
    // Its caller leaves (the call is aborted), and its deadline falls due before the abort is through.
    controller.abort();
    clock.advance(1);
    await expect(left).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
    // Counted as a timeout, it opened the route's circuit: another caller was refused without a call.
    await expect(rest.forCaller('Bearer b').get('/spaces/other')).resolves.toEqual({ ok: true });
    expect(states).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it("the probe takes no place in its caller's queue: another caller's call probes, the upstream answering again", async () => {
    const server = await badServer();
    let down = true;
    server.fallback = (req, res) =>
      req.url!.includes('/slow')
        ? hang(req, res)
        : (down && req.url!.includes('/spaces/') ? error(500, 'down') : json(200, { ok: true }))(req, res);
    const clock = fakeClock();
    const { rest } = client(server.url, {
      retries: 0,
      requestTimeoutMs: 30_000,
      circuitThreshold: 2,
      circuitCooldownMs: 1_000,
      callerConcurrency: 1,
      concurrency: 4,
      clock,
    });
    const a = rest.forCaller('Bearer a');
    const b = rest.forCaller('Bearer b');
    for (const caller of [a, b]) await expect(caller.get('/spaces/s')).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_ERROR' } });
    down = false;
    // Caller a's one slot is held by a slow call when the cool-down ends; its next call on the route waits for it.
    const slow = a.get('/orgs/slow').catch((e: unknown) => e);
    await until(() => server.requests.length === 3);
    clock.advance(1_000);
    const queued = a.get('/spaces/a').catch((e: unknown) => e);
    const results = [];
    for (let i = 0; i < 5; i++)
      results.push(
        await b.get(`/spaces/b${i}`).then(
          () => 'ok',
          (e: RestError) => e.message,
        ),
      );
    // The queued call took the probe and held it for up to its 30 s deadline: 5 of 5 refused, no call made.
    expect(results).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(server.requests).toHaveLength(8);
    clock.advance(30_000);
    await Promise.all([slow, queued]);
  });

  it('fails fast without a REST call while open, probes after the cool-down and closes on success', async () => {
    const server = await badServer();
    server.fallback = error(500, 'broken');
    const { caller, calls, states, lines, clock } = breakerClient(server);
    for (const who of ['secret-token-1', 'secret-token-2', 'secret-token-1'])
      await expect(caller(who).get('/a')).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_ERROR' } });
    expect(states).toEqual(['open']);
    await expect(caller('x').get('/a')).rejects.toThrow(/circuit open/);
    expect(server.requests).toHaveLength(3);
    expect(calls.count()).toBe(3);

    server.fallback = json(200, { ok: true });
    clock.advance(299);
    await expect(caller('x').get('/a')).rejects.toThrow(/circuit open/);
    clock.advance(1);
    await expect(caller('x').get('/a')).resolves.toEqual({ ok: true });
    expect(states).toEqual(['open', 'half-open', 'closed']);
    await expect(caller('x').get('/b')).resolves.toEqual({ ok: true });
    expect(server.requests).toHaveLength(5);
    expect(lines).toEqual([
      expect.stringMatching(/^warn upstream circuit open.*"route":"other".*"threshold":3/),
      expect.stringMatching(/^info upstream circuit closed/),
    ]);
    expect(lines.join('\n')).not.toContain('secret-token');
  });

  it('lets one probe through after the cool-down; calls during the probe still fail fast', async () => {
    const server = await badServer();
    server.fallback = error(503, 'down');
    const { caller, states, clock } = breakerClient(server, { circuitThreshold: 2 });
    for (const who of ['a', 'b'])
      await caller(who)
        .get('/a')
        .catch(() => undefined);
    clock.advance(300);
    let answer!: () => void;
    server.fallback = (req, res) => (answer = () => json(200, { ok: true })(req, res));
    const probe = caller('a').get('/a');
    await until(() => server.requests.length === 3);
    await expect(caller('b').get('/a')).rejects.toThrow(/circuit open/);
    answer();
    await expect(probe).resolves.toEqual({ ok: true });
    expect(states).toEqual(['open', 'half-open', 'closed']);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/a', '/v1/a', '/v1/a']);
  });

  it('reopens when the probe fails', async () => {
    const server = await badServer();
    server.fallback = error(503, 'down');
    const { caller, states, clock } = breakerClient(server, { circuitThreshold: 2 });
    for (const who of ['a', 'b'])
      await caller(who)
        .get('/a')
        .catch(() => undefined);
    clock.advance(300);
    await expect(caller('a').get('/a')).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: { status: 503 } } });
    await expect(caller('a').get('/a')).rejects.toThrow(/circuit open/);
    expect(states).toEqual(['open', 'half-open', 'open']);
    expect(server.requests).toHaveLength(3);
  });

  it('a call whose retry meets the open circuit keeps the failure that opened it', async () => {
    const server = await badServer();
    server.fallback = (req) => req.socket.resetAndDestroy();
    const clock = fakeClock();
    const { rest } = client(server.url, { retries: 3, circuitThreshold: 2, circuitCooldownMs: 10_000, circuit: { minCallers: 1 }, clock });
    const caller = rest.forCaller('Bearer t');
    await expect(clock.settle(caller.get('/a'), 1_000)).rejects.toThrow(/connection reset/);
    expect(server.requests).toHaveLength(2);
    await expect(caller.get('/a')).rejects.toThrow(/circuit open/);
  });

  it('an upstream nobody can connect to opens the origin circuit, whoever asks, for every route', async () => {
    const closed = await badServer();
    const url = closed.url;
    await closed.stop();
    const { caller, states, refused } = breakerClient(url, { circuitThreshold: 2 });
    for (let i = 0; i < 2; i++) await expect(caller('only').get('/a')).rejects.toThrow(/connection refused/);
    expect(states).toEqual(['open']);
    await expect(caller('only').get('/spaces/s')).rejects.toThrow(/circuit open/);
    expect(refused).toEqual(['*']);
  });

  it('malformed HTTP is UPSTREAM_ERROR without the parser in its message, is not retried and opens no circuit', async () => {
    const server = await badServer();
    const head = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n';
    const answers = [
      `${head}x-evil: a\rb\r\ncontent-length: 2\r\n\r\n{}`, // a bare CR in a header value
      'HTTP/1.1 200 OK\ncontent-type: application/json\ncontent-length: 2\n\n{}', // lines ended by LF alone
      `${head}content-length: 2\r\ncontent-length: 5\r\n\r\n{}`, // conflicting lengths
      `${head}content-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`, // a length and chunks
      `${head}x-big: ${'a'.repeat(64 * 1024)}\r\ncontent-length: 2\r\n\r\n{}`, // headers past undici's bound
      'SSH-2.0-OpenSSH\r\n\r\n', // not HTTP
    ];
    server.fallback = (req, res) => rawAnswer(answers[Number(/\d+$/.exec(req.url!)![0])])(req, res);
    const { caller, states } = breakerClient(server, { circuitThreshold: 2, retries: 2 });
    for (let i = 0; i < answers.length; i++) {
      // Before: UPSTREAM_UNAVAILABLE "request failed (HPE_LF_EXPECTED)" and the like, a route failure.
      await expect(caller(`c${i}`).get(`/spaces/s/${i}`)).rejects.toMatchObject({
        message: 'Upstream sent a malformed HTTP answer',
        extensions: { code: 'UPSTREAM_ERROR', upstream: { status: null, method: 'GET', path: `/spaces/s/${i}` } },
      });
    }
    expect(server.requests).toHaveLength(answers.length);
    expect(states).toEqual([]);
  });

  it('never counts 4xx answers', async () => {
    const server = await badServer();
    server.fallback = error(404, 'no such thing');
    const { caller, states } = breakerClient(server, { circuitThreshold: 2 });
    for (let i = 0; i < 5; i++) await expect(caller(`c${i}`).get('/a')).rejects.toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    expect(states).toEqual([]);
  });
});

describe('concurrency bounds', () => {
  /** A server that answers after 100 ms and tracks how many requests it holds at once, per caller. */
  async function slowServer() {
    const server = await badServer();
    const open = new Map<string, number>();
    const peak = new Map<string, number>();
    server.fallback = (req, res) => {
      const who = req.headers.authorization ?? '';
      open.set(who, (open.get(who) ?? 0) + 1);
      peak.set(who, Math.max(peak.get(who) ?? 0, open.get(who)!));
      setTimeout(() => {
        open.set(who, open.get(who)! - 1);
        json(200, { who })(req, res);
      }, 100);
    };
    return { server, peak };
  }

  it('one caller cannot hold more than its share: another caller is served while the first one queues', async () => {
    const { server, peak } = await slowServer();
    const { rest } = client(server.url, { concurrency: 4, callerConcurrency: 2 });
    const greedy = rest.forCaller('Bearer greedy');
    const finished: string[] = [];
    const many = Array.from({ length: 12 }, (_, i) => greedy.get(`/x/${i}`).then(() => finished.push('greedy')));
    await until(() => server.requests.length === 2);
    const other = rest
      .forCaller('Bearer other')
      .get('/y')
      .then(() => finished.push('other'));
    await Promise.all([...many, other]);
    expect(peak.get('Bearer greedy')).toBe(2);
    // 12 calls, 2 at a time, take six rounds; the other caller's call is done in the first.
    expect(finished.indexOf('other')).toBeLessThan(4);
    expect(server.requests).toHaveLength(13);
  });

  it('past the caller queue, calls get RATE_LIMITED at once; past the total queue, UPSTREAM_UNAVAILABLE', async () => {
    const { server } = await slowServer();
    const { rest } = client(server.url, { concurrency: 2, callerConcurrency: 1, queueLimit: 2, queueTotal: 3 });
    const a = rest.forCaller('Bearer a');
    const first = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => a.get(`/a/${i}`)));
    expect(tally(first)).toEqual({ ok: 3, RATE_LIMITED: 2 });
    const refused = first.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason.extensions).toMatchObject({ retryAfter: 1, upstream: { status: null, method: 'GET' } });

    // Three callers with one call each in flight (2 slots), then one more waiting each: the total queue (3) overflows.
    const callers = ['b', 'c', 'd', 'e'].map((who) => rest.forCaller(`Bearer ${who}`));
    const second = await Promise.allSettled(callers.flatMap((c, i) => [c.get(`/b/${i}`), c.get(`/c/${i}`)]));
    expect(tally(second)).toMatchObject({ UPSTREAM_UNAVAILABLE: expect.any(Number) });
    expect(tally(second).ok).toBeGreaterThanOrEqual(3);
  });

  it('with no queue (queueLimit 0), a caller past its concurrency gets RATE_LIMITED, not UPSTREAM_UNAVAILABLE', async () => {
    // The total queue is 0 too: one caller's second call at once was told the gateway was at its
    // limit of queued calls, nobody else waiting.
    const { server } = await slowServer();
    const { rest } = client(server.url, { concurrency: 2, callerConcurrency: 1, queueLimit: 0 });
    const calls = await Promise.allSettled(Array.from({ length: 3 }, (_, i) => rest.forCaller('Bearer a').get(`/a/${i}`)));
    expect(tally(calls)).toEqual({ ok: 1, RATE_LIMITED: 2 });
    expect(server.requests).toHaveLength(1);
  });

  it('a call waiting in the queue still ends at its deadline', async () => {
    const server = await badServer();
    server.fallback = () => undefined; // never answers
    const clock = fakeClock();
    const { rest } = client(server.url, { requestTimeoutMs: 300, concurrency: 1, callerConcurrency: 1, clock });
    const caller = rest.forCaller('Bearer t');
    const calls = Promise.allSettled([caller.get('/a'), caller.get('/b')]);
    await until(() => server.requests.length === 1);
    clock.advance(300);
    const results = await calls;
    expect(results.map((r) => (r as PromiseRejectedResult).reason.message)).toEqual([
      expect.stringMatching(/deadline/),
      expect.stringMatching(/deadline/),
    ]);
    expect(server.requests).toHaveLength(1);
  });
});

describe('single-flight', () => {
  it('a registered request takes an identical read of its caller that came back after it arrived, while it is open; not after a write, not another caller’s', async () => {
    const server = await badServer();
    let version = 1;
    server.fallback = (req, res) => {
      if (req.method !== 'GET') version++;
      return delayed(30, json(200, { version, authorization: req.headers.authorization ?? null }))(req, res);
    };
    const { rest } = client(server.url);
    const a = rest.arrive('Bearer alice')!;
    const b = rest.arrive('Bearer alice')!;
    const bob = rest.arrive('Bearer bob')!;
    const first = await rest.forCaller('Bearer alice', { arrival: a }).get<any>('/space');
    a.close();
    // b arrived before the answer came back: it takes the answer, without a call.
    const late = await rest.forCaller('Bearer alice', { arrival: b }).get<any>('/space');
    expect(late).toEqual(first);
    // The kept answer itself, read-only (see 'gives every joiner the same answer').
    expect(Object.isFrozen(late)).toBe(true);
    expect(server.requests).toHaveLength(1);
    // Another caller, and a request of the same caller that arrived after the answer, call.
    expect(await rest.forCaller('Bearer bob', { arrival: bob }).get<any>('/space')).toMatchObject({ authorization: 'Bearer bob' });
    const after = rest.arrive('Bearer alice')!;
    await rest.forCaller('Bearer alice', { arrival: after }).get('/space');
    expect(server.requests).toHaveLength(3);
    // The caller's write: nothing kept before it is taken after it.
    const c = rest.arrive('Bearer alice')!;
    await rest.forCaller('Bearer alice', { arrival: after }).get('/other');
    await rest.forCaller('Bearer alice').patch('/space', { title: 'x' });
    expect(await rest.forCaller('Bearer alice', { arrival: c }).get<any>('/other')).toMatchObject({ version: 2 });
    expect(server.requests).toHaveLength(6);
    for (const r of [b, bob, after, c]) r.close();
    // Without a registration (or single-flight off) nothing is kept.
    expect(client(server.url, { singleFlight: false }).rest.arrive('Bearer alice')).toBeUndefined();
  });

  it('keeps an answer for other requests of the caller for 2 s at most', async () => {
    const server = await badServer();
    server.fallback = json(200, { ok: true });
    const clock = fakeClock();
    const { rest } = client(server.url, { clock });
    const [a, b, c] = [1, 2, 3].map(() => rest.arrive('Bearer alice')!);
    const read = (arrival: typeof a) => rest.forCaller('Bearer alice', { arrival }).get('/space');
    await read(a);
    clock.advance(2_000);
    await read(b);
    expect(server.requests).toHaveLength(1);
    clock.advance(1);
    await read(c);
    expect(server.requests).toHaveLength(2);
    for (const r of [a, b, c]) r.close();
  });

  it("keeps 4 million characters of a caller's answers at most, the oldest dropped first", async () => {
    const server = await badServer();
    // Answers of about 900,000 characters: four fit, the fifth pushes out the oldest.
    server.fallback = (req, res) => json(200, { path: req.url, text: 'x'.repeat(900_000) })(req, res);
    const { rest } = client(server.url);
    const [a, b] = [1, 2].map(() => rest.arrive('Bearer alice')!);
    const read = (arrival: typeof a, path: string) => rest.forCaller('Bearer alice', { arrival }).get(path);
    for (const path of ['/1', '/2', '/3', '/4', '/5']) await read(a, path);
    expect(server.requests).toHaveLength(5);
    // b takes /2 to /5 as kept; /1 was dropped for the total.
    for (const path of ['/5', '/4', '/3', '/2']) await read(b, path);
    expect(server.requests).toHaveLength(5);
    await read(b, '/1');
    expect(server.requests).toHaveLength(6);
    for (const r of [a, b]) r.close();
  });

  it('identical GETs of one caller in flight together make one REST call; other queries and other callers make their own', async () => {
    const server = await badServer();
    server.fallback = delayed(50, echoAuthorization);
    const { rest } = client(server.url);
    // Each GraphQL request has its own view of the client; what matters is the token.
    const views = Array.from({ length: 20 }, () => rest.forCaller('Bearer alice'));
    const same = await Promise.all(views.map((v) => v.get('/user')));
    expect(same).toEqual(Array(20).fill({ authorization: 'Bearer alice' }));
    expect(server.requests).toHaveLength(1);

    server.requests.length = 0;
    const mixed = await Promise.all([
      rest.forCaller('Bearer alice').get('/user'),
      rest.forCaller('Bearer bob').get('/user'),
      rest.forCaller('Bearer alice').get('/user', { limit: 1 }),
      rest.forCaller(undefined).get('/user'),
      rest.forCaller('Bearer bob').get('/user'),
    ]);
    expect(mixed).toEqual([
      { authorization: 'Bearer alice' },
      { authorization: 'Bearer bob' },
      { authorization: 'Bearer alice' },
      { authorization: null },
      { authorization: 'Bearer bob' },
    ]);
    expect(server.requests.map((r) => `${r.headers.authorization ?? '-'} ${r.url}`).sort()).toEqual([
      '- /v1/user',
      'Bearer alice /v1/user',
      'Bearer alice /v1/user?limit=1',
      'Bearer bob /v1/user',
    ]);
  });

  it('gives every joiner the same answer, read-only: nobody can change what another request reads', async () => {
    const server = await badServer();
    server.fallback = delayed(50, json(200, { items: [{ id: 'a' }] }));
    const { rest } = client(server.url);
    const signal = new AbortController().signal;
    const [first, second, third] = await Promise.all([1, 2, 3].map(() => rest.forCaller('Bearer alice', { signal }).get<any>('/list')));
    expect(() => first.items.push({ id: 'changed' })).toThrow(TypeError);
    expect(() => {
      first.items[0].id = 'changed';
    }).toThrow(TypeError);
    expect(second).toBe(first);
    expect(third).toEqual({ items: [{ id: 'a' }] });
    expect(server.requests).toHaveLength(1);
  });

  it('never shares writes, and a read started after a write does not join a read started before it', async () => {
    const server = await badServer();
    let version = 1;
    server.fallback = (req, res) => {
      if (req.method !== 'GET') {
        version++;
        return json(200, { version })(req, res);
      }
      const seen = version;
      setTimeout(() => json(200, { version: seen })(req, res), 100);
    };
    const { rest } = client(server.url);
    const me = rest.forCaller('Bearer alice');
    const before = me.get('/space');
    await until(() => server.requests.length === 1);
    await Promise.all([me.patch('/space', { title: 'x' }), me.patch('/space', { title: 'x' })]);
    const after = me.get('/space');
    expect(await before).toEqual({ version: 1 });
    expect(await after).toEqual({ version: 3 });
    expect(server.requests.map((r) => r.method)).toEqual(['GET', 'PATCH', 'PATCH', 'GET']);
  });

  it('one joiner leaving does not abort the call the others wait on; the last one leaving does', async () => {
    const server = await badServer();
    server.fallback = delayed(150, json(200, { ok: true }));
    const { rest } = client(server.url);
    const leaving = new AbortController();
    const staying = rest.forCaller('Bearer alice').get('/slow');
    const gone = rest.forCaller('Bearer alice', { signal: leaving.signal }).get('/slow');
    await until(() => server.requests.length === 1);
    leaving.abort();
    await expect(gone).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
    await expect(staying).resolves.toEqual({ ok: true });
    expect(server.requests).toHaveLength(1);

    const a = new AbortController();
    const b = new AbortController();
    const calls = [a, b].map((c) => rest.forCaller('Bearer alice', { signal: c.signal }).get('/slow2'));
    await until(() => server.requests.length === 2);
    a.abort();
    b.abort();
    await Promise.allSettled(calls);
    // Nobody waits any more: the request was aborted, which closes its connection.
    await server.requests[1].connectionClosed;
  });

  it('a call whose only caller left before it joined fails quietly: no unhandled rejection', async () => {
    const server = await badServer();
    server.fallback = delayed(30, json(200, { ok: true }));
    const { rest } = client(server.url);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // The client went away before its operation reached this read (an aborted request's
      // resolvers still run): the call is started, then abandoned, and its failure has no taker.
      await expect(rest.forCaller('Bearer alice', { signal: AbortSignal.abort() }).get('/left')).rejects.toMatchObject({
        extensions: { code: 'UPSTREAM_UNAVAILABLE' },
      });
      // The next read of the same path is a call of its own, answered: a round trip during which
      // the abandoned call's failure has long settled (its abort needs a few turns of the loop).
      await expect(rest.forCaller('Bearer alice').get('/left')).resolves.toEqual({ ok: true });
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('can be turned off', async () => {
    const server = await badServer();
    server.fallback = delayed(30, json(200, {}));
    const { rest } = client(server.url, { singleFlight: false });
    await Promise.all(Array.from({ length: 5 }, () => rest.forCaller('Bearer alice').get('/user')));
    expect(server.requests).toHaveLength(5);
  });
});
