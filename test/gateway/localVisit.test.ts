/**
 * The rule of a visit opened on this machine (src/gateway/lib/localVisit.ts), for what tests cannot
 * send over real HTTP: a peer address off loopback (their servers listen on loopback only). The
 * headers and HTTP/1.0 rules are checked over HTTP, for GraphiQL (graphiql.test.ts) and the example
 * app's /session.json (test/app/appServer.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { isLocalVisit, type Visit } from '../../src/gateway/lib/localVisit.js';

/** A direct visit of a browser on this machine to `http://localhost:4000`, from `remoteAddress`. */
const visit = (remoteAddress: string | undefined): Visit => ({
  remoteAddress,
  httpVersion: '1.1',
  host: 'localhost:4000',
  headerNames: ['host', 'accept', 'sec-fetch-site'],
  header: (name) => (name === 'sec-fetch-site' ? 'none' : undefined),
});

describe('a local visit', () => {
  it('comes from a loopback peer only (127.0.0.0/8, ::1, 127.x mapped into IPv6), whatever its Host says (a gateway on --host 0.0.0.0)', () => {
    const local = ['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1', '::FFFF:127.0.0.9'];
    const remote = ['192.0.2.7', '10.0.0.1', '::ffff:192.0.2.7', '2001:db8::1', 'fe80::1', '0.0.0.0', '::', '128.0.0.1', ''];
    expect([...local, ...remote, undefined].filter((address) => isLocalVisit(visit(address)))).toEqual(local);
  });
});
