/**
 * The example app's HTTP server (scripts/appServer.mjs) alone, without its build or Chromium
 * (app.test.ts runs the whole `npm run app`): listening on a loopback port, over real HTTP, with
 * the gateway's local-visit rule from src/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { appServer, type AppServerOptions, type AppState } from '../../scripts/appServer.mjs';
import { isLocalVisit } from '../../src/gateway/lib/localVisit.js';
import { sendRaw } from '../helpers/httpStack.js';

const TOKEN = 'demo-token-123';

/** The app server on a free loopback port, serving a folder with an index.html; closed by `await using`. */
async function startApp(options: Partial<AppServerOptions> = {}, state: Partial<AppState> = {}) {
  const files = mkdtempSync(join(tmpdir(), 'docs-graph-app-'));
  writeFileSync(join(files, 'index.html'), '<div id="root"></div>');
  const server = appServer({ files, isLocalVisit, ...options }, { gateway: null, demoToken: TOKEN, ...state });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(files, { recursive: true, force: true });
    },
  };
}

/** GET `path` with node:http (the path as written, any `Host`), from `localAddress`: status and body. */
function fetchRaw(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  localAddress = '127.0.0.1',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) =>
    get({ host: '127.0.0.1', port, path, headers, localAddress }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk)).on('end', () => resolve({ status: res.statusCode!, body }));
    })
      .on('error', reject)
      .end(),
  );
}

/**
 * A stand-in for the gateway on a loopback port: records each request's target as it arrives, and
 * answers `{"data":{"path": <target>}}` once its body is in.
 */
async function startGateway() {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url!);
    req
      .resume()
      .on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { path: req.url } })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    seen,
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
    for (const name of [
      'true-client-ip',
      'cf-connecting-ip',
      'x-client-ip',
      'client-ip',
      'x-forwarded',
      'x-envoy-external-address',
      'fastly-client-ip',
      'x-cluster-client-ip',
    ])
      expect([name, await sessionToken(app.port, { [name]: '203.0.113.7' })]).toEqual([name, null]);
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
});
