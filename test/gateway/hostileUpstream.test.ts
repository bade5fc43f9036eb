/**
 * The REST API as a hostile HTTP peer: answers that bend HTTP/1.1 itself (interim answers, framing)
 * rather than their JSON, from a purpose-built server on a loopback port, through the gateway over
 * real HTTP. What a caller sees is a clear UPSTREAM_* error within the configured timeouts.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { json, startBadServer, type BadServer, type Step } from '../helpers/badServer.js';
import { fakeClock, until } from '../helpers/clock.js';

const ORG = { object: 'organization', id: 'org1', title: 'Acme' };
const QUERY = '{ organization(organizationId: "org1") { title } }';

let bad: BadServer | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.stop(0);
  await bad?.stop();
  gateway = bad = undefined;
});

async function post(url: string, query: string): Promise<{ data?: unknown; errors?: Array<{ message: string; extensions?: unknown }> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer tok' },
    body: JSON.stringify({ query }),
  });
  return (await res.json()) as never;
}

const SUBSCRIPTION = 'subscription { suggestedQuestionsStream(organizationId: "org1") }';

async function subscribe(url: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer tok' },
    body: JSON.stringify({ query: SUBSCRIPTION }),
  });
  return res.text();
}

/** The results of an SSE answer's `next` events. */
const nextEvents = (text: string): unknown[] =>
  [...text.matchAll(/^event: next\ndata: (.*)$/gm)].map(([, data]) => JSON.parse(data) as unknown);

/** `102 Processing` every 20 ms, never a final status. */
const processing: Step = (_req, res) => {
  const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.writeProcessing()), 20);
  res.on('close', () => clearInterval(timer));
};

describe('interim (1xx) answers', () => {
  it('do not extend the headers timeout: 102 Processing every 20 ms fails at it, not at the deadline', async () => {
    // Before: undici restarts its headers timer on every 1xx, so the call waited for its deadline
    // (30 s by default, twice the headers timeout), and a flood of them spent a core meanwhile.
    const HEADERS_MS = 1_000;
    bad = await startBadServer();
    bad.script(processing);
    bad.fallback = json(200, ORG);
    const clock = fakeClock();
    gateway = buildGateway({ upstreamUrl: bad.url, clock, rest: { headersTimeoutMs: HEADERS_MS, requestTimeoutMs: 60_000 } });
    const url = await gateway.start();
    const pending = post(url, QUERY);
    // The gateway saw a 102 and set its timer for the final status.
    await until(() => clock.delays.includes(HEADERS_MS));
    clock.advance(HEADERS_MS);
    expect(await pending).toEqual({
      data: { organization: null },
      errors: [
        expect.objectContaining({
          message: 'Upstream unavailable: timed out waiting for response headers',
          extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: { method: 'GET', path: '/orgs/org1', status: null } },
        }),
      ],
    });
    // One attempt (a headers timeout is not retried), and the next call is answered.
    expect(bad.requests).toHaveLength(1);
    expect(await post(url, QUERY)).toEqual({ data: { organization: { title: 'Acme' } } });
  });

  it('before the final status are skipped: 5,000 of them, then the answer', async () => {
    bad = await startBadServer();
    bad.script((req, res) => {
      for (let i = 0; i < 5_000; i++) res.writeProcessing();
      json(200, ORG)(req, res);
    });
    gateway = buildGateway({ upstreamUrl: bad.url });
    expect(await post(await gateway.start(), QUERY)).toEqual({ data: { organization: { title: 'Acme' } } });
  });
});

describe('a refused event stream', () => {
  const HEADERS_MS = 1_000;

  /** A 400 whose body starts as the REST API's error shape, then writes `piece` every 10 ms until its connection closes. */
  const refusedForever =
    (piece: string): Step =>
    (_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.write('{"error":{"code":400,"message":"');
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(piece)), 10);
      res.on('close', () => clearInterval(timer));
    };

  const refusal = {
    message: 'Invalid input',
    extensions: { code: 'BAD_USER_INPUT', upstream: { method: 'GET', path: '/orgs/org1/ask/questions/stream', status: 400 } },
  };

  it('has its body read up to MAX_ERROR_BODY_BYTES, then its connection closed: a body that never ends is no message', async () => {
    // Before: the streams' pool has no size limit and no body timeout, so the whole body was read:
    // the gateway's memory grew by 1.4 GB in 15 s, and the subscription never ended.
    bad = await startBadServer();
    bad.script(refusedForever('x'.repeat(16 * 1024)));
    gateway = buildGateway({ upstreamUrl: bad.url });
    const text = await subscribe(await gateway.start());
    expect(nextEvents(text)).toEqual([{ data: null, errors: [expect.objectContaining(refusal)] }]);
    expect(text).toContain('event: complete');
    await bad.requests[0].connectionClosed;
  });

  it('has its body read within the headers timeout of its status: a body that trickles is no message', async () => {
    bad = await startBadServer();
    bad.script(refusedForever('x'));
    const clock = fakeClock();
    gateway = buildGateway({ upstreamUrl: bad.url, clock, rest: { headersTimeoutMs: HEADERS_MS } });
    const pending = subscribe(await gateway.start());
    // The stream's timer for its status, then the one for its refusal's body.
    await until(() => clock.delays.filter((ms) => ms === HEADERS_MS).length === 2);
    clock.advance(HEADERS_MS);
    expect(nextEvents(await pending)).toEqual([{ data: null, errors: [expect.objectContaining(refusal)] }]);
    await bad.requests[0].connectionClosed;
  });
});

describe('an event stream in a content coding', () => {
  it('is UPSTREAM_ERROR, not a stream that completes without an event', async () => {
    // Before: the gzip bytes held no line, and the subscription completed as if the REST API had
    // sent no question (the gateway asks for no coding and decodes none).
    bad = await startBadServer();
    bad.script((_req, res) => {
      const body = gzipSync('data: {"question":"a"}\n\ndata: {"question":"b"}\n\n');
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip', 'content-length': body.length }).end(body);
    });
    gateway = buildGateway({ upstreamUrl: bad.url });
    expect(nextEvents(await subscribe(await gateway.start()))).toEqual([
      {
        data: null,
        errors: [
          expect.objectContaining({
            message: 'Upstream sent an unexpected body (an event stream in a content coding)',
            extensions: { code: 'UPSTREAM_ERROR', upstream: { method: 'GET', path: '/orgs/org1/ask/questions/stream', status: 200 } },
          }),
        ],
      },
    ]);
  });
});
