/**
 * A REST request's signal (aborted when its client leaves or the server stops) leaves nothing in
 * the server's shutdown signal once the request is over. It was `AbortSignal.any([own, shutdown])`,
 * and Node 20 keeps a WeakRef to each signal `any` made in its sources for as long as they live:
 * 50 bytes per request for good (120,000 REST calls grew `npm start`'s heap by 6 MB, without end).
 * The same for the fetch of an OpenAPI source (`fetchSourceText`), linked to the shutdown signal too.
 */
import { getEventListeners } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { RequestContext } from '../../src/upstream/context.js';
import { fetchSourceText } from '../../src/upstream/openapi/fetchSource.js';
import { until } from '../helpers/clock.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let running: TestUpstream | undefined;
afterEach(() => running?.stop());

/** What Node keeps of the signals AbortSignal.any made from `signal` (its own bookkeeping, which no public API reads). */
function dependants(signal: AbortSignal): number {
  const key = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kDependantSignals');
  return key === undefined ? 0 : ((signal as unknown as Record<symbol, Set<unknown> | undefined>)[key]?.size ?? 0);
}

it('keeps nothing of a finished request in the shutdown signal, and still aborts one in flight when the server stops', async () => {
  const t = (running = await startUpstream());
  const contexts: RequestContext[] = [];
  t.upstream.router.get('/test/signal', (ctx) => void contexts.push(ctx), { anonymous: true });
  t.upstream.router.get(
    '/test/held',
    (ctx) => new Promise((resolve) => (contexts.push(ctx), ctx.signal.addEventListener('abort', resolve))),
    {
      anonymous: true,
    },
  );
  for (let i = 0; i < 50; i++) expect((await fetch(`${t.url}/test/signal`)).status).toBe(204);
  const shutdown = contexts[0].services.shutdown;
  expect(dependants(shutdown)).toBe(0);
  expect(getEventListeners(shutdown, 'abort')).toHaveLength(0);

  const held = fetch(`${t.url}/test/held`).catch(() => undefined);
  await until(() => contexts.length === 51);
  expect(contexts[50].signal.aborted).toBe(false);
  expect(getEventListeners(shutdown, 'abort')).toHaveLength(1);
  running = undefined;
  await t.stop();
  expect(contexts[50].signal.aborted).toBe(true);
  await held;
  expect(getEventListeners(shutdown, 'abort')).toHaveLength(0);
});

it('keeps nothing of a finished OpenAPI fetch in the shutdown signal, and still aborts one in flight when it aborts', async () => {
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    if (req.url === '/held') return void held.push(res);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"openapi":"3.0.0"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const shutdown = new AbortController();
  const options = { timeoutMs: 60_000, signal: shutdown.signal, allow: () => true };
  try {
    for (let i = 0; i < 30; i++) expect(await fetchSourceText(`${base}/spec.json`, options)).toBe('{"openapi":"3.0.0"}');
    // Before: 30 (AbortSignal.any's bookkeeping in the shutdown signal).
    expect(dependants(shutdown.signal)).toBe(0);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
    const pending = fetchSourceText(`${base}/held`, options);
    await until(() => held.length === 1);
    shutdown.abort();
    await expect(pending).rejects.toThrow();
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  } finally {
    held.forEach((res) => res.destroy());
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
