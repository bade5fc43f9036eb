import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { startSwitchProxy, type SwitchProxy } from '../helpers/switchProxy.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';
import { fakeClock } from '../helpers/clock.js';

let upstream: TestUpstream;
let proxy: SwitchProxy;
let gateway: Gateway;
let redisUp = true;
// The gateway's time (the readiness check's 1 s timeout and 1 s reuse) moves only when a test says so.
const clock = fakeClock();

beforeAll(async () => {
  upstream = await startUpstream();
  proxy = await startSwitchProxy(upstream.url);
  gateway = buildGateway({
    upstreamUrl: proxy.url,
    readyChecks: [{ name: 'redis', check: async () => redisUp }],
    clock,
  });
});

afterAll(async () => {
  await gateway.stop();
  await proxy.stop();
  await upstream.stop();
});

const get = (path: string) => gateway.yoga.fetch(`http://gateway.test${path}`);
const probes = () => proxy.requests.filter((r) => r.url === '/v1/user').length;

/** /ready's answer once the last one's reuse has passed; a hanging check is given its full timeout. */
async function ready() {
  clock.advance(1001);
  const before = probes();
  const answer = get('/ready');
  if (proxy.mode === 'hang') {
    // Once the probe reached the hanging upstream, its timeout passes.
    while (probes() === before) await new Promise((resolve) => setImmediate(resolve));
    clock.advance(1000);
  }
  const res = await answer;
  return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } };
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

  it('/ready is 200 while the upstream answers, 503 once it hangs past the check’s timeout, 200 again after', async () => {
    expect(await ready()).toEqual({ status: 200, body: { status: 'ready', checks: { upstream: 'ok', redis: 'ok' } } });
    proxy.mode = 'hang';
    try {
      expect(await ready()).toEqual({ status: 503, body: { status: 'unavailable', checks: { upstream: 'failing', redis: 'ok' } } });
    } finally {
      proxy.mode = 'pass';
    }
    expect((await ready()).status).toBe(200);
  });

  it('/ready is 503 while the upstream is gone, 200 again when it is back', async () => {
    await proxy.goAway();
    try {
      expect(await ready()).toEqual({ status: 503, body: { status: 'unavailable', checks: { upstream: 'failing', redis: 'ok' } } });
    } finally {
      await proxy.comeBack();
    }
    expect((await ready()).status).toBe(200);
  });

  it('/ready is 503 when any named check fails', async () => {
    redisUp = false;
    try {
      expect(await ready()).toEqual({ status: 503, body: { status: 'unavailable', checks: { upstream: 'ok', redis: 'failing' } } });
    } finally {
      redisUp = true;
    }
    expect((await ready()).status).toBe(200);
  });

  it('load balancers polling /ready often cost the upstream one call per second', async () => {
    await ready();
    const before = probes();
    // 50 probes at once, then 50 more within the second: one run of the checks serves them all.
    await Promise.all(Array.from({ length: 50 }, async () => get('/ready')));
    clock.advance(999);
    await Promise.all(Array.from({ length: 50 }, async () => get('/ready')));
    expect(probes() - before).toBe(0);
    // A second later the next probe runs the checks again, once.
    clock.advance(2);
    await Promise.all(Array.from({ length: 50 }, async () => get('/ready')));
    expect(probes() - before).toBe(1);
  });

  it('the probe is a GET of /user without credentials', async () => {
    const probe = proxy.requests.at(-1);
    expect(probe).toMatchObject({ method: 'GET', url: '/v1/user' });
    expect(probe?.headers.authorization).toBeUndefined();
  });
});
