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

/** A `Host` of a DNS name or IPv4 address with an optional port (up to 5 digits; its value is checked too). */
const PLAIN_HOST = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?(?::(\d{1,5}))?$/;

/**
 * Whether the URL the server adapter builds for a request (`http://<Host><target>`) parses. One
 * that does not (`Host: a b`, `Host: x:99999`) made it answer 500 with the error's stack trace as
 * the body. The usual host and an origin-form target are known valid without building a URL.
 */
export function validRequestUrl(host: string | undefined, target: string | undefined): boolean {
  const authority = host ?? 'localhost';
  const plain = PLAIN_HOST.exec(authority);
  if (plain && (plain[1] === undefined || Number(plain[1]) <= 65_535) && target?.startsWith('/')) return true;
  try {
    new URL(`http://${authority}${target ?? ''}`);
    return true;
  } catch {
    return false;
  }
}
