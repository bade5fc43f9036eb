/**
 * GraphiQL (the `graphiql` and `renderGraphiQL` options of createYoga). The page is pre-filled
 * with the demo token only when it is asked for on a loopback host (`localhost`, `127.x.x.x`,
 * `[::1]`) by a same-origin or direct visit that came through no proxy (no `Forwarded`, `Via` or
 * `X-Forwarded-*` header: behind a reverse proxy, a local `Host` says nothing of the visitor): a page of another site (its `Origin` or
 * `Sec-Fetch-Site: cross-site`) or a rebound DNS name (its `Host`) never gets the token. The
 * 9 MB renderer loads on the first visit, not at start.
 */
import type { GraphiQLOptions, YogaServerOptions } from 'graphql-yoga';

type Options = YogaServerOptions<object, object>;

export function graphiqlOptions(demo: { token?: string; query?: string } | undefined): NonNullable<Options['graphiql']> {
  const headers = demo?.token ? JSON.stringify({ Authorization: `Bearer ${demo.token}` }, null, 2) : undefined;
  return (request: Request): GraphiQLOptions => ({
    title: 'docs-graph',
    defaultQuery: demo?.query,
    headers: headers && mayEmbedToken(request) ? headers : undefined,
  });
}

export const renderGraphiQL: NonNullable<Options['renderGraphiQL']> = async (options) =>
  (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options);

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** Headers a reverse proxy adds: a request that carries one came from elsewhere, whatever its `Host`. */
const PROXIED = /^(forwarded|via|x-real-ip|x-forwarded-.+)$/;

function mayEmbedToken(request: Request): boolean {
  for (const name of request.headers.keys()) if (PROXIED.test(name)) return false;
  const url = new URL(request.url);
  if (!LOOPBACK.test(url.hostname)) return false;
  const site = request.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers.get('origin');
  return !origin || origin === url.origin;
}
