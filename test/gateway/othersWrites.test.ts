/**
 * Single-flight and kept answers are per caller, and a caller's own write forgets them; another
 * caller's write on the same replica must too: once that write is answered, a read that starts
 * after it (of any caller) must not take the answer of a call started before it. A proxy holds a
 * read's answer (the state before) until the test releases it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SharedReads } from '../../src/rest/singleFlight.js';
import { holdNextRead, startSwitchProxy, type SwitchProxy } from '../helpers/switchProxy.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';
import { listening, startReplica, stopAfterEach, waitFor } from '../helpers/redis.js';

const SPACE = `query Space($spaceId: String!) { space(spaceId: $spaceId) { title } }`;
const SPACE_AND_VISIBILITY = `query SpaceAndVisibility($spaceId: String!) { space(spaceId: $spaceId) { title visibility } }`;
const RENAME = 'mutation Rename($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { title } } }';

let upstream: TestUpstream;
let proxy: SwitchProxy;
beforeAll(async () => {
  upstream = await startUpstream();
  proxy = await startSwitchProxy(upstream.url);
});
afterAll(async () => {
  await proxy.stop();
  await upstream.stop();
});

describe('another caller’s write on the same replica', () => {
  const track = stopAfterEach();

  it('a read that starts after it does not join the reader’s call started before it', async () => {
    const { admin, read } = upstream.world.users;
    const spaceId = (await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Before' })).body.id;
    const one = await listening(track(startReplica(proxy.url, { responseCacheTtlMs: 0 })));
    const { held, release } = holdNextRead(proxy, spaceId);
    // The reads of the space, as single-flight sees them (joined or not).
    const reads = vi.spyOn(SharedReads.prototype, 'read');
    const readsOfSpace = () => reads.mock.calls.filter(([, req]) => req.url.endsWith(`/spaces/${spaceId}`)).length;
    try {
      const first = one.post({ query: SPACE, variables: { spaceId } }, read.token);
      await held; // the upstream answered the reader's read: the title before
      const renamed = await one.post({ query: RENAME, variables: { input: { spaceId, title: 'After' } } }, admin.token);
      expect(renamed.json.errors).toBeUndefined();
      expect(renamed.json.data?.updateSpace.space.title).toBe('After');
      // The reader reads again, after the rename was answered, while its read from before is held.
      const before = readsOfSpace();
      const second = one.post({ query: SPACE_AND_VISIBILITY, variables: { spaceId } }, read.token);
      await waitFor(() => readsOfSpace() > before, 'the second read reached single-flight');
      release();
      expect((await first).json.data?.space.title).toBe('Before');
      expect((await second).json.data?.space.title).toBe('After');
    } finally {
      reads.mockRestore();
    }
  });
});
