/**
 * Graceful shutdown's bookkeeping (src/shutdown.ts), over real HTTP: the connections it tracks are
 * the open ones, whatever order their requests and sockets close in; and what a gateway's clients
 * get when it stops with their operations' REST calls still out.
 */
import { Agent, createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildGateway } from '../src/gateway/app.js';
import type { Logger } from '../src/log.js';
import { drainable } from '../src/shutdown.js';
import { json, startBadServer } from './helpers/badServer.js';
import { until } from './helpers/clock.js';
import type { GqlResult } from './helpers/gateway.js';

const silentLog: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

const servers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!();
});

describe('drainable', () => {
  it('forgets the connection of a request whose client left before its response (none kept per abandoned request)', async () => {
    const held: ServerResponse[] = [];
    const server = createServer((_req, res) => void held.push(res));
    const drainer = drainable(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(() => drainer.close(0));
    const { port } = server.address() as AddressInfo;
    for (let i = 1; i <= 5; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write('POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}');
      await until(() => held.length === i);
      const closed = new Promise((resolve) => held[i - 1].once('close', resolve));
      socket.destroy();
      await closed;
    }
    expect(drainer.connections()).toBe(0);
  });

  it('still counts a connection whose response is written, and closes it once idle when draining', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    const drainer = drainable(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    const answered = new Promise((resolve) => socket.once('data', resolve));
    const ended = new Promise((resolve) => socket.once('close', resolve));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await answered;
    expect(drainer.connections()).toBe(1);
    await drainer.close(0);
    await ended;
    expect(drainer.connections()).toBe(0);
  });
});

describe('a gateway stopping with REST calls out past its grace', () => {
  it('answers their operations (a write "may have been made") instead of destroying their connections', async () => {
    const upstream = await startBadServer();
    upstream.fallback = () => undefined; // never answers
    const gateway = buildGateway({ upstreamUrl: upstream.url, log: silentLog, logLevel: 'error' });
    const url = await gateway.start();
    servers.push(() => upstream.stop());
    const post = (query: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer gb_api_shutdown' },
        body: JSON.stringify({ query }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as GqlResult }));
    const write = post('mutation { createSpace(input: { organizationId: "org1", title: "t" }) { space { id } } }');
    const read = post('{ space(spaceId: "s1") { title } }');
    await until(
      () => upstream.requests.some((r) => r.method === 'POST') && upstream.requests.some((r) => r.url.startsWith('/v1/spaces/s1')),
    );
    // The upstream never answers: only the grace's end settles these two.
    await gateway.stop(10);
    const [written, got] = await Promise.all([write, read]);
    expect(written.status).toBe(200);
    expect(written.body.errors?.[0]?.message).toBe('Upstream unavailable: the gateway is stopping; the write may have been made');
    expect(written.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(got.body.errors?.[0]?.message).toBe('Upstream unavailable: the gateway is stopping');
    expect(got.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    // The write was sent once, and not again.
    expect(upstream.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});

describe('a gateway stopping with a request in flight', () => {
  it('answers it with `Connection: close`, so a keep-alive client sends nothing more on a connection about to close', async () => {
    const upstream = await startBadServer();
    const held: Array<() => void> = [];
    upstream.fallback = (req, res) => void held.push(() => json(200, { id: 's1', title: 'T' })(req, res));
    const gateway = buildGateway({ upstreamUrl: upstream.url, log: silentLog, logLevel: 'error' });
    const url = new URL(await gateway.start());
    servers.push(() => upstream.stop());
    const agent = new Agent({ keepAlive: true });
    const answered = new Promise<{ connection?: string; body: string }>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: '/graphql', method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk));
          res.on('end', () => resolve({ connection: res.headers.connection, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ query: '{ space(spaceId: "s1") { title } }' }));
    });
    await until(() => held.length === 1);
    const stopped = gateway.stop(24 * 60 * 60 * 1000);
    held[0]();
    const { connection, body } = await answered;
    expect(JSON.parse(body)).toMatchObject({ data: { space: { title: 'T' } } });
    expect(connection).toBe('close');
    await stopped;
    agent.destroy();
  });
});
