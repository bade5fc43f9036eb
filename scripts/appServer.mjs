/**
 * The example app's HTTP server (node:http), started by app.mjs: serves the built app from `files`,
 * proxies `/graphql` and `/graphql/stream` to the gateway (one origin: no CORS; no other path of
 * the gateway's: 404), and answers `/session.json` with the demo admin's token for a page opened on
 * this machine only, by the gateway's own rule (`isLocalVisit`, src/gateway/lib/localVisit.ts,
 * which app.mjs loads from dist/ with the server bounds, src/serverBounds.ts, and the headers of
 * its pages, src/gateway/lib/pageHeaders.ts). `state` is filled as the gateway starts: `gateway`
 * (where it listens; until then the proxy answers 503) and `demoToken`.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, request as forward } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { pipeline } from 'node:stream';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

function notFound(res) {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
  res.end('Not found');
}

function serveFile(res, files, path, pageHeaders) {
  let file;
  try {
    file = path === '/' ? join(files, 'index.html') : normalize(join(files, decodeURIComponent(path)));
  } catch {
    file = files; // a malformed escape: not found
  }
  // `.built` is app.mjs's build stamp.
  if (!file.startsWith(files + sep) || !existsSync(file) || statSync(file).isDirectory() || file === join(files, '.built')) {
    return notFound(res);
  }
  // Vite's assets carry a content hash in their names: cached for good; other files are
  // revalidated (the page is not kept at all: its headers, below).
  const cache = path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
  const type = TYPES[extname(file)] ?? 'application/octet-stream';
  // The page says what GraphiQL's does: without it, another site framed the app, which
  // `/session.json` gave the demo admin's token (its fetch is the frame's own, same-origin).
  const page = type.startsWith('text/html') ? pageHeaders : {};
  res.writeHead(200, { 'content-type': type, 'cache-control': cache, ...page });
  // pipeline, not pipe: a client that left mid-file kept the file open (pipe leaves its source
  // paused, not closed), 2,000 aborted downloads of the app's script held 2,000 descriptors, and
  // at the process's limit the next open failed with EMFILE, an 'error' nobody listened to: the
  // app server (and `npm run app`) exited. A read error now ends the response, not the process.
  pipeline(createReadStream(file), res, () => undefined);
}

/** The gateway's paths the app proxies. */
const GATEWAY_PATHS = new Set(['/graphql', '/graphql/stream']);

/**
 * The path and query to forward to the gateway when the request's target resolves to one of its
 * proxied paths, else undefined. Resolved as the gateway resolves it (WHATWG URL: `..` and `.`
 * segments, `%2e` for a dot, `\` for `/`): checked on the raw target, `/graphql/../metrics` passed
 * the check and the gateway served its /metrics.
 */
function gatewayTarget(target) {
  if (!target.startsWith('/')) return undefined; // absolute-form or `*`: not a path of this server
  let url;
  try {
    url = new URL(`http://app.invalid${target}`);
  } catch {
    return undefined;
  }
  return GATEWAY_PATHS.has(url.pathname) ? url.pathname + url.search : undefined;
}

/**
 * The app server's bounds, from those of the gateway it starts (the `http` settings of its config):
 * the gateway's headers and request timeouts and connection cap and, as every request the app
 * proxies reaches the gateway from one address (127.0.0.1), at most four fifths of the gateway's
 * per-address cap in proxied requests at once (200 of 250: the rest is left to GraphiQL and other
 * clients on this machine), and a quarter of that per client address (50), in connections and in
 * proxied requests. Without them, 260 POSTs whose bodies never finished took the gateway's 250 for
 * themselves: every app user got 502.
 */
export function appBounds(gateway) {
  const maxProxied = Math.max(1, Math.floor(((gateway.maxConnectionsPerAddress || gateway.maxConnections) * 4) / 5));
  return {
    headersTimeoutMs: gateway.headersTimeoutMs,
    requestTimeoutMs: gateway.requestTimeoutMs,
    maxConnections: gateway.maxConnections,
    writeStallTimeoutMs: gateway.writeStallTimeoutMs,
    maxConnectionsPerAddress: Math.max(1, Math.floor(maxProxied / 4)),
    ipv6Prefix: gateway.ipv6Prefix,
    maxProxied,
  };
}

/** The proxy's own refusal, 503 with a JSON error; the connection ends with it (the body is not read). */
function unavailable(res, message) {
  const body = JSON.stringify({ errors: [{ message, extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] });
  res.writeHead(503, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'retry-after': '1',
    connection: 'close',
  });
  res.end(body);
}

/**
 * Calls `done` once, when the response is written or closed, or when its connection closes (a
 * response queued behind another on a pipelined connection sees neither when its client leaves).
 */
function whenDone(req, res, done) {
  const finish = () => {
    res.off('finish', finish).off('close', finish);
    req.socket.off('close', finish);
    done();
  };
  res.once('finish', finish).once('close', finish);
  req.socket.once('close', finish);
}

/** The gateway's answer to the page, streamed (Server-Sent Events included), its client's disconnect passed on. */
function proxy(req, res, gateway, path, onDone) {
  // The page's address appended to `X-Forwarded-For`, as a reverse proxy does: a gateway that
  // trusts this hop (--trust-proxy-hops 1) counts each page's client by its own address, which the
  // client cannot choose (the header as the client sent it let it pick a fresh one per request).
  const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
  const headers = { ...req.headers, host: gateway.host, via: `1.1 docs-graph-app`, 'x-forwarded-for': forwardedFor };
  const upstream = forward({ host: gateway.hostname, port: gateway.port, method: req.method, path, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    // pipeline, not pipe: an answer cut short (the gateway restarting, or ending its drain) cuts
    // the page's response too, so its client sees the failure; with pipe, it waited for the rest
    // for good (and held its place in the proxy).
    pipeline(answer, res, () => undefined);
  });
  upstream.on('error', () => {
    // Once the answer has begun, the page's response is cut as it was (not finished with this JSON).
    if (res.headersSent) return void res.destroy();
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ errors: [{ message: 'The gateway is not reachable', extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] }));
  });
  whenDone(req, res, () => {
    upstream.destroy();
    onDone();
  });
  req.pipe(upstream);
}

/** The demo token is for a page opened on this machine, by the gateway's rule (GraphiQL's). */
const openedHere = (isLocalVisit, req) =>
  isLocalVisit({
    remoteAddress: req.socket.remoteAddress,
    httpVersion: req.httpVersion,
    host: req.headers.host ?? '',
    headerNames: Object.keys(req.headers),
    header: (name) => req.headers[name],
  });

/**
 * The server, bounded (`boundHttpServer` of src/serverBounds.ts with `bounds`), not listening yet;
 * its options and state are typed in appServer.d.mts.
 */
export function appServer({ files, isLocalVisit, pageHeaders, boundHttpServer, bounds }, state) {
  let proxied = 0;
  // Proxied requests in flight by client address. Its cap is the per-address connection cap's
  // number: node:http runs the requests pipelined on one connection at once, so one connection
  // sending 16 GETs per write had all 200 proxied, and every other client got 503.
  const proxiedBy = new Map();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const forwarded = gatewayTarget(req.url ?? '/');
    if (forwarded) {
      if (!state.gateway) return unavailable(res, 'The gateway is starting');
      // Refused, not queued: a queue would hold the client's connection and body all the same.
      if (proxied >= bounds.maxProxied) return unavailable(res, 'The app has too many requests in flight to the gateway');
      const address = req.socket.remoteAddress ?? '';
      const mine = proxiedBy.get(address) ?? 0;
      if (mine >= bounds.maxConnectionsPerAddress) return unavailable(res, 'This client has too many requests in flight to the gateway');
      proxied++;
      proxiedBy.set(address, mine + 1);
      return proxy(req, res, state.gateway, forwarded, () => {
        proxied--;
        const left = proxiedBy.get(address) - 1;
        if (left === 0) proxiedBy.delete(address);
        else proxiedBy.set(address, left);
      });
    }
    // Any other path of the gateway's, whatever the method (the static files answer GET and HEAD only).
    if (path.startsWith('/graphql')) return notFound(res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' });
      return res.end();
    }
    if (path === '/session.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return res.end(JSON.stringify({ token: state.demoToken && openedHere(isLocalVisit, req) ? state.demoToken : null }));
    }
    serveFile(res, files, path, pageHeaders);
  });
  boundHttpServer(server, bounds);
  return server;
}
