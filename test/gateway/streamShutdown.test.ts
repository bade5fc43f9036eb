/**
 * Event streams whose client left (src/gateway/plugins/useStreamShutdown.ts): the copy that lets
 * a stop end open streams is itself ended with its HTTP response, read or not, and a stop after
 * such a request completes. The Fetch API is the server adapter's own (whatwg-node's ponyfill,
 * whose ReadableStream starts on its first read, not when it is made).
 */
import { EventEmitter } from 'node:events';
import { connect } from 'node:net';
import { Headers, ReadableStream, Response } from '@whatwg-node/node-fetch';
import { describe, expect, it, vi } from 'vitest';
import { useStreamShutdown } from '../../src/gateway/plugins/useStreamShutdown.js';
import { startStack } from '../helpers/gateway.js';
import { until } from '../helpers/clock.js';

const fetchAPI = { Headers, ReadableStream, Response } as never;

/** An event-stream response as Yoga makes one, handed to the plugin's `onResponse` with `res`. */
function respond(shutdown: ReturnType<typeof useStreamShutdown>, res: EventEmitter & { closed?: boolean }) {
  // An operation that has not sent anything yet.
  const source = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) });
  const response = new Response(source as never, { headers: { 'content-type': 'text/event-stream' } });
  void shutdown.plugin.onResponse!({ response, setResponse: () => undefined, fetchAPI, serverContext: { res } } as never);
}

describe('event streams whose client left', () => {
  it('a stream never read is ended when its response closes: not kept until the gateway stops', async () => {
    const shutdown = useStreamShutdown();
    const res = new EventEmitter();
    respond(shutdown, res);
    expect(shutdown.open()).toBe(1);
    res.emit('close');
    expect(shutdown.open()).toBe(0);
    await shutdown.close(0);
  });

  it('a response already closed when the stream is made ends it at once', () => {
    const shutdown = useStreamShutdown();
    respond(shutdown, Object.assign(new EventEmitter(), { closed: true }));
    expect(shutdown.open()).toBe(0);
  });

  it('a stop with a stream nobody read ends it, without an error', async () => {
    const shutdown = useStreamShutdown();
    respond(shutdown, new EventEmitter());
    await expect(shutdown.close(0)).resolves.toBeUndefined();
    expect(shutdown.open()).toBe(0);
  });

  it.each(['text/event-stream', 'multipart/mixed'])(
    'over HTTP: a %s stream answered to `Connection: close` says so, and its connection ends with it',
    async (accept) => {
      await using s = await startStack();
      const body = JSON.stringify({ query: '{ __typename ... @defer { a: __typename } }' });
      const socket = connect(Number(new URL(s.gateway.url).port), '127.0.0.1');
      let text = '';
      socket.on('data', (d) => void (text += String(d)));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: x\r\nAccept: ${accept}\r\nConnection: close\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await closed;
      const head = text.split('\r\n\r\n')[0];
      // Before: `Connection: keep-alive` (Yoga's, graphql-sse's), and the socket held until the keep-alive timeout.
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      expect(head).toMatch(/\r\nconnection: close(\r\n|$)/i);
      expect(text).toContain('"a":"Query"');
    },
  );

  it('over HTTP: a @defer request over SSE dropped as soon as sent, then the gateway stops cleanly', async () => {
    const s = await startStack();
    let stopping = false;
    try {
      const body = JSON.stringify({
        query: `{ organization(organizationId: "${s.world.orgId}") { title ... @defer { spaces(first: 5) { nodes { id } } } } }`,
      });
      const socket = connect(Number(new URL(s.gateway.url).port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.world.users.admin.token}\r\nAccept: text/event-stream\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        () => socket.destroy(),
      );
      // The deferred part's call is made once the response (and its stream) exists.
      await until(() => s.calls.some((c) => c.path.endsWith('/spaces')));
      stopping = true;
      await expect(s.stop()).resolves.toBeUndefined();
    } finally {
      if (!stopping) await s.stop();
    }
  });
});

describe("subscriptions and the gateway's stop signal", () => {
  /** What Node keeps of the signals AbortSignal.any made from `signal` (its own bookkeeping, which no public API reads). */
  function dependants(signal: AbortSignal): number {
    const key = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kDependantSignals');
    return key === undefined ? 0 : ((signal as unknown as Record<symbol, Set<unknown> | undefined>)[key]?.size ?? 0);
  }

  it('a finished subscription leaves nothing in a signal that outlives it (AbortSignal.any kept 50 bytes per subscription in the stop signal)', async () => {
    await using s = await startStack({}, { askStreamDelayMs: 0 });
    const url = await s.gateway.start();
    const sources = new Set<AbortSignal>();
    const any = AbortSignal.any.bind(AbortSignal);
    const spy = vi.spyOn(AbortSignal, 'any').mockImplementation((signals) => {
      for (const signal of signals) sources.add(signal);
      return any(signals);
    });
    try {
      for (let i = 0; i < 20; i++) {
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'text/event-stream',
            authorization: `Bearer ${s.world.users.admin.token}`,
          },
          body: JSON.stringify({
            query: 'subscription Questions($org: String!) { suggestedQuestionsStream(organizationId: $org) }',
            variables: { org: s.world.orgId },
          }),
        });
        expect(await res.text()).toContain('event: complete');
      }
    } finally {
      spy.mockRestore();
    }
    expect(sources.size).toBeGreaterThan(0);
    // Each signal served one subscription (its request's signal is in two: the subscription's and
    // its REST stream's); none holds an entry per subscription (the stop signal held 20).
    expect(Math.max(...[...sources].map(dependants))).toBeLessThanOrEqual(2);
  });
});
