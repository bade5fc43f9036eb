/**
 * The client address of a request, for limits on work without a known token. With no trusted
 * proxy (`trustProxyHops` 0) it is the socket's peer; behind N proxies it is the address the Nth
 * proxy from us saw: `X-Forwarded-For` lists the addresses each proxy saw, appended left to right,
 * and only the last N entries were written by proxies we trust (anything left of them is whatever
 * the client sent), as Express's `trust proxy` hop count reads it. Undefined when there is none (a
 * request made in process, as tests do with `yoga.fetch`).
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | null | undefined,
  trustProxyHops: number,
): string | undefined {
  if (trustProxyHops <= 0 || !forwardedFor) return socketAddress;
  const chain = forwardedFor
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  if (socketAddress !== undefined) chain.push(socketAddress);
  // The socket is one hop: N trusted proxies vouch for the N addresses before it.
  return chain[Math.max(0, chain.length - 1 - trustProxyHops)] ?? socketAddress;
}

/** The socket address in Yoga's server context (`req` of node:http), if the request came over one. */
export function socketAddress(serverContext: unknown): string | undefined {
  return (serverContext as { req?: { socket?: { remoteAddress?: string } } } | undefined)?.req?.socket?.remoteAddress;
}
