/**
 * Graceful shutdown's bookkeeping (src/shutdown.ts), over real HTTP: the connections it tracks are
 * the open ones, whatever order their requests and sockets close in.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drainable } from '../src/shutdown.js';
import { until } from './helpers/clock.js';

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
