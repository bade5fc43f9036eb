/**
 * Whether a request is a visit opened on this machine, the one case where a page may carry the
 * demo token (GraphiQL, and the example app's `/session.json`, which loads this file from dist/).
 * All of these must hold:
 * - the TCP peer (the socket's address, not any header) is loopback (`127.0.0.0/8`, `::1`,
 *   `::ffff:127.x.x.x`): a server listening on `--host 0.0.0.0` sees remote clients, who may send
 *   any `Host`;
 * - a loopback `Host` (`localhost`, `127.x.x.x`, `[::1]`): a rebound DNS name fails it;
 * - a same-origin or direct request, not a page of another site (its `Origin` or
 *   `Sec-Fetch-Site: cross-site`);
 * - no proxy in between: no header a reverse proxy or CDN adds (`Forwarded`, `Via`, `X-Real-IP`,
 *   `X-Forwarded` and `X-Forwarded-*`, `True-Client-IP`, `CF-Connecting-IP`, `X-Client-IP`,
 *   `Client-IP`, `X-Envoy-External-Address`, `Fastly-Client-IP`, `X-Cluster-Client-IP`, and any
 *   other whose name holds `forwarded` or ends in `-ip` or `-address`), and
 *   HTTP/1.1 or later: nginx's default `proxy_pass` adds none of these headers, sets `Host` to its
 *   upstream's (`127.0.0.1:port`) and speaks HTTP/1.0, which no browser does. Behind a proxy on
 *   this machine the peer is loopback and a local `Host` says nothing of the visitor.
 */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** A loopback peer, as node:net writes its address (IPv4, IPv6, or IPv4 mapped into IPv6). */
const LOOPBACK_PEER = /^(127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/i;

/** Headers reverse proxies and CDNs add (and `x-forwarded-*`): a request that carries one came from elsewhere, whatever its `Host`. */
const PROXY_HEADERS = new Set([
  'forwarded',
  'via',
  'x-real-ip',
  'x-forwarded',
  'true-client-ip',
  'cf-connecting-ip',
  'x-client-ip',
  'client-ip',
  'x-envoy-external-address',
  'fastly-client-ip',
  'x-cluster-client-ip',
]);
/**
 * Also any header naming a forwarded request or a client's address (`Forwarded-For`,
 * `X-Original-Forwarded-For`, `X-ProxyUser-Ip`, …): no browser sends one.
 */
const proxied = (name: string) =>
  PROXY_HEADERS.has(name) || name.includes('forwarded') || name.endsWith('-ip') || name.endsWith('-address');

export interface Visit {
  /** The TCP peer's address (the socket's `remoteAddress`); undefined (unknown) is not local. */
  remoteAddress: string | undefined;
  /** The request's HTTP version as node:http reads it (`1.0`, `1.1`). */
  httpVersion: string;
  /** The `Host` header's value (or the request URL's host). */
  host: string;
  /** The request's header names, lower case. */
  headerNames: Iterable<string>;
  header(name: 'origin' | 'sec-fetch-site'): string | null | undefined;
}

export function isLocalVisit(visit: Visit): boolean {
  if (!visit.remoteAddress || !LOOPBACK_PEER.test(visit.remoteAddress)) return false;
  if (!(Number(visit.httpVersion) >= 1.1)) return false;
  for (const name of visit.headerNames) if (proxied(name)) return false;
  let url: URL;
  try {
    url = new URL(`http://${visit.host}`);
  } catch {
    return false;
  }
  if (!LOOPBACK.test(url.hostname)) return false;
  const site = visit.header('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return false;
  const origin = visit.header('origin');
  return !origin || origin === url.origin;
}
