/**
 * Graceful shutdown of a node:http server (used by the gateway and the embedded upstream): stop
 * accepting, close connections with no request in flight at once, let open requests and streams
 * finish (closing their connection after the response), and destroy what is left after a grace
 * period.
 */
import { setMaxListeners } from 'node:events';
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface Drainer {
  /**
   * Resolves once every connection is closed. At `graceMs`, `giveUp` (when given) makes what the
   * open requests still wait for fail, so each is answered; what is open `ANSWER_MS` later is destroyed.
   */
  close(graceMs?: number, giveUp?: () => void): Promise<void>;
  /** Connections open now (tests). */
  connections(): number;
}

/**
 * Time the requests still open at the grace's end get to write the answer `giveUp` made for them
 * (an error result: a few event-loop turns) before their connection is destroyed.
 */
export const ANSWER_MS = 1000;

export function drainable(server: Server): Drainer {
  const inFlight = new Map<Socket, number>();
  /** Responses not yet closed: those whose headers are still to be written say `Connection: close` once draining. */
  const responses = new Set<ServerResponse>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.on('close', () => inFlight.delete(socket));
  });
  server.on('request', (req, res: ServerResponse) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    if (closing) res.shouldKeepAlive = false;
    else responses.add(res);
    res.on('close', () => {
      responses.delete(res);
      // A response closes after its socket when the client left first: the socket is gone from
      // the map then, and must not come back (one destroyed socket kept per abandoned request).
      const open = inFlight.get(socket);
      if (open === undefined) return;
      inFlight.set(socket, open - 1);
      if (closing && open === 1) socket.destroySoon();
    });
  });
  return {
    connections: () => inFlight.size,
    async close(graceMs = 5000, giveUp?: () => void) {
      closing = true;
      // The connection closes after its response: one that said `keep-alive` had its client (a
      // load balancer's pool) send its next request on it as it closed, reset unanswered (for a
      // POST, not to be retried: a 502).
      for (const res of responses) if (!res.headersSent) res.shouldKeepAlive = false;
      responses.clear();
      const closed = server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
      for (const [socket, n] of inFlight) if (n === 0) socket.destroy();
      const destroy = () => [...inFlight.keys()].forEach((s) => s.destroy());
      // A socket destroyed with its request unanswered tells its client nothing: a mutation's
      // client (or a load balancer) cannot tell a write the upstream made from one never sent.
      let force = setTimeout(() => {
        if (!giveUp) return destroy();
        giveUp();
        force = setTimeout(destroy, ANSWER_MS);
        force.unref();
      }, graceMs);
      force.unref();
      await closed;
      clearTimeout(force);
    },
  };
}

/**
 * Aborts `controller` when the long-lived `signal` (a server's shutdown) aborts, until the
 * returned function unlinks them (when the work `controller` stands for is over). Not
 * `AbortSignal.any([short, signal])`: Node 20 keeps a WeakRef to each signal `any` makes in its
 * sources for as long as they live, so every request left 50 bytes in the shutdown signal for
 * good (the embedded REST API's 120,000 calls grew `npm start`'s heap by 6 MB, without end). A
 * listener is removed; the signal takes any number of them (one per request in flight) without
 * Node's warning past ten.
 */
export function abortWith(controller: AbortController, signal: AbortSignal): () => void {
  if (signal.aborted) {
    controller.abort(signal.reason);
    return () => {};
  }
  setMaxListeners(0, signal);
  const abort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  return () => signal.removeEventListener('abort', abort);
}
