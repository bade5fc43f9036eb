import { isIPv4, isIPv6 } from 'node:net';

export type FetchErrorCode = 'FETCH_TIMEOUT' | 'FETCH_ERROR';

/** Why a source could not be fetched (becomes `lastProcessErrorCode`). */
export class FetchFailure extends Error {
  constructor(
    readonly code: FetchErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const MAX_REDIRECTS = 5;
const MAX_BYTES = 10 << 20;

/**
 * The embedded upstream fetches only loopback addresses (127.0.0.0/8, `localhost`, `::1`), so it
 * never reaches the network: any other host fails without a request.
 */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  if (isIPv4(host)) return host.startsWith('127.');
  if (isIPv6(host)) return host === '::1';
  return false;
}

/**
 * Fetches the text of a spec within `timeoutMs` (headers and body), following loopback redirects.
 * Throws FetchFailure; rethrows the abort of `signal` (server shutdown) as is.
 */
export async function fetchSourceText(source: string, options: { timeoutMs: number; signal: AbortSignal }): Promise<string> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  try {
    const res = await follow(new URL(source), signal);
    if (!res.ok) {
      await res.body?.cancel();
      throw new FetchFailure('FETCH_ERROR', `The URL answered with status ${res.status}`);
    }
    return await readLimited(res);
  } catch (e) {
    if (options.signal.aborted) throw e;
    if (timeout.aborted) throw new FetchFailure('FETCH_TIMEOUT', `No complete answer within ${options.timeoutMs} ms`);
    if (e instanceof FetchFailure) throw e;
    throw new FetchFailure('FETCH_ERROR', `The URL could not be fetched: ${(e as Error).message}`);
  }
}

async function follow(url: URL, signal: AbortSignal): Promise<Response> {
  for (let hops = 0; ; hops++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new FetchFailure('FETCH_ERROR', `Only http and https URLs can be fetched, not ${url.protocol}`);
    if (!isLoopbackUrl(url))
      throw new FetchFailure('FETCH_ERROR', `Only loopback hosts are fetched by the embedded API, not ${url.hostname}`);
    const res = await fetch(url, { signal, redirect: 'manual', headers: { accept: 'application/json, application/yaml, text/*' } });
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return res;
    await res.body?.cancel();
    if (hops === MAX_REDIRECTS) throw new FetchFailure('FETCH_ERROR', `More than ${MAX_REDIRECTS} redirects`);
    url = new URL(location, url);
  }
}

async function readLimited(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = reader ? await reader.read() : { done: true, value: undefined };
    if (done || !value) return Buffer.concat(chunks).toString('utf8');
    size += value.length;
    if (size > MAX_BYTES) {
      await reader?.cancel();
      throw new FetchFailure('FETCH_ERROR', `The document is larger than ${MAX_BYTES} bytes`);
    }
    chunks.push(value);
  }
}
