/**
 * The path of a request's URL, read from its string: what `new URL(url).pathname` gives, without
 * building a URL on every request (a plugin that reads `url.pathname` in `onRequest` makes Yoga
 * parse one for each request). Paths with dot segments, which a URL would resolve, are parsed.
 */
export function requestPath(url: string): string {
  const scheme = url.indexOf('//');
  const start = scheme < 0 ? -1 : url.indexOf('/', scheme + 2);
  if (start < 0) return new URL(url, 'http://localhost').pathname;
  let end = url.length;
  const query = url.indexOf('?', start);
  if (query >= 0) end = query;
  const hash = url.indexOf('#', start);
  if (hash >= 0 && hash < end) end = hash;
  const path = url.slice(start, end);
  return path.includes('/.') || path.includes('\\') ? new URL(url).pathname : path;
}

/**
 * A `Host` of plain DNS labels or an IPv4 address with an optional port (up to 5 digits; its value
 * is checked too): always a valid URL's authority. A label in IDNA form (`xn--…`) may not be, and
 * goes through a URL parse.
 */
const PLAIN_HOST = /^(?!xn--)[a-z0-9-]+(?:\.(?!xn--)[a-z0-9-]+)*\.?(?::(\d{1,5}))?$/i;

/**
 * Whether the URL the server adapter builds for a request parses, with the target as its path:
 * `http://<authority><target>`, the authority its `Host` or, without one, `fallback` (the
 * adapter's own: the socket's local address and port). One that does not (`Host: a b`,
 * `Host: x:99999`, `Host: xn--`, an empty `Host` with a whole URL as the target) made it answer
 * 500 with the error's stack trace as the body. The usual host and an origin-form target are
 * known valid without building a URL.
 */
export function validRequestUrl(host: string | undefined, target: string | undefined, fallback: () => string): boolean {
  const authority = host || fallback();
  const plain = PLAIN_HOST.exec(authority);
  if (target?.startsWith('/') && DOT_SEGMENT.test(pathOf(target))) return false;
  if (plain && (plain[1] === undefined || Number(plain[1]) <= 65_535) && target?.startsWith('/')) return true;
  return !URL_DELIMITER.test(authority) && URL.canParse(`http://${authority}${target ?? ''}`);
}

/** A target's path: what is before its query or fragment. */
const pathOf = (target: string) => {
  const end = target.search(/[?#]/);
  return end < 0 ? target : target.slice(0, end);
};

/**
 * A dot segment (`..`, `.`, either percent-encoded) or a backslash (a URL's `/`) in a path: the
 * URL resolves it, so the route served is another than the path sent. `GET /graphql/../metrics`
 * was served /metrics, and `POST /x/%2e%2e/graphql` ran an operation, past a proxy routing by
 * path (only /graphql public) that forwards the path as it came. No client sends one.
 */
const DOT_SEGMENT = /(?:^|[/\\])(?:\.|%2e){1,2}(?:[/\\]|$)|\\/i;

/**
 * What ends an authority in a URL, or marks its user part: a `Host` holding one is no host (RFC
 * 9110: host and port only). `Host: gateway/metrics?` with `GET /graphql` made the URL
 * `http://gateway/metrics?/graphql`, and `/metrics` was served where node:http, a proxy routing
 * by path and the access logs saw `/graphql` (and `/graphql` where they saw another path).
 */
const URL_DELIMITER = /[/?#@\\]/;
