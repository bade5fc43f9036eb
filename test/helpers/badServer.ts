/**
 * A fault-injection HTTP server on 127.0.0.1, port 0, for the REST client's tests. Each request
 * takes the next scripted step (a reply, a reset, a hang, a stalled body, an event stream); when
 * the script is used up, `fallback` answers. Every request is recorded with its headers, its body
 * and a promise that resolves when its connection closes.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Step = (req: IncomingMessage, res: ServerResponse) => void;

export interface SeenRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Resolves when the TCP connection that carried this request closes. */
  connectionClosed: Promise<void>;
}

export interface BadServer {
  /** Base URL ending in `/v1`, like the real upstream's. */
  url: string;
  requests: SeenRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** Queues steps: one per incoming request, in order. */
  script(...steps: Step[]): void;
  fallback: Step;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startBadServer(): Promise<BadServer> {
  const queue: Step[] = [];
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  let accepted = 0;
  /** One promise per connection (a listener per request on a keep-alive socket would pile up). */
  const closes = new WeakMap<Socket, Promise<void>>();
  const closedOf = (socket: Socket) => {
    let closed = closes.get(socket);
    if (!closed) closes.set(socket, (closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))));
    return closed;
  };
  const server = createServer(async (req, res) => {
    const closed = closedOf(req.socket);
    const body = await readBody(req);
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, connectionClosed: closed });
    (queue.shift() ?? self.fallback)(req, res);
  });
  server.on('connection', (socket) => {
    accepted++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const self: BadServer = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    connections: () => accepted,
    script: (...steps) => void queue.push(...steps),
    fallback: json(200, { ok: true }),
    stop,
    [Symbol.asyncDispose]: stop,
  };
  return self;
}

/** A JSON answer (no body for 204). */
export function json(status: number, body?: unknown, headers: Record<string, string> = {}): Step {
  return (_req, res) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };
}

/** The upstream's error shape. */
export function error(status: number, message: string, headers: Record<string, string> = {}): Step {
  return json(status, { error: { code: status, message } }, headers);
}

/** Answers with the request's own Authorization header, to see what a caller sent. */
export const echoAuthorization: Step = (req, res) => json(200, { authorization: req.headers.authorization ?? null })(req, res);

/** Writes `text` on the connection as the answer, as is (HTTP or not: the server's own framing is bypassed). */
export function rawAnswer(text: string): Step {
  return (req) => void req.socket.write(text);
}

/** Resets the TCP connection (RST) instead of answering. */
export const reset: Step = (req) => req.socket.resetAndDestroy();

/** Never sends the response headers. */
export const hang: Step = () => undefined;

/** Sends headers and part of a body, then nothing more. */
export const stallBody: Step = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
  res.write('{"items": [');
};

/**
 * An event stream: writes each raw chunk (`gapMs` apart), then ends if `end`; otherwise the
 * stream stays open until the client leaves.
 */
export function sse(chunks: string[], options: { gapMs?: number; end?: boolean } = {}): Step {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const write = async () => {
      for (const chunk of chunks) {
        if (res.destroyed) return;
        res.write(chunk);
        if (options.gapMs) await new Promise((r) => setTimeout(r, options.gapMs));
      }
      if (options.end && !res.destroyed) res.end();
    };
    void write();
  };
}

/** A base URL on which nothing listens (a port that was just free). */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
