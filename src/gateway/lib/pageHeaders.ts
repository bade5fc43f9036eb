/**
 * What every HTML page of the gateway (GraphiQL's) and of the example app (scripts/appServer.mjs,
 * which loads this file from dist/) says besides: no other site may frame it (a framed GraphiQL,
 * with the visitor's token in its headers, could be clicked into running a mutation; a framed app
 * is given the demo token by `/session.json` all the same), no type sniffing, no referrer (a page
 * URL may carry a query), and no copy kept: a local visit's GraphiQL holds the demo token.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};
