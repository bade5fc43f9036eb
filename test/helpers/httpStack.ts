/**
 * A stack (startStack) whose gateway listens on a loopback port, for one test file: started
 * before its tests and stopped after them. `post` sends a GraphQL request over real HTTP with
 * the given `Authorization` (none when absent).
 */
import dc from 'node:diagnostics_channel';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { startStack, type GqlResult, type TestStack } from './gateway.js';

export interface HttpStack {
  readonly t: TestStack;
  readonly url: string;
  post(body: unknown, authorization?: string): Promise<{ status: number; result: GqlResult }>;
}

export function httpStack(): HttpStack {
  let t: TestStack | undefined;
  let url = '';
  beforeAll(async () => {
    t = await startStack();
    url = await t.gateway.start();
  });
  afterAll(() => t?.stop());
  return {
    get t() {
      return t!;
    },
    get url() {
      return url;
    },
    async post(body, authorization) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify(body),
      });
      return { status: res.status, result: (await res.json()) as GqlResult };
    },
  };
}

/**
 * What the server on `port` (in this process) read of each connection it accepted while `during`
 * ran: its sockets' `bytesRead`, seen through the `net.server.socket` diagnostics channel.
 */
export async function bytesReadBy(port: number, during: () => Promise<void>): Promise<number[]> {
  const sockets: Socket[] = [];
  const onSocket = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    if (socket.localPort === port) sockets.push(socket);
  };
  dc.subscribe('net.server.socket', onSocket);
  try {
    await during();
  } finally {
    dc.unsubscribe('net.server.socket', onSocket);
  }
  return sockets.map((s) => s.bytesRead);
}

/** A request's bytes sent at once on a new connection to `port`: what the connection received until it closed. */
export async function sendRaw(port: number, request: Buffer | string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  const closed = new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (d) => void (text += String(d)));
    socket.on('close', () => resolve(text));
    socket.on('error', () => undefined);
  });
  socket.write(request);
  return closed;
}
