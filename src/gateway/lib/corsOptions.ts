/**
 * CORS (the `cors` option of createYoga): off unless origins are configured (`--cors-origin`),
 * then answered for exactly those origins, preflight included. Another origin gets no CORS header
 * at all, and no origin is ever reflected. No `allow-credentials`: the gateway authenticates by the
 * `Authorization` header, never by cookies.
 */
import type { Plugin, YogaServerOptions } from 'graphql-yoga';
import { addVary } from './vary.js';

type CorsOption = NonNullable<YogaServerOptions<object, object>['cors']>;

export function corsOptions(origins: readonly string[] | undefined): CorsOption {
  if (!origins?.length) return false;
  const allowed = new Set(origins);
  return (request: Request) => {
    const origin = request.headers.get('origin');
    if (!origin || !allowed.has(origin)) return false;
    return { origin: [origin], credentials: false, maxAge: 600, exposedHeaders: [] };
  };
}

/**
 * With CORS on, every response says `Vary: Origin`: whether it carries
 * `Access-Control-Allow-Origin`, and which, depends on the request's `Origin`. whatwg-node adds it
 * only when more than one origin is configured, and `corsOptions` names one per request, so none
 * said it: a shared cache kept GraphiQL's assets (`public, max-age=31536000, immutable`) with the
 * first visitor's allowed origin, or none, and served them so to every other origin.
 */
export function useVaryOrigin(origins: readonly string[] | undefined): Plugin[] {
  if (!origins?.length) return [];
  return [{ onResponse: ({ response }) => addVary(response.headers, 'Origin') }];
}
