/**
 * Whether a request is a visit opened on this machine, the one case where a page may carry the
 * demo token (GraphiQL, and the example app's `/session.json`, which loads this file from dist/):
 * a loopback `Host` (`localhost`, `127.x.x.x`, `[::1]`), a same-origin or direct request (not a page
 * of another site: its `Origin` or `Sec-Fetch-Site: cross-site`), and no proxy in between (no
 * `Forwarded`, `Via`, `X-Real-IP` or `X-Forwarded-*` header: behind a reverse proxy a local `Host`
 * says nothing of the visitor). A rebound DNS name fails the `Host` test.
 */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** Headers a reverse proxy adds: a request that carries one came from elsewhere, whatever its `Host`. */
const PROXIED = /^(forwarded|via|x-real-ip|x-forwarded-.+)$/;

export interface Visit {
  /** The `Host` header's value (or the request URL's host). */
  host: string;
  /** The request's header names, lower case. */
  headerNames: Iterable<string>;
  header(name: 'origin' | 'sec-fetch-site'): string | null | undefined;
}

export function isLocalVisit(visit: Visit): boolean {
  for (const name of visit.headerNames) if (PROXIED.test(name)) return false;
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
