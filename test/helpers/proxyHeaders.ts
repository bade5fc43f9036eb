/**
 * Headers reverse proxies and CDNs add, each of which must keep the demo token from a visit
 * (src/gateway/lib/localVisit.ts): GraphiQL's test and the example app's both send each one.
 */
export const PROXY_HEADER_NAMES = [
  'true-client-ip',
  'cf-connecting-ip',
  'x-client-ip',
  'client-ip',
  'x-forwarded',
  'x-envoy-external-address',
  'fastly-client-ip',
  'x-cluster-client-ip',
  // Any name that says a forwarded request or a client's address.
  'forwarded-for',
  'x-original-forwarded-for',
  'x-proxyuser-ip',
];
