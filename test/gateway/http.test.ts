/**
 * Bounds of the gateway's HTTP server, through real sockets on a listening gateway: a request
 * whose headers or body trickle in is cut at its timeout (408, socket closed) instead of holding
 * the socket for minutes, the request timeout never cuts a long-lived event stream (it covers
 * receiving the request, not sending the response), and connections past the cap are refused
 * while the ones admitted keep working.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, Server, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { buildGateway } from '../../src/gateway/app.js';
import { boundServer, MAX_PIPELINED } from '../../src/gateway/lib/httpBounds.js';
import { silentLogger } from '../../src/log.js';
import { acceptWarnings } from '../../src/serverBounds.js';
import { buildUpstream } from '../../src/upstream/server.js';
import { startBadServer, error, type Step } from '../helpers/badServer.js';
import { until } from '../helpers/clock.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { sendRaw } from '../helpers/httpStack.js';

let t: TestStack;
let url: URL;
beforeAll(async () => {
  t = await startStack({ http: { requestTimeoutMs: 1000, headersTimeoutMs: 1000 } });
  url = new URL(await t.gateway.start());
});
afterAll(() => t.stop());

interface Raw {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves with what the server sent once it closed the connection. */
  closed: Promise<string>;
}

/** A raw TCP connection to the gateway, connected. */
async function openTo(to: URL): Promise<Raw> {
  const socket = connect(Number(to.port), to.hostname);
  let data = '';
  socket.on('data', (chunk) => (data += chunk.toString('latin1')));
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(data)));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return { socket, received: () => data, closed };
}

const open = () => openTo(url);

/** Writes `text` one byte per tick of `everyMs` until it is all sent or the server closes the socket; answers how many bytes went out. */
function trickle(raw: Raw, text: string, everyMs = 20): Promise<number> {
  let sent = 0;
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (raw.socket.destroyed || sent === text.length) {
        clearInterval(timer);
        return resolve(sent);
      }
      raw.socket.write(text[sent++]);
    }, everyMs);
    raw.socket.once('close', () => {
      clearInterval(timer);
      resolve(sent);
    });
  });
}

/** Resolves once `received()` satisfies `done` (the server's answer arrived), or rejects if the socket closes first. */
function answered(raw: Raw, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!done(raw.received())) return;
      raw.socket.off('data', check);
      resolve(raw.received());
    };
    raw.socket.on('data', check);
    void raw.closed.then(() =>
      done(raw.received()) ? resolve(raw.received()) : reject(new Error(`closed after ${JSON.stringify(raw.received())}`)),
    );
    check();
  });
}

const BODY = JSON.stringify({ query: '{ __typename }' }).padEnd(2000, ' ');
const postHead = (length: number) =>
  `POST /graphql HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('HTTP server timeouts', () => {
  it("default to seconds (checked every second), not Node's minutes; a headers timeout never exceeds the request timeout", () => {
    const server = createServer();
    const config = parseConfig('start', [], {});
    boundServer(server, config.http);
    const checked = (server as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval;
    // (The connection caps are the gateway's own to count: 'connection cap' below.)
    expect([server.requestTimeout, server.headersTimeout, server.keepAliveTimeout, checked, server.timeout]).toEqual([
      20_000, 10_000, 5_000, 1_000, 30_000,
    ]);
    boundServer(server, { requestTimeoutMs: 2000, headersTimeoutMs: 5000 });
    expect([server.requestTimeout, server.headersTimeout]).toEqual([2000, 2000]);
  });

  it('a body sent one byte at a time is cut at the request timeout: 408, socket closed, body never finished', async () => {
    const raw = await open();
    raw.socket.write(postHead(BODY.length));
    const [sent, text] = await Promise.all([trickle(raw, BODY), raw.closed]);
    expect(sent).toBeLessThan(BODY.length);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('headers sent one byte at a time are cut at the headers timeout', async () => {
    const raw = await open();
    const head = `GET /health HTTP/1.1\r\nHost: ${url.host}\r\n${'X-Pad: x\r\n'.repeat(200)}\r\n`;
    const [sent, text] = await Promise.all([trickle(raw, head), raw.closed]);
    expect(sent).toBeLessThan(head.length);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a connection that sends nothing is closed at the headers timeout', async () => {
    const raw = await open();
    expect(await raw.closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a whole request in time is answered, and the request timeout never cuts an event stream that outlives it', async () => {
    const token = t.world.users.admin.token;
    const auth = { authorization: `Bearer ${token}` };
    const stream = new URL('/graphql/stream', url).href;
    // graphql-sse's single-connection mode: reserve, then hold one event stream open.
    const reservation = await (await fetch(stream, { method: 'PUT', headers: auth })).text();
    const events = await fetch(stream, { headers: { ...auth, accept: 'text/event-stream', 'x-graphql-event-stream-token': reservation } });
    expect(events.status).toBe(200);
    const reader = events.body!.getReader();
    // A trickled body cut with 408 proves the server checked its connections after the timeout passed.
    const slow = await open();
    slow.socket.write(postHead(BODY.length));
    await Promise.all([trickle(slow, BODY), slow.closed]);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    // The stream opened before is still open and delivers a new operation's result.
    const run = await fetch(stream, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'x-graphql-event-stream-token': reservation },
      body: JSON.stringify({ query: '{ __typename }', extensions: { operationId: 'op-1' } }),
    });
    expect(run.status).toBe(202);
    let text = '';
    while (!text.includes('event: complete')) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain('"__typename":"Query"');
    await reader.cancel();
    // A request sent whole on a fresh socket is answered as usual.
    const ok = await open();
    ok.socket.write(`${postHead(BODY.length)}${BODY}`);
    expect(await answered(ok, (s) => s.includes('"Query"'))).toMatch(/^HTTP\/1\.1 200 /);
    ok.socket.destroy();
  });
});

describe('a response its client does not read', () => {
  it('is closed once nothing was written for --write-stall-timeout-ms; a connection with nothing to write is left open', async () => {
    const stalled = new Set<Socket>();
    const server = createServer((req, res) => {
      // 32 MB: more than loopback's socket buffers hold, so most of it waits to be written.
      if (req.url === '/large') return void res.end(Buffer.alloc(32 * 1024 * 1024, 'x'));
      // Answered only once its connection's stall timer has fired with nothing waiting to be written.
      void until(() => stalled.has(req.socket)).then(() => res.end('late'));
    });
    boundServer(server, { writeStallTimeoutMs: 1000 });
    server.on('timeout', (socket: Socket) => stalled.add(socket));
    const accepted: Socket[] = [];
    server.on('connection', (socket: Socket) => accepted.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const to = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
    try {
      const reader = await openTo(to);
      reader.socket.pause();
      reader.socket.write(`GET /large HTTP/1.1\r\nHost: ${to.host}\r\n\r\n`);
      await until(() => accepted.length === 1 && accepted[0].writableLength > 0);
      await until(() => accepted[0].destroyed);
      const slow = await openTo(to);
      slow.socket.write(`GET /slow HTTP/1.1\r\nHost: ${to.host}\r\n\r\n`);
      await until(() => slow.received().endsWith('late'));
      expect([accepted.length, accepted[1].destroyed, stalled.has(accepted[1])]).toEqual([2, false, true]);
      slow.socket.destroy();
      reader.socket.destroy();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** `body` in chunks of `size` bytes, without the last chunk (`0\r\n\r\n`). */
const inChunks = (body: string, size: number) =>
  Array.from({ length: Math.ceil(body.length / size) }, (_, i) => body.slice(i * size, (i + 1) * size))
    .map((c) => `${c.length.toString(16)}\r\n${c}\r\n`)
    .join('');
const chunkedHead = (token?: string) =>
  `POST /graphql HTTP/1.1\r\nHost: ${url.host}\r\n${token ? `Authorization: Bearer ${token}\r\n` : ''}` +
  `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;

describe('a chunked body', () => {
  it('in chunks of fewer than 16 bytes on average is refused as they come: 400, its connection closed', async () => {
    // An anonymous 100 KB body in 1-byte chunks cost 135 ms of the event loop, 45 times the same
    // body with a Content-Length: each chunk went through whatwg-node's stream adapter. Now it is
    // refused past 64 chunks plus one per 16 bytes: here 2,000 chunks of a body not sent whole
    // (before: read on until the request timeout, 408).
    const body = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(2000) } });
    const raw = await open();
    raw.socket.write(chunkedHead() + inChunks(body.slice(0, 2000), 1));
    const text = await raw.closed;
    expect(text).toMatch(/^HTTP\/1\.1 400 .*"code":"BAD_USER_INPUT"/s);
    expect(text).toContain('chunks of fewer than 16 bytes on average');
    // Its twin in 16-byte chunks, anonymous and with a token, is read and run.
    for (const token of [undefined, t.world.users.admin.token]) {
      const ok = await open();
      ok.socket.write(`${chunkedHead(token)}${inChunks(body, 16)}0\r\n\r\n`);
      expect(await answered(ok, (s) => s.includes('"Query"'))).toMatch(/^HTTP\/1\.1 200 /);
      ok.socket.destroy();
    }
    // An empty one is the same invalid JSON as before, not read again from the spent stream.
    const empty = await open();
    empty.socket.write(`${chunkedHead()}0\r\n\r\n`);
    expect(await answered(empty, (s) => s.includes('}]}'))).toMatch(/^HTTP\/1\.1 400 .*POST body sent invalid JSON/s);
    empty.socket.destroy();
  });

  it('sent in 16-byte chunks is held joined while it is read, not as an object per chunk', async () => {
    // A token holder's 900 KB body in 1-byte chunks (5.4 MB sent) ran `npm start`'s heap out: the
    // body's reader kept every chunk until the end. Such chunks are now refused (above); here
    // 56,000 of 16 bytes, all but the last chunk.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // This request, as the gateway's server reads it (the channel tells of every server of the process).
    let request: IncomingMessage | undefined;
    const started = (message: unknown) => {
      const { request: req } = message as { request: IncomingMessage };
      if (req.socket.localPort === Number(url.port) && req.headers['transfer-encoding'] === 'chunked') request = req;
    };
    subscribe('http.server.request.start', started);
    const raw = await open();
    try {
      const body = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(900_000) } });
      const sent = chunkedHead(t.world.users.admin.token) + inChunks(body, 16);
      gc();
      const before = process.memoryUsage().heapUsed;
      raw.socket.write(sent);
      // Every byte sent was read by the server and handed on by its request.
      await until(() => request?.socket.bytesRead === sent.length && request.readableLength === 0);
      gc();
      const held = process.memoryUsage().heapUsed - before;
      raw.socket.write('0\r\n\r\n');
      expect(await answered(raw, (text) => text.includes('"Query"'))).toMatch(/^HTTP\/1\.1 200 /);
      // Before: about 50 MB (an object of 1 byte and more per chunk); now the body's bytes and less.
      expect(held, `${held} bytes held`).toBeLessThan(8 * 1024 * 1024);
    } finally {
      unsubscribe('http.server.request.start', started);
      raw.socket.destroy();
    }
  });
});

describe('an idle keep-alive connection', () => {
  it('is closed at --keep-alive-timeout-ms, on the gateway and the embedded REST API alike', async () => {
    // The write-stall listener (on by default) took node:http's keep-alive timeout too, and closed
    // nothing: 1,000 idle connections, one request each, held every slot for good.
    const stack = await startStack({ http: { keepAliveTimeoutMs: 100 } }, { http: { keepAliveTimeoutMs: 100 } });
    try {
      const gateway = new URL(await stack.gateway.start());
      const rest = new URL(stack.url);
      for (const [target, path] of [
        [gateway, '/health'],
        [rest, '/v1/user'],
      ] as const) {
        const idle = await openTo(target);
        idle.socket.write(`GET ${path} HTTP/1.1\r\nHost: ${target.host}\r\n\r\n`);
        // Answered and kept alive, then closed by the server with nothing more sent.
        const text = await idle.closed;
        expect(text).toMatch(/^HTTP\/1\.1 (200|401) .*\r\nConnection: keep-alive\r\n/s);
        expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
      }
    } finally {
      await stack.stop();
    }
  });
});

describe('request headers', () => {
  it('a transfer coding besides chunked is 501, never read as JSON', async () => {
    const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
    const body = `${chunk('{"query":"{ __typename }"}')}0\r\n\r\n`;
    const head = (coding: string) =>
      `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n`;
    // Before: taken, its gzip layer ignored (here a plain body was run as if decoded).
    expect(await sendRaw(Number(url.port), head('gzip, chunked') + body)).toMatch(/^HTTP\/1\.1 501 /);
    expect(await sendRaw(Number(url.port), head('chunked') + body)).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('a body with a content coding is 415 naming the one taken, never read as JSON', async () => {
    const post = (headers: Record<string, string>, body: Buffer | string) =>
      fetch(new URL('/graphql', url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]),
      });
    const query = JSON.stringify({ query: '{ __typename }' });
    // Before: 400 "invalid JSON" for a gzip body; a plain one labelled gzip ran as it came (200).
    for (const body of [gzipSync(query), query]) {
      const res = await post({ 'content-encoding': 'gzip' }, body);
      expect(res.status).toBe(415);
      expect(res.headers.get('accept-encoding')).toBe('identity');
      expect(((await res.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    }
    expect((await post({ 'content-encoding': 'identity' }, query)).status).toBe(200);
  });

  it('a Content-Length after 2,000 other headers still bounds the body: 413 for an anonymous one over the limit', async () => {
    const body = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(300_000) } });
    const filler = Array.from({ length: 2000 }, (_, i) => `x${i}: y\r\n`).join('');
    // Before: node:http kept the first 2,000 headers only, and the body went through unbounded (200).
    const answer = await sendRaw(
      Number(url.port),
      `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${filler}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });
});

describe('connection cap', () => {
  it('refuses connections past --max-connections; the admitted ones keep working, and a freed slot is reused', async () => {
    // A gateway of its own: no other test's keep-alive connection takes a slot.
    await using capped = await startStack({ http: { maxConnections: 4 } });
    const url = new URL(await capped.gateway.start());
    const open = () => openTo(url);
    const health = `GET /health HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`;
    const admitted: Raw[] = [];
    for (let i = 0; i < 4; i++) {
      const raw = await open();
      raw.socket.write(health);
      await answered(raw, (s) => /\r\n\r\n/.test(s));
      admitted.push(raw);
    }
    const refused = await open();
    refused.socket.write(health);
    expect(await refused.closed).toBe('');
    // The admitted connections still answer (keep-alive).
    const first = admitted[0];
    const before = first.received().length;
    first.socket.write(health);
    await answered(first, (s) => s.length > before && s.slice(before).includes('\r\n\r\n'));
    expect(first.received().slice(before)).toMatch(/^HTTP\/1\.1 200 /);
    // One closes: a new connection gets its slot.
    admitted.pop()!.socket.destroy();
    let again: Raw | undefined;
    for (let attempt = 0; attempt < 50 && !again; attempt++) {
      const raw = await open();
      raw.socket.write(health);
      const text = await answered(raw, (s) => /\r\n\r\n/.test(s)).catch(() => '');
      if (text) again = raw;
    }
    expect(again?.received()).toMatch(/^HTTP\/1\.1 200 /);
    for (const raw of [...admitted, again!]) raw.socket.destroy();
  });
});

describe('connections per client address', () => {
  const connectFrom = (to: URL, localAddress: string) =>
    new Promise<Raw>((resolve, reject) => {
      const socket = connect({ port: Number(to.port), host: to.hostname, localAddress });
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString('latin1')));
      const closed = new Promise<string>((done) => socket.once('close', () => done(data)));
      socket.on('error', () => undefined);
      socket.once('connect', () => resolve({ socket, received: () => data, closed })).once('error', reject);
    });
  const health = (to: URL) => `GET /health HTTP/1.1\r\nHost: ${to.host}\r\n\r\n`;

  it('one address holds at most --max-connections-per-address; another address still connects', async () => {
    await using capped = await startStack({ http: { maxConnections: 10, maxConnectionsPerAddress: 2 } });
    const to = new URL(await capped.gateway.start());
    const held = [await connectFrom(to, '127.0.0.2'), await connectFrom(to, '127.0.0.2')];
    for (const raw of held) {
      raw.socket.write(health(to));
      await answered(raw, (s) => /\r\n\r\n/.test(s));
    }
    // Before: one address could take every connection of --max-connections.
    const third = await connectFrom(to, '127.0.0.2');
    third.socket.write(health(to));
    expect(await third.closed).toBe('');
    const other = await connectFrom(to, '127.0.0.3');
    other.socket.write(health(to));
    expect(await answered(other, (s) => /\r\n\r\n/.test(s))).toMatch(/^HTTP\/1\.1 200 /);
    for (const raw of [...held, other]) raw.socket.destroy();
  });

  it('past --max-connections, a new address takes a connection from the address holding the most: four addresses at their cap do not lock others out', async () => {
    await using capped = await startStack({ http: { maxConnections: 4, maxConnectionsPerAddress: 2 } });
    const to = new URL(await capped.gateway.start());
    // Two addresses at their cap hold every connection (idle keep-alive ones).
    const held = [
      await connectFrom(to, '127.0.0.2'),
      await connectFrom(to, '127.0.0.2'),
      await connectFrom(to, '127.0.0.3'),
      await connectFrom(to, '127.0.0.3'),
    ];
    for (const raw of held) {
      raw.socket.write(health(to));
      await answered(raw, (s) => /\r\n\r\n/.test(s));
    }
    // Before: closed unanswered, as past --max-connections.
    const newcomer = await connectFrom(to, '127.0.0.4');
    newcomer.socket.write(health(to));
    expect(await answered(newcomer, (s) => /\r\n\r\n/.test(s))).toMatch(/^HTTP\/1\.1 200 /);
    // One of the held connections was given up (the oldest of the first address holding the most).
    expect(await held[0].closed).toMatch(/^HTTP\/1\.1 200 /);
    // Now every address holds as many as the newcomer would: another new one is closed unanswered.
    const second = await connectFrom(to, '127.0.0.4');
    second.socket.write(health(to));
    expect(await second.closed).toBe('');
    for (const raw of [...held, newcomer]) raw.socket.destroy();
  });

  it('is not applied behind trusted proxies (--trust-proxy-hops), whose address every connection has', async () => {
    await using proxied = await startStack({ http: { maxConnections: 10, maxConnectionsPerAddress: 1 }, trustProxyHops: 1 });
    const to = new URL(await proxied.gateway.start());
    const held = [await connectFrom(to, '127.0.0.2'), await connectFrom(to, '127.0.0.2')];
    for (const raw of held) {
      raw.socket.write(health(to));
      expect(await answered(raw, (s) => /\r\n\r\n/.test(s))).toMatch(/^HTTP\/1\.1 200 /);
      raw.socket.destroy();
    }
  });
});

describe('request URLs', () => {
  it('a Host and target that make no URL get a 400 with a JSON error, never a stack trace; the usual ones are served', async () => {
    const port = Number(url.port);
    const body = JSON.stringify({ query: '{ __typename }' });
    for (const host of ['a b', 'x:99999', '[', '%', 'xn--', 'xn--a.b']) {
      for (const request of [
        `GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`,
        `POST /graphql HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      ]) {
        const answer = await sendRaw(port, request);
        expect(answer).not.toMatch(/\bat .*\.js:\d+/);
        // Node's URL parser decides (Node 24's takes `xn--`, Node 20's does not): a host it takes is served as any other.
        if (URL.canParse(`http://${host}/graphql`)) {
          expect(answer, host).not.toMatch(/^HTTP\/1\.1 5/);
          continue;
        }
        expect(answer, host).toMatch(/^HTTP\/1\.1 400 /);
        expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT' });
      }
    }
    // Without a Host, the adapter's URL is its own address and the target: a whole URL or `*` makes none.
    for (const request of ['GET http://x/health HTTP/1.1', 'DELETE * HTTP/1.1']) {
      const answer = await sendRaw(port, `${request}\r\nHost: \r\nConnection: close\r\n\r\n`);
      expect(answer, request).toMatch(/^HTTP\/1\.1 400 /);
    }
    for (const host of [
      'localhost',
      `127.0.0.1:${port}`,
      'gateway.example.com',
      'exa_mple.com:443',
      '[::1]:8080',
      'xn--bcher-kva.example',
    ]) {
      const answer = await sendRaw(port, `GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(answer, host).toMatch(/^HTTP\/1\.1 200 /);
    }
  });
  it('a Host holding a path, query, fragment or user is refused: the route served is the target’s, never one the Host names', async () => {
    const port = Number(url.port);
    // Each made a URL whose path was not the target's: `Host: h/metrics?` and `GET /graphql` served /metrics.
    for (const host of [`127.0.0.1:${port}/metrics?`, '127.0.0.1/health#', 'a@127.0.0.1', 'a\\b', `127.0.0.1\\metrics?`]) {
      const answer = await sendRaw(port, `GET /graphql HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(answer, host).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer, host).not.toContain('process_cpu');
    }
    const body = JSON.stringify({ query: '{ __typename }' });
    const answer = await sendRaw(
      port,
      `POST /elsewhere HTTP/1.1\r\nHost: 127.0.0.1/graphql?\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).not.toContain('__typename');
  });
  it('a target with a dot segment or a backslash in its path is refused: the route served is the path sent, never one it resolves to', async () => {
    const port = Number(url.port);
    // Each was served /metrics (or /health) where node:http and a proxy routing by path saw /graphql.
    for (const target of [
      '/graphql/../metrics',
      '/graphql/.%2E/metrics',
      '/graphql\\..\\metrics',
      '/graphql;/../metrics',
      '/graphql/stream/../../health',
    ]) {
      const answer = await sendRaw(port, `GET ${target} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
      expect(answer, target).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).errors[0].extensions, target).toEqual({ code: 'BAD_USER_INPUT' });
    }
    const body = JSON.stringify({ query: '{ __typename }' });
    for (const target of ['/x/%2e%2e/graphql', '/./graphql']) {
      const answer = await sendRaw(
        port,
        `POST ${target} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(answer, target).toMatch(/^HTTP\/1\.1 400 /);
    }
    // Dots elsewhere are not segments: a query string may hold any, and an asset's name has some.
    const get = `GET /graphql?query=${encodeURIComponent('{ __typename }')}&x=/../. HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\nx-graphql-yoga-csrf: 1\r\nConnection: close\r\n\r\n`;
    expect(await sendRaw(port, get)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await sendRaw(port, `GET /health/... HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 404 /);
  });
});

describe('pipelined requests', () => {
  /** A gateway in front of a REST API that answers each call only when the test says (`release`). */
  async function holdingGateway() {
    const upstream = await startBadServer();
    const held: Array<() => void> = [];
    upstream.fallback = ((req, res) => void held.push(() => error(404, 'no such space')(req, res))) satisfies Step;
    const gateway = buildGateway({ upstreamUrl: upstream.url });
    const to = new URL(await gateway.start());
    const request = (i: number) => {
      const body = JSON.stringify({ query: `{ space(spaceId: "s${i}") { title } }` });
      return `POST /graphql HTTP/1.1\r\nHost: ${to.host}\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    };
    return {
      upstream,
      to,
      request,
      release: () => held.splice(0).forEach((answer) => answer()),
      /**
       * After a connection's flood was closed: a request on another connection reaches the REST
       * API, and besides it only the flood's first (s0) did.
       */
      async onlyTheFirstRan() {
        const other = await openTo(to);
        other.socket.write(request(999));
        await until(() => upstream.requests.some((r) => r.url === '/v1/spaces/s999'));
        expect(upstream.requests.map((r) => r.url).filter((u) => u !== '/v1/spaces/s0')).toEqual(['/v1/spaces/s999']);
        held.splice(0).forEach((answer) => answer());
        other.socket.destroy();
      },
      async [Symbol.asyncDispose]() {
        await gateway.stop(0);
        await upstream.stop();
      },
    };
  }

  it('run one at a time per connection, in order: each is answered, but none runs before the one ahead is', async () => {
    await using g = await holdingGateway();
    const raw = await openTo(g.to);
    raw.socket.write(Array.from({ length: 10 }, (_, i) => g.request(i)).join(''));
    await until(() => g.upstream.requests.length === 1);
    // A request on another connection, sent after the ten, reaches the REST API: had the nine
    // behind the first run at once (node:http hands them all on), their calls would be there too.
    const other = await openTo(g.to);
    other.socket.write(g.request(99));
    await until(() => g.upstream.requests.length === 2);
    expect(g.upstream.requests.map((r) => r.url)).toEqual(['/v1/spaces/s0', '/v1/spaces/s99']);
    for (let i = 1; i <= 10; i++) {
      g.release();
      await until(() => g.upstream.requests.length === Math.min(i + 2, 11));
    }
    await answered(raw, (text) => text.split('HTTP/1.1 200').length === 11);
    expect(g.upstream.requests.map((r) => r.url).filter((u) => u !== '/v1/spaces/s99')).toEqual(
      Array.from({ length: 10 }, (_, i) => `/v1/spaces/s${i}`),
    );
    raw.socket.destroy();
    other.socket.destroy();
  });

  it('a large body waiting behind the one running closes the connection: the bodies budget counts it only once it runs', async () => {
    await using g = await holdingGateway();
    const raw = await openTo(g.to);
    const body = JSON.stringify({ query: `{ space(spaceId: "s1") { title } ${' '.repeat(20_000)}}` });
    raw.socket.write(
      g.request(0) +
        `POST /graphql HTTP/1.1\r\nHost: ${g.to.host}\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    await raw.closed;
    await g.onlyTheFirstRan();
  });

  it('one read holding more requests than may wait is cut there: node:http makes no request object for the rest', async () => {
    // 3,640 `GET /` without a Host in one 64 KiB write: node:http answers them itself (400), so no
    // listener of ours sees one, and it made a request and a response for each before closing.
    // 60 connections of this (3.9 MB, no token) ran `npm start`'s heap out.
    let started = 0;
    const count = () => void started++;
    subscribe('http.server.request.start', count);
    try {
      for (const one of ['GET / HTTP/1.1\r\n\r\n', `GET /nothing-here HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`]) {
        started = 0;
        const raw = await open();
        raw.socket.write(one.repeat(Math.floor(65_536 / one.length)));
        await raw.closed;
        expect(started).toBeGreaterThan(0);
        expect(started).toBeLessThanOrEqual(MAX_PIPELINED + 1);
      }
    } finally {
      unsubscribe('http.server.request.start', count);
    }
    // The server goes on.
    expect((await fetch(new URL('/health', url))).status).toBe(200);
  });

  it(`past ${MAX_PIPELINED} waiting behind the one running, the connection is closed and no more of them run`, async () => {
    await using g = await holdingGateway();
    const raw = await openTo(g.to);
    // 300 small queries in one write ran 300 operations at once: 100 such connections (10 MB)
    // ran a gateway with a 128 MB heap out of memory. Sent here in writes of 10 (each within what
    // one read may hold: the test above), the first running, so that the queue's own bound closes it.
    raw.socket.write(Array.from({ length: 10 }, (_, i) => g.request(i)).join(''));
    await until(() => g.upstream.requests.length === 1);
    for (let from = 10; from < 300 && !raw.socket.destroyed; from += 10)
      raw.socket.write(Array.from({ length: 10 }, (_, i) => g.request(from + i)).join(''));
    await raw.closed;
    await g.onlyTheFirstRan();
  });
});

describe('a connection the server cannot accept', () => {
  /** The process's listening server on `port` (a test reaches it as node:http's accept would). */
  const serverOn = (port: number): Server =>
    (process as unknown as { _getActiveHandles(): unknown[] })
      ._getActiveHandles()
      .find((h): h is Server => h instanceof Server && (h.address() as AddressInfo | null)?.port === port)!;

  it('is a warning at most once a minute, not the end of the process: the gateway and the REST API answer on', async () => {
    // libuv gives up on EMFILE once its reserved descriptor is spent; ENOBUFS and ENOMEM come under memory pressure.
    const accept = (code: string) => Object.assign(new Error(`accept ${code}`), { code, errno: -1, syscall: 'accept' });
    const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
    const log = { ...silentLogger, warn: (msg: string, fields?: Record<string, unknown>) => void warnings.push([msg, fields]) };
    const upstream = buildUpstream({ db: ':memory:', acceptFailed: acceptWarnings(log, 'REST API') });
    const gateway = buildGateway({ upstreamUrl: await upstream.start(), port: 0, log });
    try {
      const gatewayUrl = new URL(await gateway.start());
      for (const [port, health] of [
        [Number(gatewayUrl.port), `${gatewayUrl.origin}/health`],
        [Number(new URL(upstream.origin).port), `${upstream.origin}/v1/`],
      ] as const) {
        // Before: the listen's own `error` listener took the first; the second, unheard, was thrown.
        for (const code of ['ENOBUFS', 'EMFILE', 'ENOMEM']) serverOn(port).emit('error', accept(code));
        expect((await fetch(health)).status).toBeLessThan(500);
      }
      expect(warnings).toEqual([
        [expect.stringMatching(/^gateway: a connection could not be accepted/), { error: 'ENOBUFS' }],
        [expect.stringMatching(/^REST API: a connection could not be accepted/), { error: 'ENOBUFS' }],
      ]);
    } finally {
      await gateway.stop();
      await upstream.stop();
    }
  });
});
