/**
 * CORS (the `cors` option of createYoga): off unless origins are configured (`--cors-origin`),
 * then answered for exactly those origins, preflight included. Another origin gets no CORS header
 * at all, and no origin is ever reflected. No `allow-credentials`: the gateway authenticates by the
 * `Authorization` header, never by cookies.
 */
import type { YogaServerOptions } from 'graphql-yoga';

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
