/**
 * The example app's HTTP server (scripts/appServer.mjs) alone, without its build or Chromium
 * (app.test.ts runs the whole `npm run app`): listening on a loopback port, over real HTTP, with
 * the gateway's local-visit rule and server bounds from src/, in front of a stand-in gateway that
 * records what reaches it.
 */
import { existsSync, mkdirSync, readdirSync, readlinkSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request as get } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { appBounds, appServer, type AppServerOptions, type AppState } from '../../scripts/appServer.mjs';
import { DEFAULTS } from '../../src/config.js';
import { isLocalVisit } from '../../src/gateway/lib/localVisit.js';
import { PAGE_HEADERS } from '../../src/gateway/lib/pageHeaders.js';
import { boundHttpServer } from '../../src/serverBounds.js';
import { until } from '../helpers/clock.js';
import { sendRaw } from '../helpers/httpStack.js';
import { PROXY_HEADER_NAMES } from '../helpers/proxyHeaders.js';

const TOKEN = 'demo-token-123';

/** The app server on a free loopback port (bounds of `npm run app` unless given), serving a folder with an index.html; closed by `await using`. */
async function startApp(options: Partial<AppServerOptions> = {}, state: Partial<AppState> = {}) {
  const files = mkdtempSync(join(tmpdir(), 'docs-graph-app-'));
  writeFileSync(join(files, 'index.html'), '<div id="root"></div>');
  const server = appServer(
    { files, isLocalVisit, pageHeaders: PAGE_HEADERS, boundHttpServer, bounds: appBounds(DEFAULTS.http), ...options },
    { gateway: null, demoToken: TOKEN, ...state },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    files,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(files, { recursive: true, force: true });
    },
  };
}

/** GET `path` with node:http (the path as written, any `Host`), from `localAddress`, or POST `body`: status and body. */
function fetchRaw(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  localAddress = '127.0.0.1',
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) =>
    get({ host: '127.0.0.1', port, path, headers, localAddress, method: body === undefined ? 'GET' : 'POST' }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk)).on('end', () => resolve({ status: res.statusCode!, body }));
    })
      .on('error', reject)
      .end(body),
  );
}

/**
 * A stand-in for the gateway on a loopback port: records each request's target as it arrives, and
 * answers `{"data":{"path": <target>}}` once its body is in. `maxConnectionsPerAddress`: the
 * gateway's cap (src/serverBounds.ts), past which a new connection is closed unanswered.
 */
async function startGateway(maxConnectionsPerAddress = 0) {
  const seen: string[] = [];
  const forwardedFor: Array<string | undefined> = [];
  const arrivals: Array<() => void> = [];
  const server = createServer((req, res) => {
    seen.push(req.url!);
    forwardedFor.push(req.headers['x-forwarded-for'] as string | undefined);
    arrivals.splice(0).forEach((arrived) => arrived());
    req
      .resume()
      .on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { path: req.url } })));
  });
  boundHttpServer(server, { headersTimeoutMs: 10_000, requestTimeoutMs: 20_000, maxConnections: 100, maxConnectionsPerAddress });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    seen,
    /** Each request's `X-Forwarded-For`, in order. */
    forwardedFor,
    /** Resolves when the next request reaches it. */
    nextRequest: () => new Promise<void>((resolve) => arrivals.push(resolve)),
    address: { host: `127.0.0.1:${port}`, hostname: '127.0.0.1', port: String(port) },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const sessionToken = async (port: number, headers: Record<string, string> = {}, localAddress?: string) =>
  (JSON.parse((await fetchRaw(port, '/session.json', headers, localAddress)).body) as { token: string | null }).token;

describe('/session.json', () => {
  it("names the demo token to a direct visit from this machine, judged on the socket's peer address", async () => {
    const rule = vi.fn(isLocalVisit);
    await using app = await startApp({ isLocalVisit: rule });
    expect(await sessionToken(app.port, {}, '127.0.0.2')).toBe(TOKEN);
    expect(rule).toHaveBeenCalledWith(expect.objectContaining({ remoteAddress: '127.0.0.2', httpVersion: '1.1' }));
  });

  it('names no token to a request carrying a client-address header of other proxies and CDNs', async () => {
    await using app = await startApp();
    for (const name of PROXY_HEADER_NAMES) expect([name, await sessionToken(app.port, { [name]: '203.0.113.7' })]).toEqual([name, null]);
  });

  it("names no token over HTTP/1.0: nginx's default proxy_pass (Host 127.0.0.1:port, Connection: close, no proxy header)", async () => {
    await using app = await startApp();
    const session = async (version: string) => {
      const answer = await sendRaw(
        app.port,
        `GET /session.json HTTP/${version}\r\nHost: 127.0.0.1:${app.port}\r\nConnection: close\r\n\r\n`,
      );
      // The body is chunked over HTTP/1.1: the token is read from its JSON text.
      return [answer.match(/^HTTP\/1\.1 (\d+)/)?.[1], JSON.parse(answer.match(/\{"token":(null|"[^"]*")\}/)![1])];
    };
    expect(await session('1.0')).toEqual(['200', null]);
    // The same request over HTTP/1.1, as a browser sends it, gets the token.
    expect(await session('1.1')).toEqual(['200', TOKEN]);
  });
});

/** This process's open descriptors of `file` (the app server runs in it), from /proc (Linux). */
const openDescriptors = (file: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false; // closed meanwhile (readdirSync's own descriptor among them)
    }
  }).length;

describe('the page', () => {
  it("says GraphiQL's headers: no other site may frame it, no sniffing, no referrer, no copy kept", async () => {
    await using app = await startApp();
    mkdirSync(join(app.files, 'assets'));
    writeFileSync(join(app.files, 'assets', 'index-abc.js'), '');
    const headers = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${app.port}${path}`);
      await res.arrayBuffer();
      const names = ['content-security-policy', 'x-frame-options', 'x-content-type-options', 'referrer-policy', 'cache-control'];
      return [path, res.status, ...names.map((name) => res.headers.get(name))];
    };
    // Before: none of these, and another site's frame of the app was given the demo admin's token
    // by /session.json (the frame's fetch is same-origin): a page one click from posting as admin.
    for (const path of ['/', '/index.html'])
      expect(await headers(path)).toEqual([path, 200, "frame-ancestors 'none'", 'DENY', 'nosniff', 'no-referrer', 'no-store']);
    // The hashed assets are still kept for good.
    expect(await headers('/assets/index-abc.js')).toEqual([
      '/assets/index-abc.js',
      200,
      null,
      null,
      null,
      null,
      'public, max-age=31536000, immutable',
    ]);
  });
});

describe.runIf(existsSync('/proc/self/fd'))('static files', () => {
  it('a client that leaves mid-file leaves no file open', async () => {
    await using app = await startApp();
    mkdirSync(join(app.files, 'assets'));
    // Larger than the socket buffers: the server is still writing it when the client leaves.
    const file = join(app.files, 'assets', 'index-abc.js');
    writeFileSync(file, 'x'.repeat(4 * 1024 * 1024));
    const left = Array.from(
      { length: 20 },
      () =>
        new Promise<void>((resolve) => {
          const socket = connect({ port: app.port, host: '127.0.0.1' }, () =>
            socket.write(`GET /assets/index-abc.js HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\n\r\n`),
          );
          socket.once('data', () => socket.destroy()).once('close', () => resolve());
        }),
    );
    await Promise.all(left);
    // Before: each download left its file open for good (2,000 of them held 2,000 descriptors; at
    // the process's limit the next open's EMFILE was an unhandled 'error' and the app server exited).
    await until(() => openDescriptors(file) === 0);
    const whole = await fetchRaw(app.port, '/assets/index-abc.js');
    expect([whole.status, whole.body.length]).toEqual([200, 4 * 1024 * 1024]);
    // A whole download closes its file too (once the stream has ended: a moment after the last byte).
    await until(() => openDescriptors(file) === 0);
  });
});

describe('the proxy', () => {
  it('forwards /graphql and /graphql/stream only, by their resolved path: dot segments, %2e and backslashes reach no other gateway path', async () => {
    await using gateway = await startGateway();
    await using app = await startApp({}, { gateway: gateway.address });
    for (const path of [
      '/graphql/../metrics',
      '/graphql/stream/../../metrics',
      '/graphql/../ready',
      '/graphql/%2e%2e/metrics',
      '/graphql/%2E%2E/ready',
      '/graphql/.%2e/metrics',
      '/graphql\\..\\metrics',
      '/graphql/..\\health',
      '/graphql/graphiql/../../metrics',
      '/graphql/..%2fmetrics',
      '/graphql/',
      '/graphql/stream/x',
      '/graphqlx',
    ])
      expect([path, (await fetchRaw(app.port, path)).status]).toEqual([path, 404]);
    expect(gateway.seen).toEqual([]);

    const resolved = [
      ['/graphql?documentId=a', '/graphql?documentId=a'],
      ['/graphql/stream', '/graphql/stream'],
      ['/graphql/./stream', '/graphql/stream'],
      ['/graphql/%2e/stream?x=1', '/graphql/stream?x=1'],
      ['/x/../graphql?documentId=b', '/graphql?documentId=b'],
      ['/graphql/stream/..\\stream', '/graphql/stream'],
    ];
    for (const [path, forwarded] of resolved) {
      const answer = await fetchRaw(app.port, path);
      expect([path, answer.status, JSON.parse(answer.body).data.path]).toEqual([path, 200, forwarded]);
    }
    expect(gateway.seen).toEqual(resolved.map(([, forwarded]) => forwarded));
  });

  it("appends the page's address to X-Forwarded-For, as a reverse proxy does: a client cannot pick the address a trusting gateway counts it by", async () => {
    await using gateway = await startGateway();
    await using app = await startApp({}, { gateway: gateway.address });
    expect((await fetchRaw(app.port, '/graphql?documentId=a', {}, '127.0.0.3')).status).toBe(200);
    expect((await fetchRaw(app.port, '/graphql?documentId=a', { 'x-forwarded-for': '203.0.113.7' }, '127.0.0.4')).status).toBe(200);
    expect(gateway.forwardedFor).toEqual(['127.0.0.3', '203.0.113.7, 127.0.0.4']);
  });

  it("cuts the page's response when the gateway's answer is cut short (a restart): its client does not wait for the rest", async () => {
    // A gateway that sends its headers and the start of a body, then goes.
    const cutting = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', ...(req.url!.includes('length') ? { 'content-length': '100' } : {}) });
      res.write('{"data":', () => res.socket!.destroy());
    });
    await new Promise<void>((resolve) => cutting.listen(0, '127.0.0.1', resolve));
    const port = String((cutting.address() as AddressInfo).port);
    await using app = await startApp({}, { gateway: { host: `127.0.0.1:${port}`, hostname: '127.0.0.1', port } });
    try {
      for (const path of ['/graphql?documentId=chunked', '/graphql?documentId=length']) {
        // Before: the page's response stayed open after its first bytes, until its client gave up.
        const outcome = await new Promise<string>((resolve) =>
          get({ host: '127.0.0.1', port: app.port, path }, (res) => {
            let body = '';
            res
              .on('data', (chunk) => (body += chunk))
              .on('end', () => resolve(`ended: ${body}`))
              .on('error', () => resolve(`cut: ${body}`));
          })
            .on('error', (error) => resolve(`failed: ${error.message}`))
            .end(),
        );
        expect([path, outcome]).toEqual([path, 'cut: {"data":']);
      }
    } finally {
      cutting.closeAllConnections();
      await new Promise((resolve) => cutting.close(resolve));
    }
  });
});

describe("the app server's bounds", () => {
  /**
   * Opens a connection from `localAddress` and sends a POST to /graphql whose body never finishes;
   * resolves with what became of it: `proxied` (the gateway got it), the status the app answered,
   * or `closed` (unanswered).
   */
  async function slowPost(port: number, localAddress: string, gateway: { nextRequest(): Promise<void> }, sockets: Socket[]) {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    sockets.push(socket);
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1'))).on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    const answered = new Promise<string>((resolve) => {
      const check = () => {
        const status = received.match(/^HTTP\/1\.1 (\d+)[^]*\r\n\r\n/)?.[1];
        if (status) resolve(status);
      };
      socket.on('data', check).once('close', () => resolve(received ? received.slice(0, 12) : 'closed'));
    });
    const proxied = gateway.nextRequest().then(() => 'proxied');
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"documentId":`,
    );
    return { outcome: await Promise.race([proxied, answered]), received: () => received };
  }

  it("a client pipelining requests on one connection takes no more of the proxy than its address's share", async () => {
    // A stand-in gateway that holds every request: what the app proxied stays in flight.
    const held: Array<{ url: string; answer: () => void }> = [];
    const holding = createServer((req, res) => {
      held.push({ url: req.url!, answer: () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}') });
    });
    await new Promise<void>((resolve) => holding.listen(0, '127.0.0.1', resolve));
    const gatewayPort = String((holding.address() as AddressInfo).port);
    const bounds = { headersTimeoutMs: 10_000, requestTimeoutMs: 20_000, maxConnections: 50, maxConnectionsPerAddress: 3, maxProxied: 5 };
    await using app = await startApp(
      { bounds },
      { gateway: { host: `127.0.0.1:${gatewayPort}`, hostname: '127.0.0.1', port: gatewayPort } },
    );
    const socket = connect({ port: app.port, host: '127.0.0.1', localAddress: '127.0.0.2' });
    try {
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1'))).on('error', () => undefined);
      await new Promise((resolve) => socket.once('connect', resolve));
      // Before: node:http ran all 5 at once, each was proxied, and the proxy was full for everyone.
      socket.write([1, 2, 3, 4, 5].map((i) => `GET /graphql?documentId=${i} HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\n\r\n`).join(''));
      await until(() => held.length >= 3);
      let otherAnswered = false;
      const other = fetchRaw(app.port, '/graphql?documentId=other', {}, '127.0.0.3').finally(() => (otherAnswered = true));
      await until(() => otherAnswered || held.some((h) => h.url.endsWith('other')));
      expect(held.map((h) => h.url)).toEqual([
        '/graphql?documentId=1',
        '/graphql?documentId=2',
        '/graphql?documentId=3',
        '/graphql?documentId=other',
      ]);
      held[3].answer();
      expect((await other).status).toBe(200);
      // The pipelining client's own requests past its share are refused (its answers come in order).
      for (const h of held.slice(0, 3)) h.answer();
      await until(() => (received.match(/^HTTP\/1\.1 \d+/gm) ?? []).length >= 4);
      expect(received.match(/^HTTP\/1\.1 \d+/gm)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 503']);
    } finally {
      socket.destroy();
      holding.closeAllConnections();
      await new Promise((resolve) => holding.close(resolve));
    }
  });

  it("a client holding slow bodies takes neither the gateway's per-address cap nor the proxy's: another client is answered", async () => {
    // The gateway caps 6 connections per address; the app holds 3 per client and proxies 5 at once.
    await using gateway = await startGateway(6);
    const bounds = { headersTimeoutMs: 10_000, requestTimeoutMs: 20_000, maxConnections: 50, maxConnectionsPerAddress: 3, maxProxied: 5 };
    await using app = await startApp({ bounds }, { gateway: gateway.address });
    const sockets: Socket[] = [];
    try {
      // Before: all 8 were proxied, the gateway took 6 and closed the rest (502), and so every other app user's too.
      const first: string[] = [];
      for (let i = 0; i < 8; i++) first.push((await slowPost(app.port, '127.0.0.2', gateway, sockets)).outcome);
      expect(first).toEqual([...Array(3).fill('proxied'), ...Array(5).fill('closed')]);

      const other = await fetchRaw(app.port, '/graphql', { 'content-type': 'application/json' }, '127.0.0.3', '{"documentId":"a"}');
      expect([other.status, JSON.parse(other.body)]).toEqual([200, { data: { path: '/graphql' } }]);

      // A second client fills the proxy (5 in flight): the next request is refused at once, not queued.
      const second: string[] = [];
      const refused = [];
      for (let i = 0; i < 3; i++) {
        const post = await slowPost(app.port, '127.0.0.4', gateway, sockets);
        second.push(post.outcome);
        if (post.outcome === '503') refused.push(post.received());
      }
      expect(second).toEqual(['proxied', 'proxied', '503']);
      expect(JSON.parse(refused[0].slice(refused[0].indexOf('\r\n\r\n') + 4))).toEqual({
        errors: [{ message: expect.any(String), extensions: { code: 'UPSTREAM_UNAVAILABLE' } }],
      });
      // The proxy stays under the gateway's per-address cap: a client of the gateway on this machine is still served.
      const direct = await fetchRaw(Number(gateway.address.port), '/graphql', {}, '127.0.0.1', '{}');
      expect(direct.status).toBe(200);
      expect(gateway.seen.length).toBe(3 + 1 + 2 + 1);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});
