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
