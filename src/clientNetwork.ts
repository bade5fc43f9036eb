import { isIPv4, isIPv6 } from 'node:net';

/**
 * The part of a client address that names one client: an IPv6 address's network, its first
 * `ipv6Prefix` bits (default 64), an IPv4 address whole (an IPv4-mapped IPv6 address, as a
 * dual-stack socket reports an IPv4 peer, included). An ISP hands each line a /64 or more (a /56
 * or a /48 is common), so one IPv6 client has 2^64 addresses or more to choose from: counted per
 * address, it had a fresh anonymous budget (rate limit, request bodies, stream reservations) for
 * every request. How much one client holds is the operator's to say (--ipv6-prefix): 48 or 56
 * where clients get that much, 128 where many hosts share one /64 (an office network). An address
 * written with its port (`1.2.3.4:5678`, `[2001:db8::1]:443`) is the address: a proxy that writes
 * the client's port into `X-Forwarded-For` (Azure's Application Gateway does) made each new
 * connection of a client, from a port of its choosing, a fresh budget. Anything else that is not
 * an IPv6 address is returned as it is (a network it returned is, so it may be passed again).
 */
export function clientNetwork(address: string, ipv6Prefix = DEFAULT_IPV6_PREFIX): string {
  const ported = WITH_PORT.exec(address);
  const host = ported ? (ported[1] ?? ported[2]) : address;
  if (ported && isIPv4(host)) return host;
  const bare = host.split('%')[0];
  if (!isIPv6(bare)) return address;
  const [head, tail] = bare.split('::') as [string, string | undefined];
  // Its eight 16-bit groups; an embedded IPv4 address (the last 32 bits, written dotted) is two.
  const numbers = (part: string | undefined) =>
    (part ? part.split(':') : []).flatMap((group) => {
      if (!group.includes('.')) return [parseInt(group, 16)];
      const [a, b, c, d] = group.split('.').map(Number);
      return [a * 256 + b, c * 256 + d];
    });
  const [before, after] = [numbers(head), numbers(tail)];
  const groups = [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255].join('.');
  }
  const whole = Math.floor(ipv6Prefix / 16);
  const kept = groups.slice(0, whole);
  if (ipv6Prefix % 16) kept.push(groups[whole] & (0xffff << (16 - (ipv6Prefix % 16))) & 0xffff);
  return `${kept.map((group) => group.toString(16)).join(':')}::/${ipv6Prefix}`;
}

/** The IPv6 network one client is counted by when no other is set (--ipv6-prefix). */
export const DEFAULT_IPV6_PREFIX = 64;

/** `a.b.c.d:port`, `[v6]:port` or `[v6]`: the address in group 1 (IPv4) or 2 (bracketed). */
const WITH_PORT = /^(?:([\d.]+):\d{1,5}|\[([^\]]+)\](?::\d{1,5})?)$/;
