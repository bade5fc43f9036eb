/**
 * GraphiQL (the `graphiql` and `renderGraphiQL` options of createYoga). The page is pre-filled
 * with the demo token only when it is asked for on a loopback host (`localhost`, `127.x.x.x`,
 * `[::1]`) by a same-origin or direct visit that came through no proxy (no `Forwarded`, `Via` or
 * `X-Forwarded-*` header: behind a reverse proxy, a local `Host` says nothing of the visitor): a page
 * of another site (its `Origin` or `Sec-Fetch-Site: cross-site`) or a rebound DNS name (its `Host`)
 * never gets the token. The page rendered per request is a small document (title, options, the
 * start call); GraphiQL itself comes from immutable assets built once (graphiqlAssets.ts).
 */
import type { GraphiQLOptions, YogaServerOptions } from 'graphql-yoga';
import { graphiqlAssets } from './graphiqlAssets.js';
import { isLocalVisit } from './localVisit.js';

type Options = YogaServerOptions<object, object>;

export function graphiqlOptions(demo: { token?: string; query?: string } | undefined): NonNullable<Options['graphiql']> {
  const headers = demo?.token ? JSON.stringify({ Authorization: `Bearer ${demo.token}` }, null, 2) : undefined;
  return (request: Request): GraphiQLOptions => ({
    title: 'docs-graph',
    defaultQuery: demo?.query,
    headers: headers && mayEmbedToken(request) ? headers : undefined,
  });
}

/** The page: its options inline (JSON with `<` escaped, so no text of theirs can close the script), the rest by reference. */
export const renderGraphiQL = async (options?: GraphiQLOptions): Promise<string> => {
  const assets = await graphiqlAssets();
  const title = (options?.title ?? 'GraphiQL').replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const json = JSON.stringify(options ?? {}).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${title}</title>
    <link rel="icon" href="${assets.icon.path}" />
    <link rel="stylesheet" href="${assets.style.path}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run this app.</noscript>
    <div id="root"></div>
    <script src="${assets.script.path}"></script>
    <script>${assets.start(json)}</script>
  </body>
</html>
`;
};

function mayEmbedToken(request: Request): boolean {
  return isLocalVisit({
    host: new URL(request.url).host,
    headerNames: request.headers.keys(),
    header: (name) => request.headers.get(name),
  });
}
