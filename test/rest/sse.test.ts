import { afterEach, describe, expect, it } from 'vitest';
import {
  createRestClient,
  parseSse,
  RestCallLog,
  SseParser,
  MAX_EVENT_CHARS,
  STREAMS_PER_CALLER,
  type RestClientConfig,
  type SseEvent,
  RestError,
} from '../../src/rest/index.js';
import { error, hang, sse, startBadServer, type BadServer, type Step } from '../helpers/badServer.js';
import { fakeClock, until } from '../helpers/clock.js';
import { startUpstream } from '../helpers/upstream.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function badServer(): Promise<BadServer> {
  const server = await startBadServer();
  cleanup.push(() => server.stop());
  return server;
}

function client(baseUrl: string, config: Partial<RestClientConfig> = {}) {
  const calls = new RestCallLog();
  const rest = createRestClient({ baseUrl, headersTimeoutMs: 1_000, streamIdleTimeoutMs: 2_000, onRequest: calls.record, ...config });
  cleanup.push(() => rest.close());
  return { caller: rest.forCaller('Bearer t'), calls };
}

function parseAll(chunks: string[]): SseEvent[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const STREAM =
  ': welcome\n\n' +
  'data: first\n\n' +
  'event: answer\r\nid: 7\r\ndata: line one\r\ndata:line two\r\n\r\n' +
  ':heartbeat\r\r' +
  'data: {"json":true}\rid\r\r' +
  'event: empty\n\n' +
  'data\n\n';

const EXPECTED: SseEvent[] = [
  { event: 'message', data: 'first' },
  { event: 'answer', data: 'line one\nline two', id: '7' },
  { event: 'message', data: '{"json":true}', id: '' },
  { event: 'message', data: '', id: '' },
];

describe('SseParser', () => {
  it('parses events, multi-line data, ids, comments and every line ending', () => {
    expect(parseAll([STREAM])).toEqual(EXPECTED);
  });

  it('gives the same events however the stream is split into chunks', () => {
    expect(parseAll(STREAM.split(''))).toEqual(EXPECTED);
    for (let cut = 1; cut < STREAM.length; cut++) {
      expect(parseAll([STREAM.slice(0, cut), STREAM.slice(cut)])).toEqual(EXPECTED);
    }
  });

  it('treats a CR ending one chunk and a LF starting the next as one line ending', () => {
    expect(parseAll(['data: a\r', '\ndata: b\r', '\n\r', '\n'])).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('drops heartbeats, events without data and an unterminated last event', () => {
    expect(parseAll([':ping\n\n', ':ping\n\n', 'event: x\n\n', 'data: cut off'])).toEqual([]);
  });

  it('keeps only the first space after the colon, and ignores a leading BOM', () => {
    expect(parseAll(['\uFEFFdata:  two spaces\n\n'])).toEqual([{ event: 'message', data: ' two spaces' }]);
  });

  it('decodes UTF-8 characters split across byte chunks', async () => {
    const bytes = new TextEncoder().encode('data: héllo ✓\n\n');
    async function* oneByteAtATime() {
      for (const byte of bytes) yield new Uint8Array([byte]);
    }
    expect(await collect(parseSse(oneByteAtATime()))).toEqual([{ event: 'message', data: 'héllo ✓' }]);
  });
});

describe('SseParser: one event is bounded', () => {
  it('refuses a line, or an event of many lines, longer than MAX_EVENT_CHARS; under it, parses it', () => {
    const line = new SseParser();
    line.push('data: ');
    expect(() => line.push('x'.repeat(MAX_EVENT_CHARS))).toThrow(/an event longer than/);
    const lines = new SseParser();
    const chunk = `data: ${'y'.repeat(1000)}\n`;
    expect(() => {
      for (let i = 0; i < 2000; i++) lines.push(chunk);
    }).toThrow(/an event longer than/);
    const fits = new SseParser();
    for (let i = 0; i < 1000; i++) fits.push(chunk);
    expect(fits.push('\n')).toEqual([{ event: 'message', data: Array(1000).fill('y'.repeat(1000)).join('\n') }]);
  });
});

describe('SseParser: each character is read once', () => {
  it('a line of 1 MiB fed in 16-character pieces is one event, parsed well within the test timeout (82 s of CPU before)', async () => {
    const PIECE = 'x'.repeat(16);
    const pieces = Math.floor((MAX_EVENT_CHARS - 100) / PIECE.length);
    async function* source() {
      yield 'data: ';
      for (let i = 0; i < pieces; i++) {
        yield PIECE;
        // A turn of the event loop now and then, so that the test's timeout can end a slow parse.
        if (i % 4096 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      yield '\n\n';
    }
    const events = await collect(parseSse(source()));
    expect(events).toHaveLength(1);
    expect(events[0].data).toBe(PIECE.repeat(pieces));
  });
});

describe('RestCaller.stream', () => {
  it('opens at most STREAMS_PER_CALLER streams per caller (RATE_LIMITED past it, no call); an ended one frees its place', async () => {
    const server = await badServer();
    server.fallback = sse([': open\n\n']); // open until the client leaves
    const calls = new RestCallLog();
    const rest = createRestClient({ baseUrl: server.url, headersTimeoutMs: 1_000, streamIdleTimeoutMs: 0, onRequest: calls.record });
    cleanup.push(() => rest.close());
    const caller = rest.forCaller('Bearer t');
    const open = await Promise.all(Array.from({ length: STREAMS_PER_CALLER }, () => caller.stream('/s')));
    const sent = server.requests.length;
    // Before: every stream was opened, on the pool's connections the concurrency limit counted free.
    await expect(caller.stream('/s')).rejects.toMatchObject({ extensions: { code: 'RATE_LIMITED', retryAfter: 1 } });
    expect(server.requests.length).toBe(sent);
    // Another caller opens its own.
    const other = await rest.forCaller('Bearer u').stream('/s');
    await open[0].return();
    const again = await caller.stream('/s');
    for (const s of [...open.slice(1), other, again]) await s.return();
  });

  it('a stream whose report throws once it opened gives back its place and closes its connection', async () => {
    // Only a stub reaches this branch: the report of the opened stream (onRequest, the gateway's
    // metrics) throwing, as a bug there would.
    const server = await badServer();
    server.fallback = sse([': open\n\n']); // open until the client leaves
    let throwing = true;
    const rest = createRestClient({
      baseUrl: server.url,
      headersTimeoutMs: 1_000,
      streamIdleTimeoutMs: 0,
      onRequest: () => {
        if (throwing) throw new Error('planted: a report that throws');
      },
    });
    cleanup.push(() => rest.close());
    const caller = rest.forCaller('Bearer t');
    for (let i = 0; i < STREAMS_PER_CALLER; i++) await expect(caller.stream('/s')).rejects.toThrow('planted');
    // Before: each kept its place (the next was RATE_LIMITED, for good) and its connection open.
    for (const request of server.requests) await expect(request.connectionClosed).resolves.toBeUndefined();
    throwing = false;
    const again = await caller.stream('/s');
    await again.return();
  });

  it('errors with UPSTREAM_ERROR when an event passes MAX_EVENT_CHARS, and closes the upstream connection', async () => {
    const server = await badServer();
    server.script(sse(['data: first\n\n', `data: ${'z'.repeat(MAX_EVENT_CHARS)}`, '\n\n'], { gapMs: 5 }));
    const { caller } = client(server.url);
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of await caller.stream('/s')) seen.push(event.data);
    })();
    await expect(reading).rejects.toMatchObject({
      extensions: { code: 'UPSTREAM_ERROR' },
      message: 'Upstream event stream: an event too large',
    });
    expect(seen).toEqual(['first']);
    await expect(server.requests[0].connectionClosed).resolves.toBeUndefined();
  });

  it('streams events sent in pieces, and asks for text/event-stream', async () => {
    const server = await badServer();
    server.script(sse(['data: {"a":', '1}\n', '\n: keep-alive\n\nevent: end\ndata: bye\n\n'], { gapMs: 20, end: true }));
    const { caller, calls } = client(server.url);
    const events = await collect(await caller.stream('/orgs/o/ask/stream', { query: 'why?' }));
    expect(events).toEqual([
      { event: 'message', data: '{"a":1}' },
      { event: 'end', data: 'bye' },
    ]);
    expect(server.requests[0].url).toBe('/v1/orgs/o/ask/stream?query=why%3F');
    expect(server.requests[0].headers).toMatchObject({ accept: 'text/event-stream', authorization: 'Bearer t' });
    expect(calls.calls).toEqual([expect.objectContaining({ method: 'GET', path: '/orgs/o/ask/stream', status: 200 })]);
  });

  it('maps a non-2xx answer to the same errors as other calls', async () => {
    const server = await badServer();
    // The 401 last: after it, the caller's view makes no more calls (client.ts).
    server.script(error(503, 'busy'), error(500, 'oops'), error(401, 'The access token is invalid'));
    const { caller } = client(server.url);
    await expect(caller.stream('/s')).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: { status: 503 } } });
    await expect(caller.stream('/s')).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_ERROR', upstream: { status: 500 } } });
    await expect(caller.stream('/s')).rejects.toMatchObject({
      extensions: { code: 'UNAUTHENTICATED', upstream: { status: 401, method: 'GET', path: '/s' } },
    });
    expect(server.requests).toHaveLength(3); // streams are not retried
  });

  it('closes the upstream connection when the consumer breaks out of the loop', async () => {
    const server = await badServer();
    server.script(sse(['data: 1\n\n', 'data: 2\n\n']));
    const { caller } = client(server.url);
    for await (const event of await caller.stream('/s')) {
      expect(event.data).toBe('1');
      break;
    }
    await expect(server.requests[0].connectionClosed).resolves.toBeUndefined();
  });

  it('closes the upstream connection and ends quietly when the signal fires, even mid-wait', async () => {
    const server = await badServer();
    server.script(sse(['data: 1\n\n']));
    const { caller } = client(server.url);
    const controller = new AbortController();
    const stream = await caller.stream('/s', undefined, controller.signal);
    expect(await stream.next()).toEqual({ done: false, value: { event: 'message', data: '1' } });
    const waiting = stream.next();
    controller.abort();
    expect(await waiting).toEqual({ done: true, value: undefined });
    await server.requests[0].connectionClosed;
  });

  it('return() while a read is pending ends the stream at once', async () => {
    const server = await badServer();
    server.script(sse([]));
    const { caller } = client(server.url);
    const stream = await caller.stream('/s');
    const waiting = stream.next();
    await stream.return();
    expect(await waiting).toEqual({ done: true, value: undefined });
    await server.requests[0].connectionClosed;
  });

  it('errors with UPSTREAM_UNAVAILABLE when the stream stays silent past the idle timeout', async () => {
    const server = await badServer();
    server.script(sse(['data: 1\n\n']));
    const clock = fakeClock();
    const { caller } = client(server.url, { streamIdleTimeoutMs: 200, clock });
    const stream = await caller.stream('/s');
    expect(await stream.next()).toEqual({ done: false, value: { event: 'message', data: '1' } });
    const silent = stream.next();
    // The idle timer of the wait for the next chunk (after the headers' deadline, and the first
    // idle timer, cleared when `data: 1` came).
    await until(() => clock.delays.length === 3);
    clock.advance(199);
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(1);
    await expect(silent).rejects.toSatisfy(
      (err) => err instanceof RestError && err.extensions.code === 'UPSTREAM_UNAVAILABLE' && /200 ms/.test(err.message),
    );
    await server.requests[0].connectionClosed;
  });

  it('keeps a stream with heartbeats alive past the idle timeout', async () => {
    const server = await badServer();
    server.script(sse([':hb\n\n', ':hb\n\n', ':hb\n\n', ':hb\n\n', 'data: late\n\n'], { gapMs: 20, end: true }));
    const clock = fakeClock();
    const { caller } = client(server.url, { streamIdleTimeoutMs: 250, clock });
    let done = false;
    const all = collect(await caller.stream('/s')).finally(() => (done = true));
    // 150 ms of silence after each chunk: each heartbeat restarts the 250 ms idle timer, though 4 × 150 ms pass in all.
    for (let seen = 0; !done; seen = clock.delays.length) {
      await until(() => done || clock.delays.length > seen);
      clock.advance(150);
    }
    expect(await all).toEqual([{ event: 'message', data: 'late' }]);
  });

  it('errors with UPSTREAM_UNAVAILABLE when the headers never come', async () => {
    const server = await badServer();
    server.script(hang);
    const { caller } = client(server.url);
    await expect(caller.stream('/s')).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
  });

  it('errors with UPSTREAM_UNAVAILABLE when only 1xx answers come past the headers timeout, and frees its place', async () => {
    const server = await badServer();
    // `102 Processing` every 20 ms, never a final status (undici restarts its headers timer on
    // each: before, such a stream stayed pending for as long as they came, and held its place).
    const processing: Step = (_req, res) => {
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.writeProcessing()), 20);
      res.on('close', () => clearInterval(timer));
    };
    server.fallback = processing;
    const clock = fakeClock();
    const { caller, calls } = client(server.url, { clock });
    const pending = Array.from({ length: STREAMS_PER_CALLER }, () =>
      caller.stream('/s').then(
        () => expect.fail('expected the stream to fail'),
        (e: unknown) => e,
      ),
    );
    await until(() => server.requests.length === STREAMS_PER_CALLER);
    clock.advance(1_000);
    for (const error of await Promise.all(pending))
      expect(error).toMatchObject({
        message: 'Upstream unavailable: timed out waiting for response headers',
        extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: { status: null, method: 'GET', path: '/s' } },
      });
    expect(calls.calls.map((c) => c.code)).toEqual(Array(STREAMS_PER_CALLER).fill('UPSTREAM_UNAVAILABLE'));
    // Their places are free again.
    server.fallback = sse([': open\n\n']);
    await (await caller.stream('/s')).return();
  });

  it('reads the embedded upstream questions stream to its end', async () => {
    const up = await startUpstream();
    cleanup.push(() => up.stop());
    const { caller } = client(up.url);
    const me = createRestClient({ baseUrl: up.url });
    cleanup.push(() => me.close());
    const admin = me.forCaller(`Bearer ${up.world.users.admin.token}`);
    const expected = await admin.get<{ questions: string[] }>(`/orgs/${up.world.orgId}/ask/questions`);
    const events = await collect(await admin.stream(`/orgs/${up.world.orgId}/ask/questions/stream`));
    expect(events.map((e) => JSON.parse(e.data).question)).toEqual(expected.questions);
    await expect(caller.stream(`/orgs/${up.world.orgId}/ask/questions/stream`)).rejects.toMatchObject({
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });
});
