/**
 * Graceful shutdown of a node:http server (used by the gateway and the embedded upstream): stop
 * accepting, close connections with no request in flight at once, let open requests and streams
 * finish (closing their connection after the response), and destroy what is left after a grace
 * period.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface Drainer {
  /** Resolves once every connection is closed. */
  close(graceMs?: number): Promise<void>;
  /** Connections open now (tests). */
  connections(): number;
}

export function drainable(server: Server): Drainer {
  const inFlight = new Map<Socket, number>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.on('close', () => inFlight.delete(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.on('close', () => {
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
    async close(graceMs = 5000) {
      closing = true;
      const closed = server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
      for (const [socket, n] of inFlight) if (n === 0) socket.destroy();
      const force = setTimeout(() => [...inFlight.keys()].forEach((s) => s.destroy()), graceMs);
      force.unref();
      await closed;
      clearTimeout(force);
    },
  };
}
