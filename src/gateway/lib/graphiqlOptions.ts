/**
 * GraphiQL (the `graphiql` and `renderGraphiQL` options of createYoga). The page is pre-filled
 * with the demo token only for a visit opened on this machine (localVisit.ts: a loopback peer
 * address and `Host`, same-origin or direct, over HTTP/1.1 or later and through no proxy): a
 * remote client of a gateway on `--host 0.0.0.0`, a page of another site, a rebound DNS name or a
 * visit through a reverse proxy never gets the token. The page rendered per request is a small
 * document (title, options, the start call); GraphiQL itself comes from immutable assets built
 * once (graphiqlAssets.ts).
 */
import type { GraphiQLOptions, YogaServerOptions } from 'graphql-yoga';
import { graphiqlAssets } from './graphiqlAssets.js';
import type { NodeServerContext } from './httpBounds.js';
import { isLocalVisit } from './localVisit.js';
import { qualityValues } from './qualityValues.js';

type Options = YogaServerOptions<object, object>;

export function graphiqlOptions(demo: { token?: string; query?: string } | undefined): NonNullable<Options['graphiql']> {
  const headers = demo?.token ? JSON.stringify({ Authorization: `Bearer ${demo.token}` }, null, 2) : undefined;
  return (request: Request, serverContext?: object): GraphiQLOptions | false =>
    prefersHtml(request.headers.get('accept')) && {
      title: 'docs-graph',
      defaultQuery: demo?.query,
      headers: headers && mayEmbedToken(request, serverContext as NodeServerContext | undefined) ? headers : undefined,
    };
}

/** The JSON types a GraphQL GET is answered in. */
const JSON_TYPES = ['application/json', 'application/graphql-response+json'];

/**
 * Whether `accept` prefers the page to JSON: it names `text/html` with a quality above 0 and no
 * lower than any JSON type's (each type's quality is that of its most specific range, `*` ranges
 * included). Yoga renders GraphiQL whenever the header contains
 * `text/html`: `text/html;q=0.1, application/json` (a client that asks for JSON first) got the page.
 * An equal quality keeps the page (browsers list `text/html` first).
 */
export function prefersHtml(accept: string | null): boolean {
  if (!accept) return false;
  const ranges = qualityValues(accept);
  const qualityOf = (type: string) => {
    const [major] = type.split('/');
    const match =
      ranges.find((r) => r.value === type) ?? ranges.find((r) => r.value === `${major}/*`) ?? ranges.find((r) => r.value === '*/*');
    return match?.quality ?? 0;
  };
  const html = ranges.find((r) => r.value === 'text/html')?.quality ?? 0;
  return html > 0 && JSON_TYPES.every((type) => qualityOf(type) <= html);
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

/** Over node:http only: a request without its socket (`yoga.fetch` in process) has no peer to judge. */
function mayEmbedToken(request: Request, { req }: NodeServerContext = {}): boolean {
  return isLocalVisit({
    remoteAddress: req?.socket.remoteAddress,
    httpVersion: req?.httpVersion ?? '',
    host: new URL(request.url).host,
    headerNames: request.headers.keys(),
    header: (name) => request.headers.get(name),
  });
}
