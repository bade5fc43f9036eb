/**
 * Bytes of REST answers held at once, across callers (`answerBytesInFlight`): an operation's view
 * (`holdAnswers`) keeps its answers counted until `end()`; an answer that would pass the budget
 * while others are held, or its caller's share (a quarter) while it holds any, is not read
 * (UPSTREAM_UNAVAILABLE, `retryAfter: 1`; BAD_USER_INPUT when the operation's own answers would
 * pass half the budget, which it may never hold); one alone is always read, up to the budget.
 * Through real HTTP (a scripted server).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createRestClient, errorCode, RestError, type RestClient } from '../../src/rest/index.js';
import { jsonShape, parsedBytes } from '../../src/rest/jsonShape.js';
import { json, startBadServer, type BadServer, type Step } from '../helpers/badServer.js';
import { until } from '../helpers/clock.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** A 300,000-byte budget; answers of about 200,000 bytes. */
const BUDGET = 300_000;
const BIG = { text: 'x'.repeat(200_000 - 12) };
/** What one of them holds: its text, and what its parse builds beyond it (jsonShape.ts: one object). */
const HELD = parsedBytes(JSON.stringify(BIG), jsonShape(JSON.stringify(BIG)));

async function setup(budget = BUDGET): Promise<{ server: BadServer; rest: RestClient }> {
  const server = await startBadServer();
  cleanup.push(() => server.stop());
  server.fallback = json(200, BIG);
  const rest = createRestClient({ baseUrl: server.url, answerBytesInFlight: budget, retries: 0 });
  cleanup.push(() => rest.close());
  return { server, rest };
}

/** The same answer without a `Content-Length`: its bytes are counted as they come. */
const chunked: Step = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const text = JSON.stringify(BIG);
  res.write(text.slice(0, 100_000));
  setImmediate(() => res.end(text.slice(100_000)));
};

async function refusal(promise: Promise<unknown>): Promise<RestError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RestError);
  return error as RestError;
}

describe('REST answers held at once', () => {
  it("an operation's answers stay counted until it ends: another answer that would pass the budget meanwhile is refused, not read", async () => {
    const { server, rest } = await setup();
    const operation = rest.forCaller('Bearer a', { holdAnswers: true });
    expect((await operation.get<{ text: string }>('/one')).text).toHaveLength(BIG.text.length);
    expect(rest.answers.inFlight()).toBe(HELD);
    // Another caller's answer would pass the budget: refused at its headers (the upstream did answer).
    const other = rest.forCaller('Bearer b', { holdAnswers: true });
    const error = await refusal(other.get('/two'));
    expect(error.extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 });
    expect(error.message).toMatch(/holds too many large answers at once/);
    expect(server.requests).toHaveLength(2);
    // The operation's own next one would pass what one operation may hold (half the budget), even
    // alone: asking again cannot help, so it is BAD_USER_INPUT with the limit, not "retry shortly".
    const own = await refusal(operation.get('/three'));
    expect(own.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      limit: 'answerBytesInFlight',
      maximum: BUDGET / 2,
      upstream: { status: null, method: 'GET', path: '/three' },
    });
    expect(own.message).toMatch(
      /^answerBytesInFlight: the operation reads more from the REST API than one operation may hold at once \(0\.1 MiB/,
    );
    // Over: given back; the other caller's read passes.
    operation.end();
    expect(rest.answers.inFlight()).toBe(0);
    expect((await other.get<{ text: string }>('/two')).text).toHaveLength(BIG.text.length);
    other.end();
    expect(rest.answers.inFlight()).toBe(0);
  });

  it('once half the budget is held, a caller past its share (a quarter) is refused, while another caller under its share reads on', async () => {
    const { server, rest } = await setup(1_000_000);
    const a = rest.forCaller('Bearer a', { holdAnswers: true });
    // Alone, a caller may pass its share up to half the budget: two answers of 200 KB; a third
    // would pass half, which one operation never may hold.
    await a.get('/one');
    await a.get('/two');
    expect((await refusal(a.get('/three'))).extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'answerBytesInFlight' });
    // Another caller (another budget key) reads into the other half, up to its own share: its
    // second answer would fit an operation alone, so it may be asked again shortly.
    const b = rest.forCaller('Bearer b', { holdAnswers: true });
    await b.get('/four');
    expect((await refusal(b.get('/five'))).extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 });
    expect(rest.answers.inFlight()).toBe(3 * HELD);
    expect(server.requests).toHaveLength(5);
    a.end();
    b.end();
    expect(rest.answers.inFlight()).toBe(0);
  });

  it('an answer without a Content-Length is counted as its chunks come', async () => {
    const { server, rest } = await setup();
    const operation = rest.forCaller('Bearer a', { holdAnswers: true });
    await operation.get('/one');
    server.script(chunked);
    expect((await refusal(rest.forCaller('Bearer b').get('/two'))).extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(rest.answers.inFlight()).toBe(HELD);
    operation.end();
    server.script(chunked);
    expect((await rest.forCaller('Bearer b').get<{ text: string }>('/two')).text).toHaveLength(BIG.text.length);
    expect(rest.answers.inFlight()).toBe(0);
  });

  it("an answer that announces a large length and trickles holds what came, not what it announced: another caller's reads go on", async () => {
    const { server, rest } = await setup();
    // Announces nearly the whole budget, then sends one chunk and nothing more (before: its
    // headers took all it announced for the 30 s deadline, and every other caller's answer was
    // refused meanwhile).
    server.script((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(BUDGET - 100) });
      res.write('{"items": [');
    });
    const leave = new AbortController();
    cleanup.push(async () => leave.abort());
    const slow = rest.forCaller('Bearer a', { holdAnswers: true, signal: leave.signal }).get('/slow');
    const settled = slow.catch((e: unknown) => e);
    await until(() => rest.answers.inFlight() > 0);
    expect(rest.answers.inFlight()).toBeLessThan(100);
    server.fallback = json(200, { text: 'x'.repeat(1_000) });
    expect((await rest.forCaller('Bearer b').get<{ text: string }>('/small')).text).toHaveLength(1_000);
    leave.abort();
    expect(errorCode(await settled)).toBe('UPSTREAM_UNAVAILABLE');
    expect(rest.answers.inFlight()).toBe(0);
  });

  it('an answer whose announced length would pass the budget beside others is still refused at its headers, unread', async () => {
    const { server, rest } = await setup();
    const operation = rest.forCaller('Bearer a', { holdAnswers: true });
    await operation.get('/one');
    // Headers only: the refusal cannot wait for the body.
    server.script((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(BUDGET / 2) });
      res.flushHeaders();
    });
    expect((await refusal(rest.forCaller('Bearer b').get('/two'))).extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(rest.answers.inFlight()).toBe(HELD);
    operation.end();
  });

  it('without an operation, an answer is given back once parsed; after `end()`, at once', async () => {
    const { rest } = await setup();
    await Promise.all([rest.forCaller('Bearer a').get('/one'), rest.forCaller('Bearer b').get('/two')]);
    expect(rest.answers.inFlight()).toBe(0);
    const operation = rest.forCaller('Bearer a', { holdAnswers: true });
    operation.end();
    await operation.get('/three');
    expect(rest.answers.inFlight()).toBe(0);
  });

  it('one answer alone is read up to the budget; a larger one is refused as too large (UPSTREAM_ERROR)', async () => {
    const { server, rest } = await setup();
    server.script(json(200, { text: 'x'.repeat(BUDGET) }));
    const error = await refusal(rest.forCaller('Bearer a').get('/huge'));
    expect(error.extensions.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toBe('Upstream response too large');
    expect(rest.answers.inFlight()).toBe(0);
  });
});
