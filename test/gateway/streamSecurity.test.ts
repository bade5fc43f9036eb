/**
 * The graphql-sse endpoint (/graphql/stream) against a probe, over a real loopback gateway: a
 * single-connection reservation belongs to its caller, expires when nobody connects, and is capped
 * with what it queues; errors are GraphQL errors with codes, never an HTTP 500 with a stack.
 */
import { EventEmitter } from 'node:events';
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { TOKEN_HEADER_KEY } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_OPERATION_ID } from '../../src/gateway/plugins/useGraphQLSSE.js';
import { addAskContent, DOCKER_QUESTION } from '../helpers/askContent.js';
import { fakeClock } from '../helpers/clock.js';
import { startBadServer } from '../helpers/badServer.js';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { startSwitchProxy, type SwitchProxy } from '../helpers/switchProxy.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

const TTL = 2000;
const QUEUE = 6;
const QUEUE_BYTES = 2000;
const OPERATIONS = 3;
let t: TestStack;
let stream: string;
/** Drives reservation expiry (and the REST client's deadlines, which no test here reaches). */
const clock = fakeClock();
beforeAll(async () => {
  t = await startStack(
    {
      streams: {
        reservationTtlMs: TTL,
        maxReservationsPerCaller: 2,
        maxQueuedEventsPerCaller: QUEUE,
        maxQueuedBytesPerCaller: QUEUE_BYTES,
        maxOperationsPerCaller: OPERATIONS,
      },
      clock,
    },
    // An answer stream's events after the first come a minute apart: an operation that lasts.
    { askStreamDelayMs: 60_000 },
  );
  addAskContent(t);
  stream = `${await t.gateway.start()}/stream`;
});
afterAll(() => t.stop());

const bearer = (token: string | null): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function reserve(token: string | null): Promise<Response> {
  return fetch(stream, { method: 'PUT', headers: bearer(token) });
}

async function post(streamToken: string, token: string | null, query: string, operationId: string): Promise<Response> {
  return fetch(stream, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json', [TOKEN_HEADER_KEY]: streamToken },
    body: JSON.stringify({ query, extensions: { operationId } }),
  });
}

/** Reads an event stream until `until` appears in it (or `ms` pass), then closes it. */
async function readUntil(res: Response, until: string, ms = 5000): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  while (!text.includes(until) && Date.now() < deadline) {
    const next = await Promise.race([reader.read(), sleep(deadline - Date.now()).then(() => ({ done: true, value: undefined }))]);
    if (next.done) break;
    text += decoder.decode(next.value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return text;
}

async function expectRefused(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
  expect(body.errors[0].extensions.code).toBe(code);
  expect(JSON.stringify(body)).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d/);
  return body;
}

describe('a single-connection reservation belongs to its caller', () => {
  it("another caller can neither read, feed nor cancel the admin's stream; the admin reads its own result", async () => {
    const { admin, read } = t.world.users;
    const put = await reserve(admin.token);
    expect(put.status).toBe(201);
    const streamToken = await put.text();
    expect((await post(streamToken, admin.token, '{ viewer { email } }', 'mine')).status).toBe(202);

    for (const thief of [null, read.token]) {
      const stolen = await fetch(stream, { headers: { ...bearer(thief), accept: 'text/event-stream', [TOKEN_HEADER_KEY]: streamToken } });
      const body = await expectRefused(stolen, 403, 'FORBIDDEN');
      expect(JSON.stringify(body)).not.toContain(admin.email);
      // The token in the query string (EventSource's way) is bound the same way.
      const byQuery = await fetch(`${stream}?token=${streamToken}`, { headers: { ...bearer(thief), accept: 'text/event-stream' } });
      await expectRefused(byQuery, 403, 'FORBIDDEN');
      await expectRefused(await post(streamToken, thief, '{ viewer { email } }', `theirs-${thief}`), 403, 'FORBIDDEN');
      await expectRefused(
        await fetch(`${stream}?operationId=mine`, { method: 'DELETE', headers: { ...bearer(thief), [TOKEN_HEADER_KEY]: streamToken } }),
        403,
        'FORBIDDEN',
      );
    }

    const own = await fetch(stream, { headers: { ...bearer(admin.token), accept: 'text/event-stream', [TOKEN_HEADER_KEY]: streamToken } });
    expect(own.status).toBe(200);
    const text = await readUntil(own, 'event: complete');
    expect(text).toContain(admin.email);
    expect(text).not.toContain('theirs');
  });
});

describe('reservations are bounded', () => {
  it('per caller (429 RATE_LIMITED), not across callers, and one nobody connects to expires at the TTL with its queued results', async () => {
    const { edit } = t.world.users;
    // Each a caller of its own once the REST API accepted its token (see the next test).
    for (const user of [edit, t.world.users.review]) expect((await t.gql('{ viewer { restId } }', {}, user.token)).errors).toBeUndefined();
    const first = await (await reserve(edit.token)).text();
    expect((await reserve(edit.token)).status).toBe(201);
    await expectRefused(await reserve(edit.token), 429, 'RATE_LIMITED');
    expect((await reserve(t.world.users.review.token)).status).toBe(201);
    expect((await post(first, edit.token, '{ viewer { restId } }', 'a')).status).toBe(202);

    clock.advance(TTL - 1);
    expect((await post(first, edit.token, '{ viewer { restId } }', 'still')).status).toBe(202);
    clock.advance(1);
    // Expired: its queued result is gone, the stream is unknown, and the caller may reserve again.
    await expectRefused(await post(first, edit.token, '{ viewer { restId } }', 'b'), 404, 'NOT_FOUND');
    const again = await reserve(edit.token);
    expect(again.status).toBe(201);
  });

  it('a token the REST API has not accepted counts against its client address: made-up tokens get no reservations of their own', async () => {
    // Before: a fresh made-up token per PUT got its own share; 992 of them filled the total, and
    // every caller's PUT got 429.
    const made = await Promise.all([1, 2, 3].map((i) => reserve(`made-up-${i}`)));
    expect(made.map((r) => r.status)).toEqual([201, 201, 429]);
    expect((await reserve(null)).status).toBe(429);
    expect((await reserve(t.world.users.admin.token)).status).toBe(201);
    clock.advance(TTL);
  });

  it('events queued and not read are capped per caller: past the cap the stream ends and frees its place', async () => {
    const token = await (await reserve(null)).text();
    const statuses: number[] = [];
    for (let i = 0; i < 20 && statuses.at(-1) !== 404; i++) {
      statuses.push((await post(token, null, '{ __typename }', `op${i}`)).status);
      await sleep(20);
    }
    // Each operation queues two events (next, complete): the stream ended soon after the cap.
    expect(statuses.at(-1)).toBe(404);
    expect(statuses.length).toBeLessThanOrEqual(QUEUE / 2 + 2);
    expect((await reserve(null)).status).toBe(201);
  });

  it('a connected stream still gets every result (the cap counts only what was not read)', async () => {
    const { admin } = t.world.users;
    const token = await (await reserve(admin.token)).text();
    const res = await fetch(stream, { headers: { ...bearer(admin.token), accept: 'text/event-stream', [TOKEN_HEADER_KEY]: token } });
    const reading = readUntil(res, '"id":"op9"}', 10_000);
    for (let i = 0; i < 10; i++) {
      expect((await post(token, admin.token, '{ viewer { restId } }', `op${i}`)).status).toBe(202);
      await sleep(30);
    }
    const text = await reading;
    expect(text.match(/event: next/g)).toHaveLength(10);
  });
});

describe('a connected stream fed faster than it is written', () => {
  it('gets every event of a burst from its REST stream: its operation waits for the client to read, the queue cap does not end it', async () => {
    // 120 events in one write of the REST stream: graphql-sse queued them all before its writer
    // took one, and the 51st ended the stream (the caller's cap, 50) of a client reading each one.
    await using upstream = await startBadServer();
    upstream.fallback = (req, res) => {
      if (!req.url?.includes('/questions/stream')) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(Array.from({ length: 120 }, (_, i) => `data: {"question":"q${i}"}\n\n`).join(''));
    };
    const gateway = buildGateway({ upstreamUrl: upstream.url });
    await using _ = { [Symbol.asyncDispose]: () => gateway.stop() };
    const url = `${await gateway.start()}/stream`;
    const headers = { authorization: 'Bearer t' };
    const token = await (await fetch(url, { method: 'PUT', headers })).text();
    const res = await fetch(url, { headers: { ...headers, accept: 'text/event-stream', [TOKEN_HEADER_KEY]: token } });
    const reading = readUntil(res, 'event: complete', 10_000);
    const sent = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', [TOKEN_HEADER_KEY]: token },
      body: JSON.stringify({ query: 'subscription { suggestedQuestionsStream(organizationId: "o1") }', extensions: { operationId: 'a' } }),
    });
    expect(sent.status).toBe(202);
    const text = await reading;
    expect(text.match(/event: next/g)).toHaveLength(120);
    expect(text).toContain('"q119"');
  });
});

describe('what a reservation holds is bounded', () => {
  // Its first answer at once, the next a minute later (the upstream's delay): an operation that lasts.
  const ASK = `subscription Ask($org: String!) { askStream(organizationId: $org, query: "${DOCKER_QUESTION}") { __typename } }`;
  const postOperation = (streamToken: string, token: string | null, body: object) =>
    fetch(stream, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', [TOKEN_HEADER_KEY]: streamToken },
      body: JSON.stringify(body),
    });

  it('operations open at once, per caller (429); a completed or cancelled one frees its place', async () => {
    const { admin } = t.world.users;
    const token = await (await reserve(admin.token)).text();
    const res = await fetch(stream, { headers: { ...bearer(admin.token), accept: 'text/event-stream', [TOKEN_HEADER_KEY]: token } });
    const variables = { org: t.world.orgId };
    for (let i = 0; i < OPERATIONS; i++)
      expect((await postOperation(token, admin.token, { query: ASK, variables, extensions: { operationId: `q${i}` } })).status).toBe(202);
    // Before: every operation was taken (202), a thousand a second from one token, until the heap ran out.
    await expectRefused(
      await postOperation(token, admin.token, { query: ASK, variables, extensions: { operationId: 'q9' } }),
      429,
      'RATE_LIMITED',
    );
    const cancelled = await fetch(`${stream}?operationId=q0`, {
      method: 'DELETE',
      headers: { ...bearer(admin.token), [TOKEN_HEADER_KEY]: token },
    });
    expect(cancelled.status).toBe(200);
    let status = 0;
    for (let i = 0; i < 50 && status !== 202; i++) {
      status = (await postOperation(token, admin.token, { query: ASK, variables, extensions: { operationId: `again${i}` } })).status;
      if (status !== 202) await sleep(20);
    }
    expect(status).toBe(202);
    await res.body!.cancel();
  });

  it('an operation graphql-sse refuses (no operationId, no query, an id in use) takes no place', async () => {
    const { admin } = t.world.users;
    const token = await (await reserve(admin.token)).text();
    const res = await fetch(stream, { headers: { ...bearer(admin.token), accept: 'text/event-stream', [TOKEN_HEADER_KEY]: token } });
    const variables = { org: t.world.orgId };
    expect((await postOperation(token, admin.token, { query: ASK, variables, extensions: { operationId: 'long' } })).status).toBe(202);
    // Before: each refused POST stayed counted until the stream ended; after OPERATIONS of them,
    // every operation on any of the caller's reservations got 429.
    for (let i = 0; i < OPERATIONS; i++) {
      await expectRefused(await postOperation(token, admin.token, { query: ASK, variables }), 400, 'BAD_USER_INPUT');
      await expectRefused(await postOperation(token, admin.token, { extensions: { operationId: `none${i}` } }), 400, 'BAD_USER_INPUT');
      await expectRefused(
        await postOperation(token, admin.token, { query: ASK, variables, extensions: { operationId: 'long' } }),
        409,
        'CONFLICT',
      );
    }
    expect((await postOperation(token, admin.token, { query: ASK, variables, extensions: { operationId: 'next' } })).status).toBe(202);
    await res.body!.cancel();
  });

  it('a connected stream ended by the queue cap ends its response cleanly: no unhandled rejection', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => void rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const { admin } = t.world.users;
      const token = await (await reserve(admin.token)).text();
      const res = await fetch(stream, { headers: { ...bearer(admin.token), accept: 'text/event-stream', [TOKEN_HEADER_KEY]: token } });
      // One result of about 3 KB, over the test's 2,000 bytes: the stream ends at it.
      const query = `{ ${Array.from({ length: 200 }, (_, i) => `alias${i}: __typename`).join(' ')} }`;
      expect((await postOperation(token, admin.token, { query, extensions: { operationId: 'big' } })).status).toBe(202);
      const text = await readUntil(res, 'never', 2000);
      expect(text).not.toContain('alias199');
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      // Before: the stream's error reached the server adapter's write of the response, unhandled.
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('an operationId over MAX_OPERATION_ID characters is refused (400): each event repeats it', async () => {
    const { admin } = t.world.users;
    const token = await (await reserve(admin.token)).text();
    const res = await postOperation(token, admin.token, {
      query: '{ __typename }',
      extensions: { operationId: 'x'.repeat(MAX_OPERATION_ID + 1) },
    });
    await expectRefused(res, 400, 'BAD_USER_INPUT');
    expect(
      (await postOperation(token, admin.token, { query: '{ __typename }', extensions: { operationId: 'x'.repeat(MAX_OPERATION_ID) } }))
        .status,
    ).toBe(202);
    // Not a string, or a built-in member's name (before: 202 as "[object Object]", 409 for `__proto__`).
    for (const operationId of [{ a: 1 }, 42, '__proto__', 'constructor'])
      await expectRefused(
        await postOperation(token, admin.token, { query: '{ __typename }', extensions: { operationId } }),
        400,
        'BAD_USER_INPUT',
      );
    await fetch(`${stream}?token=${token}`, { headers: { ...bearer(admin.token), accept: 'text/event-stream' } }).then((r) =>
      r.body!.cancel(),
    );
  });

  it('events queued and not read are capped in bytes too: past the cap the stream ends', async () => {
    const token = await (await reserve(null)).text();
    // One result of about 3 KB (200 aliases), over the 2,000 bytes of the test's cap.
    const query = `{ ${Array.from({ length: 200 }, (_, i) => `alias${i}: __typename`).join(' ')} }`;
    expect((await postOperation(token, null, { query, extensions: { operationId: 'big' } })).status).toBe(202);
    const statuses: number[] = [];
    while (statuses.length < 20 && statuses.at(-1) !== 404) {
      statuses.push(
        (await postOperation(token, null, { query: '{ __typename }', extensions: { operationId: `small${statuses.length}` } })).status,
      );
      await sleep(20);
    }
    // Ended at the large result (before: only the count cap, QUEUE events, ended it, some small operations later).
    expect(statuses.at(-1)).toBe(404);
    expect(statuses.length).toBeLessThanOrEqual(2);
  });

  it('a stream of the distinct connections mode counts what it queues too: a result over the byte cap ends it', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => void rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const distinct = (query: string) =>
        fetch(stream, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ query }),
        });
      // graphql-sse queues a stream's events as they come, read or not: a hundred such streams of
      // 3.9 MB results, never read, held 3.7 MB each.
      const big = await distinct(`{ ${Array.from({ length: 200 }, (_, i) => `alias${i}: __typename`).join(' ')} }`);
      expect(big.status).toBe(200);
      expect(await readUntil(big, 'never', 2000)).not.toContain('alias199');
      const small = await distinct('{ __typename }');
      expect(await readUntil(small, 'event: complete')).toContain('"__typename":"Query"');
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('a stream whose client left before it was answered (half-closed after its request) leaves the count', async () => {
    const { guest } = t.world.users;
    // A REST call: the stream is made after node:http has closed the response.
    const body = JSON.stringify({ query: 'query HalfClosed { viewer { restId } }' });
    const request =
      `POST ${new URL(stream).pathname} HTTP/1.1\r\nHost: gateway.test\r\nAuthorization: Bearer ${guest.token}\r\n` +
      `Accept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    // Operations run, by every name (a caller not accepted yet has its names counted as "other").
    const runs = async () => {
      const text = await (await fetch(new URL('/metrics', stream))).text();
      return [...text.matchAll(/^graphql_envelop_request\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
    };
    const before = await runs();
    // Two events each (next, complete), QUEUE of them counted per caller: past the cap if they stayed.
    const left = QUEUE;
    for (let i = 0; i < left; i++) {
      await new Promise<void>((resolve) => {
        // The request and its end in one go: node:http sees the client leave while the body is read.
        const socket = connect(Number(new URL(stream).port), '127.0.0.1', () => socket.end(request));
        socket.on('error', () => undefined).on('close', () => resolve());
        socket.resume();
      });
    }
    // Each ran (its events made and counted) before the next stream opens.
    while ((await runs()) < before + left) await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    const res = await fetch(stream, {
      method: 'POST',
      headers: { ...bearer(guest.token), 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    // Before, their events stayed counted for good: every later stream of the caller ended at once, empty.
    expect(await readUntil(res, 'event: complete')).toContain('"__typename":"Query"');
  });

  it('what a stream wrote stays counted until its socket has taken it: streams nobody reads end past the cap', async () => {
    // 280 streams of a 2.7 MB result that their clients never read held 900 MB: each result left
    // the count as the writer took it, and sat in its response's buffer.
    const query = `{ ${Array.from({ length: 70 }, (_, i) => `alias${i}: __typename`).join(' ')} }`; // about 1.4 KB
    const open = async (res: EventEmitter & { writableLength: number }) => {
      const response = await t.gateway.yoga.fetch(
        'http://gateway.test/graphql/stream',
        { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ query }) },
        { res },
      );
      // Read as the server's writer reads it: to its end, never cancelled.
      if (!response.body) return '';
      const reader = response.body.getReader();
      let text = '';
      for (let next = await reader.read(); !next.done; next = await reader.read()) text += Buffer.from(next.value).toString();
      return text;
    };
    /** A response whose socket never takes what is written, until told. */
    const stuck = () => Object.assign(new EventEmitter(), { writableLength: 1_000_000 });
    const first = stuck();
    expect(await open(first)).toContain('alias69');
    // 1.4 KB still in the first response's buffer, 1.4 KB more would pass the 2,000 bytes.
    expect(await open(stuck())).not.toContain('alias69');
    first.writableLength = 0;
    first.emit('drain');
    first.emit('finish');
    expect(await open(Object.assign(new EventEmitter(), { writableLength: 0 }))).toContain('alias69');
  });

  it('a reservation is connected by GET only (405 for a POST), and a token names a reservation or nothing (404)', async () => {
    const { admin, read } = t.world.users;
    const token = await (await reserve(admin.token)).text();
    // Before: a POST connected the stream, unclaimed: it outlived the reservation's caps and its owner check.
    const byPost = await fetch(stream, {
      method: 'POST',
      headers: { ...bearer(admin.token), accept: 'text/event-stream', 'content-type': 'application/json', [TOKEN_HEADER_KEY]: token },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    await expectRefused(byPost, 405, 'BAD_USER_INPUT');
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'nope'])
      for (const who of [admin.token, read.token, null]) {
        // Before: `__proto__` and the like found graphql-sse's object prototype: 500.
        await expectRefused(
          await fetch(stream, { headers: { ...bearer(who), accept: 'text/event-stream', [TOKEN_HEADER_KEY]: name } }),
          404,
          'NOT_FOUND',
        );
        await expectRefused(
          await postOperation(name, who, { query: '{ __typename }', extensions: { operationId: 'a' } }),
          404,
          'NOT_FOUND',
        );
        await expectRefused(
          await fetch(`${stream}?operationId=a&token=${name}`, { method: 'DELETE', headers: bearer(who) }),
          404,
          'NOT_FOUND',
        );
      }
    const own = await fetch(stream, { headers: { ...bearer(admin.token), accept: 'text/event-stream', [TOKEN_HEADER_KEY]: token } });
    expect(own.status).toBe(200);
    await own.body!.cancel();
  });
});

describe('errors on /graphql/stream are GraphQL errors with codes', () => {
  const distinct = (query: string) =>
    fetch(stream, {
      method: 'POST',
      headers: { ...bearer(t.world.users.admin.token), 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query }),
    });

  it('a syntax error and a document over the token limit are results with BAD_USER_INPUT, no stack', async () => {
    for (const [query, code] of [
      ['{ viewer {', 'BAD_USER_INPUT'],
      [`{ viewer { ${'restId '.repeat(3000)} } }`, 'BAD_USER_INPUT'],
    ]) {
      const res = await distinct(query);
      expect(res.status).toBe(200);
      const text = await readUntil(res, 'event: complete');
      expect(text).toContain(`"code":"${code}"`);
      expect(text).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d|Unexpected error/);
    }
  });

  it('validation suggestions are left out for a caller whose token is not accepted, as over HTTP', async () => {
    const typo = (token: string | null) =>
      fetch(stream, {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: '{ viewr { restId } }' }),
      }).then((res) => readUntil(res, 'event: complete'));
    // Before: "Did you mean "viewer"…" to anyone.
    for (const token of [null, 'made-up']) {
      const text = await typo(token);
      expect(text).toContain('Cannot query field');
      expect(text).not.toContain('Did you mean');
    }
    expect((await t.gql('{ viewer { restId } }')).errors).toBeUndefined(); // the admin's token accepted
    expect(await typo(t.world.users.admin.token)).toContain('Did you mean');
  });

  it('variables that do not coerce, an unknown operation name and a mutation over GET are results with BAD_USER_INPUT', async () => {
    const admin = bearer(t.world.users.admin.token);
    const sent = (body: Record<string, unknown>) => () =>
      fetch(stream, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(body),
      });
    const mutationOverGet = () =>
      fetch(`${stream}?query=${encodeURIComponent('mutation { __typename }')}`, { headers: { ...admin, accept: 'text/event-stream' } });
    t.resetCalls();
    // Before: a 400 "Unable to detect operation AST" for the first two (graphql-sse took the
    // result without `data` for execution arguments), OPERATION_RESOLUTION_FAILURE and BAD_REQUEST.
    for (const [send, message] of [
      [sent({ query: 'query($n: Int!) { organizations(first: $n) { nodes { restId } } }' }), 'was not provided'],
      [sent({ query: 'query($n: Int!) { organizations(first: $n) { nodes { restId } } }', variables: { n: 'x' } }), 'got invalid value'],
      [sent({ query: 'query A { __typename } query B { __typename }' }), 'Could not determine what operation to execute'],
      [sent({ query: '{ __typename }', operationName: 'C' }), 'Could not determine what operation to execute'],
      [mutationOverGet, 'mutation operation from a POST request'],
    ] as const) {
      const response = await send();
      expect(response.status).toBe(200);
      const text = await readUntil(response, 'event: complete');
      const result = JSON.parse(/^data: (.*)$/m.exec(text)![1]) as {
        data: unknown;
        errors: Array<{ message: string; extensions: object }>;
      };
      expect(result.data).toBeNull();
      expect(result.errors[0].message).toContain(message);
      expect(result.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT' });
    }
    expect(t.calls).toEqual([]);
  });

  it('a malformed GET (variables=notjson) is a 400 with BAD_USER_INPUT', async () => {
    const res = await fetch(`${stream}?query=${encodeURIComponent('{ viewer { restId } }')}&variables=notjson`, {
      headers: { accept: 'text/event-stream' },
    });
    await expectRefused(res, 400, 'BAD_USER_INPUT');
  });
});

describe('a refused reservation', () => {
  it('keeps nothing: PUTs from new client addresses while every reservation is taken leave the heap as it was', async () => {
    await using s = await startStack({ trustProxyHops: 1, streams: { maxReservations: 2, reservationTtlMs: 600_000 } });
    const url = `${await s.gateway.start()}/stream`;
    const put = async (address: string) => (await fetch(url, { method: 'PUT', headers: { 'x-forwarded-for': address } })).status;
    expect([await put('10.9.0.1'), await put('10.9.0.2')]).toEqual([201, 201]);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const refused = async (from: number, to: number) => {
      for (let i = from; i < to; i += 50)
        expect(
          await Promise.all(Array.from({ length: 50 }, (_, k) => put(`10.${(i + k) >> 16}.${((i + k) >> 8) & 255}.${(i + k) & 255}`))),
        ).toEqual(Array(50).fill(429));
    };
    await refused(0, 6000); // warms up (and fills the 1,024 address keys kept)
    // Before: 8,000 empty tallies (one per new address), about 1.8 MB, in every round. The heap
    // also moves with what else the test process does (other files' leftovers in the full suite):
    // one round of three without growth is enough.
    const growth: number[] = [];
    for (let round = 0; round < 3 && !(growth.at(-1)! < 600_000); round++) {
      gc();
      const before = process.memoryUsage().heapUsed;
      await refused(6000 + round * 8000, 14_000 + round * 8000);
      gc();
      growth.push(process.memoryUsage().heapUsed - before);
    }
    expect(Math.min(...growth)).toBeLessThan(600_000);
  }, 120_000);
});

describe('an operation sent on a reservation holds what it reads until it ends', () => {
  const DEFERRED = /* GraphQL */ `
    query ($org: String!) {
      organization(organizationId: $org) {
        title
        ... @defer {
          spaces(first: 20) {
            nodes {
              id
              organization {
                spaces(first: 20) {
                  nodes {
                    id
                  }
                }
              }
            }
          }
        }
      }
    }
  `;
  let upstream: TestUpstream;
  let proxy: SwitchProxy;
  let gateway: Gateway;
  let url: string;
  let token: string;
  beforeAll(async () => {
    upstream = await startUpstream();
    for (let i = 0; i < 10; i++) await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: `S${i}` });
    proxy = await startSwitchProxy(upstream.url);
    gateway = buildGateway({ upstreamUrl: proxy.url, limits: { maxResultValues: 40 } });
    url = `${await gateway.start()}/stream`;
    token = upstream.world.users.admin.token;
  });
  afterAll(async () => {
    await gateway.stop();
    await proxy.stop();
    await upstream.stop();
  });
  const postDeferred = (streamToken: string) =>
    fetch(url, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', [TOKEN_HEADER_KEY]: streamToken },
      body: JSON.stringify({ query: DEFERRED, variables: { org: upstream.world.orgId }, extensions: { operationId: 'deferred' } }),
    });
  const reserveHere = async () => (await fetch(url, { method: 'PUT', headers: bearer(token) })).text();
  const connect = async (streamToken: string) => {
    const res = await fetch(url, { headers: { ...bearer(token), accept: 'text/event-stream', [TOKEN_HEADER_KEY]: streamToken } });
    expect(res.status).toBe(200);
    return res;
  };

  it('its deferred part is bounded by maxResultValues, as over HTTP', async () => {
    const streamToken = await reserveHere();
    const own = await connect(streamToken);
    expect((await postDeferred(streamToken)).status).toBe(202);
    const text = await readUntil(own, 'event: complete');
    // Before: its POST's 202 ended the operation's accounts, and the deferred part brought its
    // 100-odd values (over 40) unbounded, outside the budgets of values and answers held at once.
    expect(text).toContain('"code":"BAD_USER_INPUT"');
    expect(text).toContain('maxResultValues');
    expect(gateway.resultValues.inFlight()).toBe(0);
  });

  it('one deleted while it executes gives back the REST answers it read', async () => {
    const streamToken = await reserveHere();
    const own = await connect(streamToken);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const orgPath = `/v1/orgs/${upstream.world.orgId}`;
    proxy.holdAnswer = (method, path) => (method === 'GET' && path === orgPath ? held : undefined);
    const post = postDeferred(streamToken);
    for (const ends = Date.now() + 10_000; !proxy.requests.some((r) => r.url.startsWith(orgPath));) {
      if (Date.now() > ends) throw new Error('the organization was never read');
      await sleep(5);
    }
    const deleted = await fetch(`${url}?operationId=deferred`, {
      method: 'DELETE',
      headers: { ...bearer(token), [TOKEN_HEADER_KEY]: streamToken },
    });
    expect(deleted.status).toBe(200);
    release();
    proxy.holdAnswer = () => undefined;
    // graphql-sse drops a result made for an operation deleted meanwhile (204), unread: returned
    // here, its execution is over.
    expect((await post).status).toBe(204);
    for (const ends = Date.now() + 10_000; gateway.rest.answers.inFlight() > 0 && Date.now() < ends;) await sleep(5);
    expect(gateway.rest.answers.inFlight()).toBe(0);
    await own.body!.cancel();
  });
});
