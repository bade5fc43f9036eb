/**
 * Who a caller is: one key per token whatever the spelling of the header, the header forwarded
 * normalized, and what the upstream said of a token lately deciding whom its work counts against.
 */
import { describe, expect, it } from 'vitest';
import { KnownCallers } from '../../src/rest/callerKey.js';
import { clientNetwork } from '../../src/clientNetwork.js';
import { ANONYMOUS, addressKey, callerKey, credentialOf } from '../../src/rest/index.js';
import { fakeClock } from '../helpers/clock.js';

describe('addressKey', () => {
  it('gives an address the same key every time, before and after many other addresses, never the address itself', () => {
    const first = addressKey('203.0.113.7');
    expect(first).toMatch(/^addr:/);
    expect(first).not.toContain('203.0.113.7');
    // More distinct addresses than the keys kept in memory: the evicted address's key is worked out again, the same.
    const others = Array.from({ length: 3000 }, (_, i) => addressKey(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`));
    expect(new Set(others).size).toBe(3000);
    expect(addressKey('203.0.113.7')).toBe(first);
    expect(addressKey(undefined)).toBe(addressKey(undefined));
    expect(addressKey(undefined)).not.toBe(first);
  });

  it('counts an IPv6 client by its /64, however the address is written; an IPv4 one (mapped or not) by its address', () => {
    const one = [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0:0:0:7',
      '2001:db8:1:2:0:0:1.2.3.4',
      'fe80::1%eth0',
    ];
    expect(one.map((address) => clientNetwork(address))).toEqual([
      '2001:db8:1:2::/64',
      '2001:db8:1:2::/64',
      '2001:db8:1:2::/64',
      '2001:db8:1:2::/64',
      'fe80:0:0:0::/64',
    ]);
    expect(new Set(one.slice(0, 4).map(addressKey)).size).toBe(1);
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
    expect(clientNetwork('::')).toBe('0:0:0:0::/64');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
    // A dual-stack socket reports an IPv4 peer as IPv4-mapped: the same client as its IPv4 address.
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe(addressKey('203.0.113.7'));
    expect(addressKey('203.0.113.7')).not.toBe(addressKey('203.0.113.8'));
    // Another network (--ipv6-prefix): its bits past the prefix are dropped; an IPv4 address stays whole; a network is kept.
    expect([48, 56, 60, 128].map((bits) => clientNetwork('2001:DB8:abcd:12ff::1.2.3.4', bits))).toEqual([
      '2001:db8:abcd::/48',
      '2001:db8:abcd:1200::/56',
      '2001:db8:abcd:12f0::/60',
      '2001:db8:abcd:12ff:0:0:102:304::/128',
    ]);
    expect(clientNetwork('::ffff:203.0.113.7', 48)).toBe('203.0.113.7');
    expect(clientNetwork(clientNetwork('2001:db8:1:2::1', 56))).toBe('2001:db8:1:0::/56');
    // Not an IP address (what a trusted proxy wrote): kept as written.
    expect(clientNetwork('unknown')).toBe('unknown');
    expect(clientNetwork('2001:db8::1::2')).toBe('2001:db8::1::2');
  });
});

describe('credentialOf', () => {
  it('one token is one caller however Bearer is spelled and spaced; the header forwarded is `Bearer <token>`', () => {
    const spellings = ['Bearer tok', 'bearer tok', 'BEARER tok', 'Bearer  tok', 'Bearer\ttok', '  Bearer tok  ', 'bEaReR \t tok'];
    const credentials = spellings.map(credentialOf);
    expect(new Set(credentials.map((c) => c.key)).size).toBe(1);
    expect(credentials.map((c) => c.header)).toEqual(spellings.map(() => 'Bearer tok'));
    expect(credentials[0]).toMatchObject({ token: 'tok' });
    expect(credentials[0].key).not.toContain('tok');
    expect(callerKey('Bearer other')).not.toBe(credentials[0].key);
  });

  it('no header, a blank one or one that is no bearer token is the anonymous caller, nothing forwarded', () => {
    for (const blank of [undefined, null, '', '   ']) expect(credentialOf(blank)).toEqual({ key: ANONYMOUS });
    // The REST API takes bearer tokens only: another scheme's credential (a proxy's Basic password) stays here.
    for (const other of ['Basic dXNlcjpwdw==', 'Token t', 'X', 'raw:X', 'Bearer a b', 'Bearer'])
      expect(credentialOf(other)).toEqual({ key: ANONYMOUS });
  });
});

describe('KnownCallers', () => {
  it('counts a rejected token against its address for its TTL, a proven one as itself for its own, anonymous callers per address', () => {
    const clock = fakeClock();
    const known = new KnownCallers(10, clock, 60_000, 3_600_000);
    const here = addressKey('10.0.0.1');
    expect(known.identify(undefined, '10.0.0.1')).toEqual({ key: ANONYMOUS, budget: here, address: here, proven: false });
    expect(known.identify(undefined, '10.0.0.2').budget).not.toBe(here);

    const junk = callerKey('Bearer junk');
    expect(known.identify('Bearer junk', '10.0.0.1')).toEqual({ key: junk, budget: junk, address: here, proven: false });
    known.answered(junk, 401);
    expect(known.identify('bearer  junk', '10.0.0.1')).toMatchObject({ budget: here, proven: false });
    clock.advance(60_000);
    expect(known.identify('Bearer junk', '10.0.0.1')).toMatchObject({ budget: junk, proven: false });

    const good = callerKey('Bearer good');
    known.answered(good, 404); // says nothing either way
    expect(known.identify('Bearer good', '10.0.0.1').proven).toBe(false);
    known.answered(good, 200);
    expect(known.identify('Bearer good', '10.0.0.1')).toMatchObject({ budget: good, proven: true });
    clock.advance(3_599_999);
    expect(known.identify('Bearer good', '10.0.0.1').proven).toBe(true);
    known.answered(good, 401); // revoked
    expect(known.identify('Bearer good', '10.0.0.1')).toMatchObject({ budget: here, proven: false });
  });

  it('renews a proven token with its answers, at most once a second', () => {
    const clock = fakeClock();
    const known = new KnownCallers(10, clock, 60_000, 10_000);
    const good = callerKey('Bearer good');
    known.answered(good, 200);
    clock.advance(500);
    known.answered(good, 200); // within the second: not renewed, proven until 10 s
    clock.advance(9_499);
    expect(known.identify('Bearer good', 'a').proven).toBe(true);
    clock.advance(1);
    expect(known.identify('Bearer good', 'a').proven).toBe(false);
    known.answered(good, 200); // proven again until 20 s
    clock.advance(2_000);
    known.answered(good, 200); // renewed: until 22 s
    clock.advance(9_999);
    expect(known.identify('Bearer good', 'a').proven).toBe(true);
  });

  it('remembers at most `max` tokens of each kind, the least recently seen leaving first', () => {
    const known = new KnownCallers(3, fakeClock());
    for (let i = 0; i < 5; i++) known.answered(callerKey(`Bearer t${i}`), 200);
    expect([0, 1, 2, 3, 4].map((i) => known.identify(`Bearer t${i}`, 'a').proven)).toEqual([false, false, true, true, true]);
  });
});
