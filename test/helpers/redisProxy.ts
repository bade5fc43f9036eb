/**
 * A TCP proxy on 127.0.0.1 (port 0) in front of a real Redis, for tests of what the gateway does
 * when the wire misbehaves where Redis itself would not: a connection that stops being read and
 * answered without ever being closed (a proxy or firewall that dropped it silently), a reply
 * far larger than any the gateway stores, and a reply of the test's own bytes.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface HugeReply {
  /** Bytes of it sent so far. */
  sent(): number;
  /** Whether the gateway closed the connection it was sent on. */
  closed(): boolean;
}

export interface RedisProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  /** Connections passed on so far (each of the gateway's connections and reconnections). */
  connections(): number;
  /** The connections open now are neither read nor answered again, and stay open; new ones are passed on. */
  wedge(): void;
  /**
   * The next command on any connection gets, in place of Redis's reply, a bulk string of `bytes`
   * bytes, sent as fast as the gateway reads it.
   */
  answerHuge(bytes: number): HugeReply;
  /** The next command on any connection gets `reply` (raw RESP) in place of Redis's. */
  answer(reply: string): void;
  stop(): Promise<void>;
}

export async function startRedisProxy(redisPort: number): Promise<RedisProxy> {
  const open = new Set<Socket>();
  let accepted = 0;
  let huge: { bytes: number; sent: number; closed: boolean } | undefined;
  let raw: string | undefined;

  const server = createServer((client) => {
    accepted++;
    const redis = connect(redisPort, '127.0.0.1');
    open.add(client);
    const end = () => {
      open.delete(client);
      client.destroy();
      redis.destroy();
    };
    client.on('error', end).on('close', end);
    redis.on('error', end).on('close', end);
    redis.on('data', (data) => client.write(data));
    client.on('data', (data) => {
      if (raw !== undefined) {
        client.write(raw);
        raw = undefined;
        return;
      }
      const reply = huge;
      if (!reply) return void redis.write(data);
      huge = undefined;
      client.once('close', () => void (reply.closed = true));
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      client.write(`$${reply.bytes}\r\n`);
      const pump = () => {
        while (reply.sent < reply.bytes && !client.destroyed) {
          const part = chunk.subarray(0, Math.min(chunk.length, reply.bytes - reply.sent));
          reply.sent += part.length;
          if (!client.write(part)) return void client.once('drain', pump);
        }
        if (!client.destroyed) client.write('\r\n');
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    connections: () => accepted,
    wedge() {
      for (const client of open) {
        client.removeAllListeners('data');
        client.pause();
      }
    },
    answerHuge(bytes) {
      const reply = { bytes, sent: 0, closed: false };
      huge = reply;
      return { sent: () => reply.sent, closed: () => reply.closed };
    },
    answer(reply) {
      raw = reply;
    },
    async stop() {
      for (const client of open) client.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
