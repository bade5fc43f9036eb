import { isIPv4, isIPv6 } from 'node:net';

/**
 * The part of a client address that names one client: an IPv6 address's /64, an IPv4 address
 * whole (an IPv4-mapped IPv6 address, as a dual-stack socket reports an IPv4 peer, included). An
 * ISP hands each line a /64 or more, so one IPv6 client has 2^64 addresses to choose from: counted
 * per address, it had a fresh anonymous budget (rate limit, request bodies, stream reservations)
 * for every request. An address written with its port (`1.2.3.4:5678`, `[2001:db8::1]:443`) is
 * the address: a proxy that writes the client's port into `X-Forwarded-For` (Azure's Application
 * Gateway does) made each new connection of a client, from a port of its choosing, a fresh
 * budget. Anything else that is not an IPv6 address is returned as it is.
 */
export function clientNetwork(address: string): string {
  const ported = WITH_PORT.exec(address);
  const host = ported ? (ported[1] ?? ported[2]) : address;
  if (ported && isIPv4(host)) return host;
  const bare = host.split('%')[0];
  if (!isIPv6(bare)) return address;
  const [head, tail] = bare.toLowerCase().split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  // An embedded IPv4 address (the last 32 bits, written dotted) stands for two groups.
  const width = (list: string[]) => list.reduce((n, group) => n + (group.includes('.') ? 2 : 1), 0);
  const [before, after] = [groups(head), groups(tail)];
  const all = [...before, ...Array<string>(tail === undefined ? 0 : 8 - width(before) - width(after)).fill('0'), ...after];
  const value = all.map((group) => (group.includes('.') ? group : parseInt(group, 16).toString(16)));
  if (value.slice(0, 5).every((group) => group === '0') && value[5] === 'ffff') {
    const last = value.slice(6);
    if (last.length === 1) return last[0];
    return last.flatMap((group) => [parseInt(group, 16) >> 8, parseInt(group, 16) & 255]).join('.');
  }
  return `${value.slice(0, 4).join(':')}::/64`;
}

/** `a.b.c.d:port`, `[v6]:port` or `[v6]`: the address in group 1 (IPv4) or 2 (bracketed). */
const WITH_PORT = /^(?:([\d.]+):\d{1,5}|\[([^\]]+)\](?::\d{1,5})?)$/;
