/**
 * The gateway out of sockets (`ulimit -n` reached, the machine's descriptors, its local ports):
 * a REST call whose connection could not even be opened was sent nowhere. A write says it was not
 * made (no "may have been made"), and the failures count against no circuit: the upstream is
 * fine, and every caller is served again as soon as a socket can be had.
 */
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startUpstream } from '../helpers/upstream.js';
import { listening, startReplica, stopAfterEach } from '../helpers/redis.js';
import { startSwitchProxy } from '../helpers/switchProxy.js';

afterEach(() => void vi.restoreAllMocks());

describe('no socket for a REST call (EMFILE)', () => {
  const track = stopAfterEach();

  it('UPSTREAM_UNAVAILABLE, a write not made, and no circuit opened for every caller', async () => {
    const upstream = track(await startUpstream());
    const proxy = track(await startSwitchProxy(upstream.url));
    const replica = track(await listening(startReplica(proxy.url, {})));
    const { admin, read, edit } = upstream.world.users;
    const viewer = async (i: number, token: string) => (await replica.post({ query: `{ v${i}: viewer { displayName } }` }, token)).json;
    // Both callers' tokens proven (accepted by the REST API): their failures count as theirs.
    expect((await viewer(0, admin.token)).data?.v0.displayName).toBe('Ada admin');
    expect((await viewer(0, read.token)).data?.v0.displayName).toBe('Ada read');
    // The pool's connections dropped: the next calls need new ones.
    await proxy.goAway();
    await proxy.comeBack();

    const proxyPort = Number(new URL(proxy.url).port);
    const connect = net.connect.bind(net) as (...args: unknown[]) => net.Socket;
    let failing = true;
    // undici's connector calls `net.connect` for each connection: the gateway's to the REST API
    // fail as a process past its descriptors' limit sees it (the test's own connections go on).
    vi.spyOn(net, 'connect').mockImplementation(((...args: unknown[]) => {
      const options = args[0] as { port?: number | string };
      if (!failing || Number(options?.port) !== proxyPort) return connect(...args);
      const socket = new net.Socket();
      const error = Object.assign(new Error('connect EMFILE'), { code: 'EMFILE', errno: -24, syscall: 'connect' });
      process.nextTick(() => socket.destroy(error));
      return socket;
    }) as typeof net.connect);

    const create = await replica.post(
      {
        query: `mutation($o: String!) { createCollection(input: { organizationId: $o, title: "fd" }) { collection { id } } }`,
        variables: { o: upstream.world.orgId },
      },
      admin.token,
    );
    expect(create.json.errors?.[0].extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(create.json.errors?.[0].message).not.toMatch(/may have been made/);
    // Two callers on one route, more failures in a row than the circuit's threshold (10).
    for (let i = 1; i <= 12; i++) {
      const res = await viewer(i, (i % 2 ? admin : read).token);
      expect(res.errors?.[0].extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    }
    failing = false;
    // Sockets again: a third caller is served at once, not failed fast by an open circuit.
    expect((await viewer(13, edit.token)).data?.v13.displayName).toBe('Ada edit');
  });
});
