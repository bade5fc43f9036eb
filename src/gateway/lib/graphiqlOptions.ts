/**
 * GraphiQL (the `graphiql` and `renderGraphiQL` options of createYoga). The page is pre-filled
 * with the demo token only when it is asked for on a loopback host (`localhost`, `127.x.x.x`,
 * `[::1]`) by a same-origin or direct visit: a page of another site (its `Origin` or
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

function mayEmbedToken(request: Request): boolean {
  const url = new URL(request.url);
  if (!LOOPBACK.test(url.hostname)) return false;
  const site = request.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers.get('origin');
  return !origin || origin === url.origin;
}
