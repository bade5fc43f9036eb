/**
 * GraphiQL's 9 MB of scripts, styles and icon (@graphql-yoga/render-graphiql, all bundled: no CDN)
 * as three immutable assets under `/graphql/graphiql/`, named by their content hash. They are
 * built once, on the first visit (simultaneous first visits share the one build; all of it in a
 * worker thread, see below), compressed once (br and gzip) and then served from those shared buffers: a client that never reads holds
 * a reference to them, not a copy. Browsers keep them for a year (`immutable`, ETag); the page
 * itself is a small document rendered per request (see graphiqlOptions.ts).
 *
 * The build costs about 0.9 s of CPU (0.55 s of wall time, over two threads) and a worker heap of
 * some 30 MB, at each process's first visit. So `npm run build` (and `npm start` when it builds)
 * also writes them to dist/graphiql/ (`writeGraphiqlAssets`, run by scripts/start.mjs), and a
 * process reads them from there (`readGraphiqlAssets`) when they were made from the renderer it
 * has (its version and this module's build, the manifest's `key`); otherwise, or when a file is
 * missing or of another length, it builds them as above.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Plugin } from 'graphql-yoga';
import { negotiateEncoding } from './contentEncoding.js';
import { PAGE_HEADERS } from './pageHeaders.js';
import { requestPath } from './requestPath.js';

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

/** Where `npm run build` puts the assets: dist/graphiql/ (this module is in src/ or dist/, three levels down). */
export const PREBUILT_DIR = fileURLToPath(new URL('../../../dist/graphiql/', import.meta.url));

/** The assets, read from PREBUILT_DIR or built on the first call; every later or simultaneous call gets the same ones. */
export function graphiqlAssets(): Promise<GraphiQLAssets> {
  built ??= readGraphiqlAssets(PREBUILT_DIR)
    .then((prebuilt) => prebuilt ?? buildGraphiqlAssets())
    .catch((error: unknown) => {
      built = undefined;
      throw error;
    });
  return built;
}

/**
 * The build, in a worker thread of its own: Yoga's whole page rendered (the renderer's 9 MB source,
 * two-byte: over 30 MB of heap while loaded, is compiled and held only by the worker's heap, which
 * goes away when it exits; dropping the module from the require cache freed it on Node 20 but not
 * on Node 24), cut into its parts, encoded, hashed and compressed there, and the buffers transferred
 * (not copied) to the gateway. The gateway's event loop does none of it: on it, turning the 9 MB
 * script into bytes, hashing it and receiving it as a string took tens of ms at the first visit.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { promisify } = require('node:util');
const zlib = require('node:zlib');
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const html = require(workerData).renderGraphiQL({});
const between = (open, close) => {
  const from = html.indexOf(open);
  const to = html.indexOf(close, from);
  if (from < 0 || to < 0) throw new Error('@graphql-yoga/render-graphiql: unexpected page layout');
  return html.slice(from + open.length, to);
};
const style = between('<style>', '</style>');
const script = between('<script>', '</script>');
const call = script.lastIndexOf('YogaGraphiQL.renderYogaGraphiQL(');
const icon = /<link rel="icon" href="data:([^;"]+);base64,([^"]+)"/.exec(html);
if (call < 0 || !icon) throw new Error('@graphql-yoga/render-graphiql: unexpected page layout');
// An ArrayBuffer of its own (a small Buffer may share the pool's), to transfer.
const own = (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
// Quality 6: within 3 % of quality 9's size at a quarter of its time (about 0.5 s for the script, once).
const part = async (identity) => {
  const [br, gz] = await Promise.all([
    brotli(identity, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 6, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
    gzip(identity, { level: 9 }),
  ]);
  return { hash: createHash('sha256').update(identity).digest('base64url').slice(0, 16), identity: own(identity), br: own(br), gzip: own(gz) };
};
Promise.all([part(Buffer.from(script.slice(0, call))), part(Buffer.from(style)), part(Buffer.from(icon[2], 'base64'))]).then(([script, style, favicon]) => {
  const parts = { script, style, icon: { ...favicon, type: icon[1] } };
  parentPort.postMessage(parts, Object.values(parts).flatMap((p) => [p.identity, p.br, p.gzip]));
  // The thread ends a moment later, once V8's background compilations of its code are done (see
  // introspectionWorker.ts, STOP_MS).
  setTimeout(() => {}, 50);
});
`;

interface Part {
  hash: string;
  identity: ArrayBuffer;
  br: ArrayBuffer;
  gzip: ArrayBuffer;
}

function buildInWorker(): Promise<{ script: Part; style: Part; icon: Part & { type: string } }> {
  const entry = createRequire(import.meta.url).resolve('@graphql-yoga/render-graphiql');
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: entry });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (exitCode) => reject(new Error(`@graphql-yoga/render-graphiql: the rendering worker exited (${exitCode})`)));
  });
}

const NAMES = { script: ['graphiql', 'js'], style: ['graphiql', 'css'], icon: ['favicon', 'ico'] } as const;
type Name = keyof typeof NAMES;
const TYPES: Record<Exclude<Name, 'icon'>, string> = { script: 'text/javascript; charset=utf-8', style: 'text/css; charset=utf-8' };
const ENCODINGS = ['identity', 'gzip', 'br'] as const;

function assetsOf(parts: Record<Name, { hash: string; type?: string; identity: Buffer; gzip: Buffer; br: Buffer }>): GraphiQLAssets {
  const asset = (name: Name): Asset => {
    const [file, ext] = NAMES[name];
    const part = parts[name];
    const type = name === 'icon' ? part.type! : TYPES[name];
    return {
      path: `${GRAPHIQL_ASSETS_PATH}${file}.${part.hash}.${ext}`,
      type,
      hash: part.hash,
      identity: part.identity,
      gzip: part.gzip,
      br: part.br,
    };
  };
  return {
    script: asset('script'),
    style: asset('style'),
    icon: asset('icon'),
    start: (optionsJson) => `YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${optionsJson});`,
  };
}

/** Builds the assets (each call anew: `graphiqlAssets` keeps the one build). */
export async function buildGraphiqlAssets(): Promise<GraphiQLAssets> {
  const parts = await buildInWorker();
  const buffers = (part: Part) => ({
    hash: part.hash,
    identity: Buffer.from(part.identity),
    gzip: Buffer.from(part.gzip),
    br: Buffer.from(part.br),
  });
  return assetsOf({ script: buffers(parts.script), style: buffers(parts.style), icon: { ...buffers(parts.icon), type: parts.icon.type } });
}

/**
 * What prebuilt assets must have been made from: the renderer's version and this module's worker
 * (its package.json read as a file: the gateway never loads the renderer's modules).
 */
async function prebuiltKey(): Promise<string> {
  const file = createRequire(import.meta.url).resolve('@graphql-yoga/render-graphiql/package.json');
  const { version } = JSON.parse(await readFile(file, 'utf8')) as { version: string };
  return `${version}:${createHash('sha256').update(WORKER).digest('base64url').slice(0, 16)}`;
}

interface Manifest {
  key: string;
  parts: Record<Name, { hash: string; type: string; bytes: Record<(typeof ENCODINGS)[number], number> }>;
}

const fileOf = (name: Name, encoding: (typeof ENCODINGS)[number]) =>
  `${NAMES[name].join('.')}${encoding === 'identity' ? '' : `.${encoding}`}`;

/** Builds the assets and writes them to `dir` (`npm run build`): their files, then the manifest that names them. */
export async function writeGraphiqlAssets(dir: string): Promise<void> {
  const assets = await buildGraphiqlAssets();
  await mkdir(dir, { recursive: true });
  const parts = {} as Manifest['parts'];
  for (const name of Object.keys(NAMES) as Name[]) {
    const asset = assets[name];
    for (const encoding of ENCODINGS) await writeFile(join(dir, fileOf(name, encoding)), asset[encoding]);
    parts[name] = {
      hash: asset.hash,
      type: asset.type,
      bytes: { identity: asset.identity.length, gzip: asset.gzip.length, br: asset.br.length },
    };
  }
  const manifest: Manifest = { key: await prebuiltKey(), parts };
  await writeFile(join(dir, 'manifest.json.tmp'), JSON.stringify(manifest, null, 2));
  await rename(join(dir, 'manifest.json.tmp'), join(dir, 'manifest.json'));
}

/**
 * The assets written to `dir`, if they were made from this renderer and this build (the manifest's
 * key) and every file has the length the manifest gives; else undefined (they are built instead).
 */
export async function readGraphiqlAssets(dir: string): Promise<GraphiQLAssets | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;
    if (manifest.key !== (await prebuiltKey())) return undefined;
    const parts = {} as Parameters<typeof assetsOf>[0];
    for (const name of Object.keys(NAMES) as Name[]) {
      const { hash, type, bytes } = manifest.parts[name];
      // They become a path in the page and a Content-Type header: only what the build writes.
      if (!/^[\w-]{16}$/.test(hash) || !/^[\w.+-]+\/[\w.+-]+(; charset=utf-8)?$/.test(type)) return undefined;
      const [identity, gzip, br] = await Promise.all(ENCODINGS.map((encoding) => readFile(join(dir, fileOf(name, encoding)))));
      if (identity.length !== bytes.identity || gzip.length !== bytes.gzip || br.length !== bytes.br) return undefined;
      parts[name] = { hash, type, identity, gzip, br };
    }
    return assetsOf(parts);
  } catch {
    return undefined;
  }
}

/**
 * Serves the assets (GET and HEAD), compressed as the client accepts, 304 when its copy is
 * current; and gives the page its headers (`PAGE_HEADERS`).
 */
export function useGraphiQLAssets(): Plugin {
  return {
    onResponse({ response }) {
      if (!response.headers.get('content-type')?.startsWith('text/html')) return;
      for (const [name, value] of Object.entries(PAGE_HEADERS)) response.headers.set(name, value);
    },
    onRequest({ request, endResponse, fetchAPI }) {
      // The path from the URL's string: reading `url` makes the fast path (plainPost.ts) parse a URL.
      const path = requestPath(request.url);
      if (!path.startsWith(GRAPHIQL_ASSETS_PATH)) return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }));
        return;
      }
      return graphiqlAssets().then((assets) => {
        const found = [assets.script, assets.style, assets.icon].find((a) => a.path === path);
        if (!found) return endResponse(new fetchAPI.Response(null, { status: 404 }));
        const encoding = negotiateEncoding(request.headers.get('accept-encoding'));
        const headers: Record<string, string> = {
          'cache-control': 'public, max-age=31536000, immutable',
          // One strong validator per representation; any of them names current content (it never changes).
          etag: `"${found.hash}${encoding ? `-${encoding}` : ''}"`,
          vary: 'Accept-Encoding',
        };
        const current = request.headers.get('if-none-match');
        if (current !== null && (current.trim() === '*' || current.includes(`"${found.hash}`)))
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
