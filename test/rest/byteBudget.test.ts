/**
 * The bytes of large answers (64 KiB or more each) each caller may make the gateway fetch
 * (`callerBytesPerSecond`, 4 s of it at once): past it, the caller's next call waits until its debt is paid, or is refused with
 * RATE_LIMITED when the wait would outlast the call; other callers are not held back. Through real
 * HTTP (a scripted server), on a fake clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createRestClient, RestError, type RestClient } from '../../src/rest/index.js';
import { json, startBadServer, type BadServer } from '../helpers/badServer.js';
import { fakeClock, type FakeClock } from '../helpers/clock.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** 100,000 bytes a second, 400,000 at once; answers of about 300,000 bytes. */
const RATE = 100_000;
const BIG = { text: 'x'.repeat(300_000 - 12) };

async function setup(callerBytesPerSecond = RATE, queueLimit?: number): Promise<{ server: BadServer; rest: RestClient; clock: FakeClock }> {
  const server = await startBadServer();
  cleanup.push(() => server.stop());
  server.fallback = json(200, BIG);
  const clock = fakeClock();
  const rest = createRestClient({
    baseUrl: server.url,
    clock,
    requestTimeoutMs: 10_000,
    callerBytesPerSecond,
    ...(queueLimit === undefined ? {} : { queueLimit }),
  });
  cleanup.push(() => rest.close());
  return { server, rest, clock };
}

/** Lets real I/O run (the server's answers) without moving the fake clock. */
const turns = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('bytes of answers per caller', () => {
  it('lets a caller fetch 4 s of its rate at once, then makes its next call wait until the debt is paid', async () => {
    const { server, rest, clock } = await setup();
    const a = rest.forCaller('Bearer a');
    // 900,000 bytes fetched at once: 500,000 over the bucket, 5 s of the rate.
    await Promise.all([a.get('/one'), a.get('/two'), a.get('/three')]);
    expect(server.requests).toHaveLength(3);
    const next = a.get('/four');
    await turns();
    expect(server.requests).toHaveLength(3); // waiting, no call made
    clock.advance(4_900);
    await turns();
    expect(server.requests).toHaveLength(3);
    clock.advance(100);
    await expect(clock.settle(next, 0)).resolves.toEqual(BIG);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/one', '/v1/two', '/v1/three', '/v1/four']);
  });

  it('refuses at once, with RATE_LIMITED and retryAfter, a call whose wait would outlast its deadline', async () => {
    const { server, rest } = await setup();
    const a = rest.forCaller('Bearer a');
    // 1,500,000 bytes: 1,100,000 over, 11 s of the rate, past the 10 s deadline.
    await Promise.all(['/1', '/2', '/3', '/4', '/5'].map((p) => a.get(p)));
    const err = await a.get('/6').then(
      () => expect.fail('expected RATE_LIMITED'),
      (e: unknown) => e as RestError,
    );
    expect(err).toBeInstanceOf(RestError);
    expect(err.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 11 });
    expect(err.message).toContain('callerBytesPerSecond');
    expect(server.requests).toHaveLength(5);
  });

  it('counts a shared answer once per request that takes it: two requests sharing one call pay for two', async () => {
    const { server, rest, clock } = await setup();
    // Two requests of one caller (two views) read the same path at once: one call, two takers.
    const [a1, a2] = [rest.forCaller('Bearer a'), rest.forCaller('Bearer a')];
    await expect(Promise.all([a1.get('/shared'), a2.get('/shared')])).resolves.toEqual([BIG, BIG]);
    expect(server.requests).toHaveLength(1);
    // 600,000 bytes taken: 200,000 over the bucket, 2 s of the rate (one take alone would leave 100,000).
    const next = a1.get('/next');
    await turns();
    expect(server.requests).toHaveLength(1);
    clock.advance(2_000);
    await expect(clock.settle(next, 0)).resolves.toEqual(BIG);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/shared', '/v1/next']);
  });

  it("counts an answer kept for the caller's open requests again when another request takes it", async () => {
    const { server, rest, clock } = await setup();
    const [first, second] = [rest.arrive('Bearer a')!, rest.arrive('Bearer a')!];
    await rest.forCaller('Bearer a', { arrival: first }).get('/kept');
    // `second` arrived before the answer came back: it takes the kept answer, without a call, and pays for it.
    await expect(rest.forCaller('Bearer a', { arrival: second }).get('/kept')).resolves.toEqual(BIG);
    expect(server.requests).toHaveLength(1);
    const next = rest.forCaller('Bearer a').get('/next');
    await turns();
    expect(server.requests).toHaveLength(1);
    clock.advance(2_000);
    await expect(clock.settle(next, 0)).resolves.toEqual(BIG);
    for (const arrival of [first, second]) arrival.close();
  });

  it("holds back only the caller in debt: another caller's call goes at once", async () => {
    const { server, rest } = await setup();
    const a = rest.forCaller('Bearer a');
    await Promise.all([a.get('/one'), a.get('/two'), a.get('/three')]);
    void a.get('/four').catch(() => undefined);
    await expect(rest.forCaller('Bearer b').get('/other')).resolves.toEqual(BIG);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/one', '/v1/two', '/v1/three', '/v1/other']);
  });

  it('refills at the rate: after the debt is paid and 4 s more, the caller may fetch its burst again', async () => {
    const { server, rest, clock } = await setup();
    const a = rest.forCaller('Bearer a');
    await Promise.all([a.get('/1'), a.get('/2'), a.get('/3')]);
    clock.advance(9_000); // 5 s of debt, then 4 s: a full bucket
    await Promise.all([a.get('/4'), a.get('/5'), a.get('/6')]);
    expect(server.requests).toHaveLength(6);
    expect(clock.delays.filter((ms) => ms !== 10_000)).toEqual([]); // no call waited (only deadlines were set)
  });

  it('holds at most `queueLimit` waiting calls of a caller: the next is refused at once', async () => {
    const { server, rest, clock } = await setup(RATE, 2);
    const a = rest.forCaller('Bearer a');
    await Promise.all([a.get('/one'), a.get('/two'), a.get('/three')]);
    const waiting = [a.get('/w1'), a.get('/w2')];
    const err = await a.get('/w3').then(
      () => expect.fail('expected RATE_LIMITED'),
      (e: unknown) => e as RestError,
    );
    expect(err.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 5 });
    clock.advance(5_000);
    await expect(clock.settle(Promise.all(waiting), 0)).resolves.toEqual([BIG, BIG]);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/one', '/v1/two', '/v1/three', '/v1/w1', '/v1/w2']);
  });

  it('counts only large answers (64 KiB or more): a caller may read any number of small ones', async () => {
    const { server, rest, clock } = await setup(1_000); // 1,000 bytes a second, 4,000 at once
    server.fallback = json(200, { text: 'x'.repeat(60_000) });
    const a = rest.forCaller('Bearer a');
    for (let i = 0; i < 4; i++) await Promise.all([a.get(`/${i}a`), a.get(`/${i}b`), a.get(`/${i}c`)]);
    expect(server.requests).toHaveLength(12); // 720 KB at once, none of it counted
    expect(clock.delays.filter((ms) => ms !== 10_000)).toEqual([]);
    server.fallback = json(200, { text: 'x'.repeat(70_000) });
    await a.get('/large'); // 70 KB: 66 KB over the bucket, 66 s of this rate
    await expect(a.get('/next')).rejects.toMatchObject({ extensions: { code: 'RATE_LIMITED' } });
  });

  it('0 turns the bound off', async () => {
    const { server, rest, clock } = await setup(0);
    const a = rest.forCaller('Bearer a');
    for (let i = 0; i < 3; i++) await Promise.all([a.get(`/${i}a`), a.get(`/${i}b`), a.get(`/${i}c`)]);
    expect(server.requests).toHaveLength(9);
    expect(clock.delays.filter((ms) => ms !== 10_000)).toEqual([]);
  });
});
