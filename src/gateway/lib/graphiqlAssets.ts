/**
 * GraphiQL's 9 MB of scripts, styles and icon (@graphql-yoga/render-graphiql, all bundled: no CDN)
 * as three immutable assets under `/graphql/graphiql/`, named by their content hash. They are
 * built once, on the first visit (simultaneous first visits share the one build), compressed
 * once (br and gzip) and then served from those shared buffers: a client that never reads holds
 * a reference to them, not a copy. Browsers keep them for a year (`immutable`, ETag); the page
 * itself is a small document rendered per request (see graphiqlOptions.ts).
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';
import { negotiateEncoding } from './contentEncoding.js';

export const GRAPHIQL_ASSETS_PATH = '/graphql/graphiql/';

export interface Asset {
  path: string;
  type: string;
  hash: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

export interface GraphiQLAssets {
  script: Asset;
  style: Asset;
  icon: Asset;
  /** The call that starts GraphiQL once the script ran, given the options as JSON (the page's inline script). */
  start(optionsJson: string): string;
}

let built: Promise<GraphiQLAssets> | undefined;

/** The assets, built on the first call; every later or simultaneous call gets the same ones. */
export function graphiqlAssets(): Promise<GraphiQLAssets> {
  built ??= build().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * Yoga's whole page, rendered once in a worker thread of its own: the renderer's 9 MB source
 * (two-byte: over 30 MB of heap while loaded) is compiled and held only by the worker's heap, which
 * goes away when it exits, and the gateway's event loop keeps answering meanwhile. (Dropping the
 * module from the require cache freed it on Node 20 but not on Node 24.)
 */
function renderOnce(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('@graphql-yoga/render-graphiql');
  const code =
    "const { parentPort, workerData } = require('node:worker_threads'); parentPort.postMessage(require(workerData).renderGraphiQL({}));";
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: entry });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (exitCode) => reject(new Error(`@graphql-yoga/render-graphiql: the rendering worker exited (${exitCode})`)));
  });
}

/** The parts of the page Yoga's renderer writes in one document: its style, its script up to the start call, its icon. */
async function build(): Promise<GraphiQLAssets> {
  const html = await renderOnce();
  const style = between(html, '<style>', '</style>');
  const script = between(html, '<script>', '</script>');
  const call = script.lastIndexOf('YogaGraphiQL.renderYogaGraphiQL(');
  const icon = /<link rel="icon" href="data:([^;"]+);base64,([^"]+)"/.exec(html);
  if (call < 0 || !icon) throw new Error('@graphql-yoga/render-graphiql: unexpected page layout');
  const [scriptAsset, styleAsset, iconAsset] = await Promise.all([
    asset('graphiql', 'js', 'text/javascript; charset=utf-8', Buffer.from(script.slice(0, call))),
    asset('graphiql', 'css', 'text/css; charset=utf-8', Buffer.from(style)),
    asset('favicon', 'ico', icon[1], Buffer.from(icon[2], 'base64')),
  ]);
  return {
    script: scriptAsset,
    style: styleAsset,
    icon: iconAsset,
    start: (optionsJson) => `YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${optionsJson});`,
  };
}

function between(text: string, open: string, close: string): string {
  const from = text.indexOf(open);
  const to = text.indexOf(close, from);
  if (from < 0 || to < 0) throw new Error('@graphql-yoga/render-graphiql: unexpected page layout');
  return text.slice(from + open.length, to);
}

async function asset(name: string, ext: string, type: string, identity: Buffer): Promise<Asset> {
  const hash = createHash('sha256').update(identity).digest('base64url').slice(0, 16);
  // Quality 6: within 3 % of quality 9's size at a quarter of its time (about 0.5 s for the script, once).
  const [br, gz] = await Promise.all([
    brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
    gzipped(identity, { level: 9 }),
  ]);
  return { path: `${GRAPHIQL_ASSETS_PATH}${name}.${hash}.${ext}`, type, hash, identity, gzip: gz, br };
}

/** Serves the assets (GET and HEAD), compressed as the client accepts, 304 when its copy is current. */
export function useGraphiQLAssets(): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith(GRAPHIQL_ASSETS_PATH)) return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }));
        return;
      }
      return graphiqlAssets().then((assets) => {
        const found = [assets.script, assets.style, assets.icon].find((a) => a.path === url.pathname);
        if (!found) return endResponse(new fetchAPI.Response(null, { status: 404 }));
        const encoding = negotiateEncoding(request.headers.get('accept-encoding'));
        const headers: Record<string, string> = {
          'cache-control': 'public, max-age=31536000, immutable',
          // One strong validator per representation; any of them names current content (it never changes).
          etag: `"${found.hash}${encoding ? `-${encoding}` : ''}"`,
          vary: 'Accept-Encoding',
        };
        if (request.headers.get('if-none-match')?.includes(`"${found.hash}`))
          return endResponse(new fetchAPI.Response(null, { status: 304, headers }));
        const body = encoding ? found[encoding] : found.identity;
        if (encoding) headers['content-encoding'] = encoding;
        headers['content-type'] = found.type;
        headers['content-length'] = String(body.length);
        // The shared buffer itself (the adapter writes a Buffer body as is, uncopied).
        endResponse(new fetchAPI.Response(request.method === 'HEAD' ? null : (body as unknown as BodyInit), { status: 200, headers }));
      });
    },
  };
}
