import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { startSwitchProxy, type SwitchProxy } from '../helpers/switchProxy.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let upstream: TestUpstream;
let proxy: SwitchProxy;
let gateway: Gateway;
let redisUp = true;

beforeAll(async () => {
  upstream = await startUpstream();
  proxy = await startSwitchProxy(upstream.url);
  gateway = buildGateway({
    upstreamUrl: proxy.url,
    readyChecks: [{ name: 'redis', check: async () => redisUp }],
  });
});

afterAll(async () => {
  await gateway.stop();
  await proxy.stop();
  await upstream.stop();
});

const get = (path: string) => gateway.yoga.fetch(`http://gateway.test${path}`);

/** Polls /ready until it answers `status`; fails when that takes longer than `withinMs` or one answer takes over 2.5 s. */
async function readyBecomes(status: number, withinMs: number) {
  const started = performance.now();
  for (;;) {
    const asked = performance.now();
    const res = await get('/ready');
    expect(performance.now() - asked).toBeLessThan(2500);
    if (res.status === status) return (await res.json()) as { status: string; checks: Record<string, string> };
    expect(performance.now() - started).toBeLessThan(withinMs);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('GET /health and GET /ready', () => {
  it('/health answers 200 while the process is up, whatever the upstream does', async () => {
    expect((await get('/health')).status).toBe(200);
    proxy.mode = 'hang';
    try {
      expect((await get('/health')).status).toBe(200);
    } finally {
      proxy.mode = 'pass';
    }
  });

  it('/ready is 200 while the upstream answers, 503 within 5 s of it hanging, 200 again after', async () => {
    expect(await readyBecomes(200, 5000)).toEqual({ status: 'ready', checks: { upstream: 'ok', redis: 'ok' } });
    proxy.mode = 'hang';
    expect(await readyBecomes(503, 5000)).toEqual({ status: 'unavailable', checks: { upstream: 'failing', redis: 'ok' } });
    proxy.mode = 'pass';
    await readyBecomes(200, 5000);
  });

  it('/ready is 503 within 5 s of the upstream going away, 200 again when it is back', async () => {
    await proxy.goAway();
    try {
      expect((await readyBecomes(503, 5000)).checks.upstream).toBe('failing');
    } finally {
      await proxy.comeBack();
    }
    await readyBecomes(200, 5000);
  });

  it('/ready is 503 when any named check fails', async () => {
    redisUp = false;
    try {
      expect(await readyBecomes(503, 5000)).toEqual({ status: 'unavailable', checks: { upstream: 'ok', redis: 'failing' } });
    } finally {
      redisUp = true;
    }
    await readyBecomes(200, 5000);
  });

  it('load balancers polling /ready often cost the upstream about one call per second', async () => {
    await readyBecomes(200, 5000);
    const before = proxy.requests.length;
    await Promise.all(Array.from({ length: 50 }, async () => get('/ready')));
    expect(proxy.requests.length - before).toBeLessThanOrEqual(1);
  });

  it('the probe is a GET of /user without credentials', async () => {
    const probe = proxy.requests.at(-1);
    expect(probe).toMatchObject({ method: 'GET', url: '/v1/user' });
    expect(probe?.headers.authorization).toBeUndefined();
  });
});
