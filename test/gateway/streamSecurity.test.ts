/**
 * The graphql-sse endpoint (/graphql/stream) against a probe, over a real loopback gateway: a
 * single-connection reservation belongs to its caller, expires when nobody connects, and is capped
 * with what it queues; errors are GraphQL errors with codes, never an HTTP 500 with a stack.
 */
import { TOKEN_HEADER_KEY } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClock } from '../helpers/clock.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

const TTL = 2000;
const QUEUE = 6;
let t: TestStack;
let stream: string;
/** Drives reservation expiry (and the REST client's deadlines, which no test here reaches). */
const clock = fakeClock();
beforeAll(async () => {
  t = await startStack({ streams: { reservationTtlMs: TTL, maxReservationsPerCaller: 2, maxQueuedEventsPerCaller: QUEUE }, clock });
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

  it('a malformed GET (variables=notjson) is a 400 with BAD_USER_INPUT', async () => {
    const res = await fetch(`${stream}?query=${encodeURIComponent('{ viewer { restId } }')}&variables=notjson`, {
      headers: { accept: 'text/event-stream' },
    });
    await expectRefused(res, 400, 'BAD_USER_INPUT');
  });
});
