/**
 * An HTTP proxy on 127.0.0.1 (port 0) in front of a real upstream, for tests that need the upstream
 * to hang, go away and come back, or answer some paths late (before or after the upstream answered). It records each request's method,
 * path and headers (to see what the gateway sent, e.g. `traceparent`).
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';

export interface ProxiedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface SwitchProxy {
  /** Base URL ending in `/v1`; stays the same across `goAway()` / `comeBack()`. */
  readonly url: string;
  readonly requests: ProxiedRequest[];
  /** `pass` forwards; `hang` accepts requests and never answers. */
  mode: 'pass' | 'hang';
  /** Extra delay before forwarding a request to this path (with this method): ms, or a promise to wait for; default none. */
  delay: (path: string, method: string) => number | Promise<void>;
  /**
   * A promise to wait for once the upstream has answered a request (method, path), before passing
   * its answer on: an answer as of then, delivered later; default none.
   */
  holdAnswer: (method: string, path: string) => Promise<void> | undefined;
  /** The path and query a request is forwarded to (`url` as sent); default: as sent. */
  rewrite: (method: string, url: string) => string;
  /** Closes the port (connections are refused) and drops open connections. */
  goAway(): Promise<void>;
  /** Listens again on the same port. */
  comeBack(): Promise<void>;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startSwitchProxy(upstreamUrl: string): Promise<SwitchProxy> {
  const target = new URL(upstreamUrl).origin;
  const sockets = new Set<Socket>();
  const self = {
    requests: [] as ProxiedRequest[],
    mode: 'pass',
    delay: () => 0,
    holdAnswer: () => undefined,
    rewrite: (_method: string, url: string) => url,
  } as unknown as SwitchProxy;

  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    self.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    if (self.mode === 'hang') return;
    // Read before any delay: a write held here still reaches the upstream once the client gave up on it.
    const body = ['GET', 'HEAD'].includes(req.method ?? 'GET') ? undefined : await readBody(req);
    const wait = self.delay(new URL(req.url ?? '/', target).pathname, req.method ?? '');
    if (wait) await (typeof wait === 'number' ? new Promise((resolve) => setTimeout(resolve, wait)) : wait);
    const headers = { ...req.headers };
    delete headers.host;
    delete headers.connection;
    const answer = await request(target + self.rewrite(req.method ?? '', req.url ?? '/'), { method: req.method as 'GET', headers, body });
    const held = self.holdAnswer(req.method ?? '', new URL(req.url ?? '/', target).pathname);
    if (held) {
      const text = await answer.body.arrayBuffer();
      await held;
      res.writeHead(answer.statusCode, answer.headers as Record<string, string>);
      return void res.end(Buffer.from(text));
    }
    res.writeHead(answer.statusCode, answer.headers as Record<string, string>);
    for await (const chunk of answer.body) res.write(chunk);
    res.end();
  };
  const server = createServer((req, res) => {
    forward(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const close = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  await listen(0);
  const { port } = server.address() as AddressInfo;
  Object.assign(self, {
    url: `http://127.0.0.1:${port}/v1`,
    goAway: close,
    comeBack: () => listen(port),
    stop: async () => {
      if (server.listening) await close();
    },
  });
  self[Symbol.asyncDispose] = self.stop;
  return self;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Holds the answer of the next GET of the space through `proxy` until `release()`; `held` once the upstream answered it. */
export function holdNextRead(proxy: SwitchProxy, spaceId: string) {
  let answered!: () => void;
  const held = new Promise<void>((resolve) => (answered = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  proxy.holdAnswer = (method, path) => {
    if (method !== 'GET' || !path.endsWith(`/spaces/${spaceId}`)) return undefined;
    proxy.holdAnswer = () => undefined;
    answered();
    return released;
  };
  return { held, release };
}
