/**
 * A fault-injecting HTTP proxy on 127.0.0.1, port 0, between the gateway and a real upstream:
 * each request either goes through, or (with probability `failRate`, from a seeded PRNG so a run
 * can be replayed) gets one of `faults`: an HTTP error status, a TCP reset, or a hang (no answer
 * until the client gives up). Every request is recorded (method, path, Authorization, fault), so
 * tests count upstream attempts where the upstream sees them. `startChaosStack` puts it between a
 * gateway (on its own port) and the embedded upstream.
 */
import { createServer, request, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { buildGateway, type Gateway, type GatewayOptions } from '../../src/gateway/app.js';
import type { RestCall } from '../../src/rest/index.js';
import type { GqlResult } from './gateway.js';
import { startUpstream, type TestUpstream } from './upstream.js';

/**
 * An HTTP status to answer with (the upstream's error shape), a TCP reset, no answer at all, the
 * upstream's answer held back for `delayMs`, or the request passed on and the upstream's answer
 * replaced by the status `afterForward` (a proxy's 502 or 504 once the upstream had it).
 */
export type Fault = number | 'reset' | 'hang' | { delayMs: number } | { afterForward: number };

export interface ChaosConfig {
  /** Share of the matching requests that fail, 0..1. */
  failRate: number;
  /** Each failing request gets one of these, picked by the PRNG. */
  faults: Fault[];
  /** Only requests with these methods may fail (default: all). */
  methods?: string[];
  /** Only requests whose path (below the base URL) matches may fail (default: all). */
  paths?: RegExp;
}

export interface ProxiedRequest {
  method: string;
  /** Path below the upstream's base URL, without the query string. */
  path: string;
  authorization: string | undefined;
  /** The fault injected, if any. */
  fault?: Fault;
}

export interface ChaosProxy {
  /** Base URL ending in `/v1`, to give the gateway as its upstream. */
  url: string;
  requests: ProxiedRequest[];
  /** Requests seen, optionally of one method. */
  count(method?: string): number;
  /** Changes the faults from now on (e.g. the upstream goes down, then recovers). */
  configure(config: ChaosConfig): void;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function startChaosProxy(
  upstreamUrl: string,
  config: ChaosConfig = { failRate: 0, faults: [] },
  seed = 1,
): Promise<ChaosProxy> {
  const target = new URL(upstreamUrl);
  const random = seededRandom(seed);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  let current = config;

  const pick = (method: string, path: string): Fault | undefined => {
    if (current.methods && !current.methods.includes(method)) return undefined;
    if (current.paths && !current.paths.test(path)) return undefined;
    if (current.failRate <= 0 || random() >= current.failRate) return undefined;
    return current.faults[Math.floor(random() * current.faults.length)];
  };

  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const path = url.split('?')[0].replace(target.pathname.replace(/\/$/, ''), '');
    const fault = pick(method, path);
    requests.push({ method, path, authorization: req.headers.authorization, fault });
    if (fault !== undefined && typeof fault === 'object' && 'afterForward' in fault) return forward(req, res, 0, fault.afterForward);
    if (fault === undefined || typeof fault === 'object') return forward(req, res, fault?.delayMs ?? 0);
    // The request body is read (as an upstream would) before the fault, so the client sees the fault, not a write error.
    req.resume();
    req.once('end', () => inject(fault, req, res));
  });

  const forward = (req: IncomingMessage, res: ServerResponse, delayMs: number, replaceWith?: number) => {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
        agent,
      },
      (answer) => {
        if (replaceWith !== undefined) {
          answer.resume();
          answer.once('end', () => inject(replaceWith, req, res));
          return;
        }
        const relay = () => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        };
        if (delayMs) setTimeout(relay, delayMs);
        else relay();
      },
    );
    upstream.once('error', () => res.destroy());
    req.pipe(upstream);
  };

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    agent.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    requests,
    count: (method) => (method ? requests.filter((r) => r.method === method).length : requests.length),
    configure: (next) => void (current = next),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

function inject(fault: number | 'reset' | 'hang', req: IncomingMessage, res: ServerResponse): void {
  if (fault === 'reset') return void req.socket.resetAndDestroy();
  if (fault === 'hang') return;
  // A 2xx without a body, as the REST API may answer a write (only after forwarding makes sense).
  if (fault === 204) return void res.writeHead(204).end();
  const text = JSON.stringify({ error: { code: fault, message: `injected ${fault}` } });
  res.writeHead(fault, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Embedded upstream → chaos proxy → gateway on its own port: what the reliability tests run against. */
export interface ChaosStack {
  upstream: TestUpstream;
  proxy: ChaosProxy;
  gateway: Gateway;
  /** REST attempts as the gateway reports them (`onRestCall`). */
  calls: RestCall[];
  /** POSTs a GraphQL operation to the gateway's port (default: as the world's admin); answers the result and its time. */
  gql(query: string, variables?: Record<string, unknown>, token?: string): Promise<{ body: GqlResult; ms: number }>;
  stop(): Promise<void>;
}

export async function startChaosStack(
  rest: GatewayOptions['rest'] = {},
  config?: ChaosConfig,
  seed?: number,
  clock?: GatewayOptions['clock'],
  /** The gateway's other options (its limits, say). */
  options: Omit<GatewayOptions, 'upstreamUrl' | 'onRestCall' | 'rest' | 'clock'> = {},
): Promise<ChaosStack> {
  const upstream = await startUpstream();
  const proxy = await startChaosProxy(upstream.url, config, seed);
  const calls: RestCall[] = [];
  const gateway = buildGateway({ ...options, upstreamUrl: proxy.url, onRestCall: (c) => calls.push(c), rest, clock });
  const url = await gateway.start();
  const gql = async (query: string, variables?: Record<string, unknown>, token = upstream.world.users.admin.token) => {
    const started = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as GqlResult;
    return { body, ms: performance.now() - started };
  };
  return {
    upstream,
    proxy,
    gateway,
    calls,
    gql,
    async stop() {
      await gateway.stop();
      await proxy.stop();
      await upstream.stop();
    },
  };
}
