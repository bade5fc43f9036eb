import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch, type Response } from 'undici';
import { abortWith } from '../../shutdown.js';

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
 * What a refused address, a refused connection and an unknown host all store: one message, so the
 * stored error does not tell which internal hosts or ports answer.
 */
export const UNREACHABLE = 'The URL could not be fetched';

/**
 * Addresses a spec is never fetched from: loopback, private, shared (CGNAT), link-local,
 * unspecified, multicast, reserved and documentation ranges, and their IPv6 counterparts
 * (IPv4-mapped IPv6 addresses are checked as the IPv4 address they carry).
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv6');

/** True for an IP address that is not a public unicast address. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Names that resolve locally or never (RFC 6761, mDNS, `.internal`): refused without a lookup. */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|invalid|test|example|home\.arpa|localdomain)\.?$/i;

class RefusedAddress extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

/** dns.lookup that fails when any address of the name is blocked; used at connect time, so a
 * name cannot resolve to a public address for the check and to a private one for the request. */
function guardedLookup(
  hostname: string,
  options: { all?: boolean; family?: number },
  callback: (err: Error | null, address?: string | LookupAddress[], family?: number) => void,
): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err);
    if (!addresses.length || addresses.some((a) => isBlockedAddress(a.address))) return callback(new RefusedAddress(hostname));
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

/** Connections of spec fetches: every resolved address is checked (see guardedLookup). */
const guarded = new Agent({ connect: { lookup: guardedLookup as never } });
/** For URLs the caller's `allow` hook accepts (tests serving specs on loopback). */
const plain = new Agent();

export interface FetchOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** URLs fetched whatever their address (a test hook; default none). */
  allow?: (url: URL) => boolean;
}

/**
 * Fetches the text of a spec within `timeoutMs` (headers and body), following redirects; every
 * hop must be http(s) to a public address. Throws FetchFailure; rethrows the abort of `signal`
 * (server shutdown) as is.
 */
export async function fetchSourceText(source: string, options: FetchOptions): Promise<string> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  // The server's shutdown signal lives as long as the process: linked by a listener removed below,
  // not given to AbortSignal.any (which left 50 bytes in it per fetch for good; see abortWith).
  const stopped = new AbortController();
  const unlink = abortWith(stopped, options.signal);
  const signal = AbortSignal.any([stopped.signal, timeout]);
  try {
    const res = await follow(new URL(source), signal, options.allow);
    if (!res.ok) {
      await res.body?.cancel();
      throw new FetchFailure('FETCH_ERROR', `The URL answered with status ${res.status}`);
    }
    return await readLimited(res);
  } catch (e) {
    if (options.signal.aborted) throw e;
    if (timeout.aborted) throw new FetchFailure('FETCH_TIMEOUT', `No complete answer within ${options.timeoutMs} ms`);
    if (e instanceof FetchFailure) throw e;
    throw new FetchFailure('FETCH_ERROR', UNREACHABLE);
  } finally {
    unlink();
  }
}

/** The dispatcher for a hop, or a FetchFailure when its host is refused before any lookup. */
function dispatcherFor(url: URL, allow: FetchOptions['allow']): Agent {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchFailure('FETCH_ERROR', `Only http and https URLs can be fetched, not ${url.protocol}`);
  if (allow?.(url)) return plain;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) ? isBlockedAddress(host) : LOCAL_NAME.test(host)) throw new FetchFailure('FETCH_ERROR', UNREACHABLE);
  return guarded;
}

async function follow(url: URL, signal: AbortSignal, allow: FetchOptions['allow']): Promise<Response> {
  for (let hops = 0; ; hops++) {
    const dispatcher = dispatcherFor(url, allow);
    const res = await fetch(url, {
      signal,
      redirect: 'manual',
      dispatcher,
      headers: { accept: 'application/json, application/yaml, text/*' },
    });
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
