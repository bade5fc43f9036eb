/**
 * Works out each request's caller identity as it arrives, before any other plugin asks for it
 * (lib/callerHash.ts): its key from the `Authorization` header, its client address from the socket
 * (Yoga's server context carries node:http's `req`) and the trusted proxies' `X-Forwarded-For`
 * (lib/clientAddress.ts), and from both the budget its work counts against (the REST client knows
 * which tokens the upstream accepted).
 */
import type { Plugin } from 'graphql-yoga';
import { DEFAULTS } from '../../config.js';
import type { RestClient } from '../../rest/index.js';
import { setCallerIdentity } from '../lib/callerHash.js';
import { clientAddress, socketAddress } from '../lib/clientAddress.js';

export function useCallerIdentity(options: { rest: Pick<RestClient, 'identify'>; trustProxyHops?: number }): Plugin {
  const hops = options.trustProxyHops ?? DEFAULTS.trustProxyHops;
  return {
    onRequest({ request, serverContext }) {
      const address = clientAddress(socketAddress(serverContext), request.headers.get('x-forwarded-for'), hops);
      setCallerIdentity(request, options.rest.identify(request.headers.get('authorization'), address));
    },
  };
}
