/**
 * Works out each request's caller identity as it arrives, before any other plugin asks for it
 * (lib/callerHash.ts): its key from the `Authorization` header, its client address from the socket
 * (Yoga's server context carries node:http's `req`) and the trusted proxies' `X-Forwarded-For`
 * (lib/clientAddress.ts), and from both the budget its work counts against (the REST client knows
 * which tokens the upstream accepted). `callerIdentifier` is that one rule, also used by the HTTP
 * server before a request reaches Yoga (the rate limit's refusal on arrival).
 *
 * A GraphQL result is its caller's: unless a plugin said otherwise, it says `Cache-Control:
 * private, no-store` to a caller with a token and `no-store` to one without (a share key's reads
 * end with the link). Without it, a CDN in front of the gateway could keep a `GET` result: some
 * keep what says nothing for a day, under a key without the `Authorization` header.
 */
import type { Plugin } from 'graphql-yoga';
import { clientNetwork } from '../../clientNetwork.js';
import { DEFAULTS } from '../../config.js';
import type { CallerIdentity, RestClient } from '../../rest/index.js';
import { setCallerIdentity } from '../lib/callerHash.js';
import { clientAddress, socketAddress } from '../lib/clientAddress.js';
import type { NodeServerContext } from '../lib/httpBounds.js';

/** A request's identity from its `Authorization` header, its socket's peer address and its `X-Forwarded-For`. */
export type Identify = (
  authorization: string | null | undefined,
  socketAddress: string | undefined,
  forwardedFor: string | null | undefined,
) => CallerIdentity;

/**
 * The identity rule: the client address is counted by its network (an IPv6 client by its
 * `ipv6Prefix` bits, --ipv6-prefix; the REST client's `addressKey` leaves a network as it is).
 */
export function callerIdentifier(
  rest: Pick<RestClient, 'identify'>,
  trustProxyHops = DEFAULTS.trustProxyHops,
  ipv6Prefix = DEFAULTS.http.ipv6Prefix,
): Identify {
  return (authorization, socket, forwardedFor) => {
    const address = clientAddress(socket, forwardedFor, trustProxyHops);
    return rest.identify(authorization, address === undefined ? undefined : clientNetwork(address, ipv6Prefix));
  };
}

/** What a GraphQL result is written as (JSON, GraphQL response JSON, multipart, event stream). */
const RESULT_TYPE = /^(application\/(graphql-response\+)?json|multipart\/mixed|text\/event-stream)\b/;

export function useCallerIdentity(identify: Identify): Plugin {
  return {
    onRequest({ request, serverContext }) {
      const { headers } = request;
      setCallerIdentity(request, identify(headers.get('authorization'), socketAddress(serverContext), headers.get('x-forwarded-for')));
    },
    onResponse({ request, response, serverContext }) {
      const { headers } = response;
      const type = headers.get('content-type') ?? '';
      if (!RESULT_TYPE.test(type)) return;
      const value = request.headers.has('authorization') ? 'private, no-store' : 'no-store';
      // Yoga's and graphql-sse's event streams say `no-cache`, which lets a shared cache store a
      // token's events (only not reuse them unchecked): theirs is said over, as any result's.
      if (type.startsWith('text/event-stream') && headers.get('cache-control')?.toLowerCase() === 'no-cache')
        return headers.set('cache-control', value);
      // On node:http's response when there is one: the Response's own headers are written over it
      // (a plugin's Cache-Control wins), and they stay unmaterialized (setting one of them cost
      // 3 % of a small query's CPU).
      const res = (serverContext as NodeServerContext | undefined)?.res;
      if (typeof res?.setHeader === 'function' && !res.headersSent) res.setHeader('cache-control', value);
      else if (!headers.has('cache-control')) headers.set('cache-control', value);
    },
  };
}
