/**
 * Works out each request's caller identity as it arrives, before any other plugin asks for it
 * (lib/callerHash.ts): its key from the `Authorization` header, its client address from the socket
 * (Yoga's server context carries node:http's `req`) and the trusted proxies' `X-Forwarded-For`
 * (lib/clientAddress.ts), and from both the budget its work counts against (the REST client knows
 * which tokens the upstream accepted). `callerIdentifier` is that one rule, also used by the HTTP
 * server before a request reaches Yoga (the rate limit's refusal on arrival).
 */
import type { Plugin } from 'graphql-yoga';
import { DEFAULTS } from '../../config.js';
import type { CallerIdentity, RestClient } from '../../rest/index.js';
import { setCallerIdentity } from '../lib/callerHash.js';
import { clientAddress, socketAddress } from '../lib/clientAddress.js';

/** A request's identity from its `Authorization` header, its socket's peer address and its `X-Forwarded-For`. */
export type Identify = (
  authorization: string | null | undefined,
  socketAddress: string | undefined,
  forwardedFor: string | null | undefined,
) => CallerIdentity;

export function callerIdentifier(rest: Pick<RestClient, 'identify'>, trustProxyHops = DEFAULTS.trustProxyHops): Identify {
  return (authorization, socket, forwardedFor) => rest.identify(authorization, clientAddress(socket, forwardedFor, trustProxyHops));
}

export function useCallerIdentity(identify: Identify): Plugin {
  return {
    onRequest({ request, serverContext }) {
      const { headers } = request;
      setCallerIdentity(request, identify(headers.get('authorization'), socketAddress(serverContext), headers.get('x-forwarded-for')));
    },
  };
}
