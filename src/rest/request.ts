/**
 * A REST request as prepared once and sent once per attempt: its path (built with `path`, each
 * value one percent-encoded segment), its route template (routes.ts: circuits and metrics), its
 * query string, its headers (the caller's normalized `Authorization`, never the raw header) and
 * its JSON body.
 */
import { inputError } from './errors.js';
import { routeTemplate } from './routes.js';

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];
/** Query parameters: null/undefined are left out, arrays repeat the key (`k=a&k=b`). */
export type Query = Record<string, QueryValue>;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The longest REST URL (path and query) sent: 8 KiB, what HTTP servers commonly take in a request line. */
export const MAX_URL_CHARS = 8 * 1024;

export interface Prepared {
  info: { method: HttpMethod; path: string };
  /** The path's template (`/spaces/{spaceId}`), computed once for the circuits and the metrics. */
  route: string;
  url: string;
  /** Name, value, name, value…: undici takes a flat array as is (no object to walk per attempt). */
  headers: string[];
  body?: string;
  /** The caller's credential (the token), to scrub from upstream messages. */
  secret?: string;
  /**
   * What the REST API lets the call in by, within its caller's operation: '' for the caller's
   * token (or none), or the share key a call without a token carries (a 401 for one key, or for
   * none, says nothing of another key).
   */
  access: string;
  /**
   * The call may change something: every method but GET, except the reads REST takes by POST
   * (READS_BY_POST); a failed one says whether it may have been made (errors.ts).
   */
  write: boolean;
}

/** Routes REST reads by POST (the AI ask takes its question in a body): never a write. */
const READS_BY_POST = new Set(['/orgs/{organizationId}/ask']);

export interface Target {
  /** The base URL's path (`/v1`), prefixed to every request path. */
  basePath: string;
  userAgent: string;
}

/** `credential` is the caller's normalized header and its token (see callerKey.ts); `accept` is JSON but for streams. */
export function prepare(
  target: Target,
  credential: { header?: string; token?: string },
  method: HttpMethod,
  path: string,
  query: Query | undefined,
  body: unknown,
  accept = 'application/json',
): Prepared {
  if (!path.startsWith('/') || path.includes('?') || path.includes('#')) {
    throw new TypeError('A REST path starts with "/" and has no query string (pass query params separately)');
  }
  const headers = ['accept', accept, 'user-agent', target.userAgent];
  if (credential.header) headers.push('authorization', credential.header);
  if (body !== undefined) headers.push('content-type', 'application/json');
  const url = target.basePath + path + encodeQuery(query);
  // A value that makes the URL too long for an HTTP server (ids, search strings) is the caller's
  // input: refused here, not sent for a 414 or 431 (UPSTREAM_ERROR, after a REST call).
  if (url.length > MAX_URL_CHARS)
    throw inputError(`A value is too long: the REST request's URL would take ${url.length} characters (at most ${MAX_URL_CHARS})`);
  const route = routeTemplate(path);
  return {
    info: { method, path },
    route,
    url,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    secret: credential.token,
    access: credential.token === undefined && typeof query?.shareKey === 'string' ? query.shareKey : '',
    write: method !== 'GET' && !READS_BY_POST.has(route),
  };
}

export function encodeQuery(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    const values: readonly (string | number | boolean)[] = Array.isArray(value) ? value : [value as string | number | boolean];
    for (const v of values) params.append(key, String(v));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * Builds a REST path, percent-encoding each interpolated value as one segment:
 * path`/spaces/${spaceId}/change-requests/${changeRequestId}`. Empty, "." and ".." are refused,
 * since they would name another resource.
 */
export function path(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  let out = strings[0];
  values.forEach((value, i) => {
    out += pathSegment(value) + strings[i + 1];
  });
  return out;
}

/** One path segment: `value` percent-encoded; empty, "." and ".." refused (BAD_USER_INPUT). */
export function pathSegment(value: string | number): string {
  const text = String(value);
  if (text === '' || text === '.' || text === '..') throw inputError(`Invalid identifier ${JSON.stringify(text)}`);
  return uriComponent(text);
}

/**
 * `encodeURIComponent`, but text holding half of a UTF-16 surrogate pair (JSON may escape one
 * alone: `"\ud800"`) is the caller's input error: no URL can carry it, and encodeURIComponent's
 * URIError reached clients as an unexpected error (UPSTREAM_ERROR) for an id or a search string.
 */
export function uriComponent(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    throw inputError('A value is not valid Unicode text: it holds half of a surrogate pair');
  }
}
