/**
 * Response compression over a real listening gateway: results above the threshold are compressed
 * in the encoding the client prefers (br or gzip), sent as they are when it accepts neither or
 * they are small, and event streams (SSE, graphql-sse, multipart @defer) are never compressed (a
 * compressor would hold their events back).
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { negotiateEncoding } from '../../src/gateway/lib/contentEncoding.js';
import { SharedBodies } from '../../src/gateway/lib/sharedBodies.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

let t: TestStack;
let url: string;
let auth: Record<string, string>;
beforeAll(async () => {
  t = await startStack();
  url = await t.gateway.start();
  auth = { authorization: `Bearer ${t.world.users.admin.token}` };
});
afterAll(() => t.stop());

/** Several kB of JSON: every type's name and fields. */
const LARGE = '{ __schema { types { name fields { name } } } }';
const SMALL = '{ __typename }';

async function post(query: string, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth, ...headers },
    body: JSON.stringify({ query }),
  });
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
}

/** Counts the compressions made through the gateway's registry of shared bodies (lib/sharedBodies.ts). */
function countCompressions() {
  const counted = { made: 0, restore: () => spy.mockRestore() };
  const compressed = SharedBodies.prototype.compressed;
  const spy = vi.spyOn(SharedBodies.prototype, 'compressed').mockImplementation(function (this: SharedBodies, body, encoding, make) {
    return compressed.call(this, body, encoding, () => (counted.made++, make()));
  });
  return counted;
}

describe('JSON results', () => {
  it('above the threshold: br or gzip as the client prefers, the same JSON once decoded; as is when neither is accepted', async () => {
    const plain = await post(LARGE);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.body.length).toBeGreaterThan(5000);
    expect(JSON.parse(plain.body.toString()).data.__schema.types.length).toBeGreaterThan(10);
    const decode = { br: brotliDecompressSync, gzip: gunzipSync };
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['deflate, gzip;q=1.0, *;q=0.5', 'gzip'],
      ['br;q=0.5, gzip', 'gzip'],
      ['*', 'br'],
    ] as const) {
      const res = await post(LARGE, { 'accept-encoding': accept });
      expect([accept, res.status, res.headers['content-encoding'], res.headers.vary]).toEqual([
        accept,
        200,
        encoding,
        expect.stringMatching(/accept-encoding/i),
      ]);
      expect(res.body.length).toBeLessThan(plain.body.length / 3);
      expect(decode[encoding](res.body).equals(plain.body)).toBe(true);
    }
    for (const accept of ['identity', 'deflate', 'br;q=0, gzip;q=0', 'gzip;q=0, br;q=0, *']) {
      const res = await post(LARGE, { 'accept-encoding': accept });
      expect([accept, res.headers['content-encoding'], res.body.equals(plain.body)]).toEqual([accept, undefined, true]);
    }
  });

  it('an answer the same for every caller (a kept introspection result) is compressed once per encoding', async () => {
    // Its own answer: a body is shared by its text, and the test above compressed LARGE's already.
    const query = '{ __schema { types { name kind fields { name } } } }';
    const counted = countCompressions();
    try {
      const plain = await post(query);
      const decode = { br: brotliDecompressSync, gzip: gunzipSync };
      for (const encoding of ['br', 'br', 'gzip', 'gzip', 'br'] as const) {
        const res = await post(query, { 'accept-encoding': encoding });
        expect(res.headers['content-encoding']).toBe(encoding);
        expect(decode[encoding](res.body).equals(plain.body)).toBe(true);
      }
      expect(counted.made).toBe(2);
    } finally {
      counted.restore();
    }
  });

  it('without compression, a kept introspection result is written from bytes made once, whole', async () => {
    const query = '{ __schema { types { name kind description } } }';
    const bytes = vi.spyOn(SharedBodies.prototype, 'bytes');
    try {
      const first = await post(query);
      const again = await post(query);
      const third = await post(query, { 'accept-encoding': 'identity' });
      expect(again.body.equals(first.body)).toBe(true);
      expect(third.body.equals(first.body)).toBe(true);
      expect(again.headers['content-length']).toBe(String(first.body.length));
      expect(again.headers.vary).toMatch(/accept-encoding/i);
      expect(JSON.parse(again.body.toString()).data.__schema.types.length).toBeGreaterThan(100);
      // The second and third answers came from the kept text's bytes, made once.
      const made = bytes.mock.results.map((r) => r.value as Buffer | undefined).filter(Boolean);
      expect(made.length).toBeGreaterThanOrEqual(2);
      expect(made[made.length - 1]).toBe(made[made.length - 2]);
    } finally {
      bytes.mockRestore();
    }
  });

  it('simultaneous first requests for one introspection answer: one execution, one compression', async () => {
    const query = '{ __schema { types { name description fields { name } } } }';
    const counted = countCompressions();
    try {
      const before = t.gateway.introspection.executions;
      const answers = await Promise.all(Array.from({ length: 10 }, () => post(query, { 'accept-encoding': 'br' })));
      const texts = answers.map((a) => brotliDecompressSync(a.body).toString());
      expect(new Set(texts).size).toBe(1);
      expect(JSON.parse(texts[0]).data.__schema.types.length).toBeGreaterThan(100);
      expect(t.gateway.introspection.executions - before).toBe(1);
      expect(counted.made).toBe(1);
    } finally {
      counted.restore();
    }
  });

  it('below the threshold: sent as is, even when compression is accepted', async () => {
    const res = await post(SMALL, { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.body.toString())).toEqual({ data: { __typename: 'Query' } });
  });

  it('Accept-Encoding negotiation', () => {
    expect(negotiateEncoding(undefined)).toBeUndefined();
    expect(negotiateEncoding('')).toBeUndefined();
    expect(negotiateEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(negotiateEncoding(' GZIP ')).toBe('gzip');
    expect(negotiateEncoding('br;q=0.1, gzip;q=0.9')).toBe('gzip');
    expect(negotiateEncoding('br;q=abc')).toBeUndefined();
    expect(negotiateEncoding('*;q=0')).toBeUndefined();
  });
});

describe('event streams are never compressed', () => {
  it('Yoga SSE and multipart @defer answer uncompressed', async () => {
    for (const accept of ['text/event-stream', 'multipart/mixed']) {
      const res = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, 'accept-encoding': 'gzip, br', ...auth },
        body: JSON.stringify({ query: `{ ... @defer { __schema { types { name fields { name } } } } }` }),
      });
      const text = await res.body.text();
      // Yoga marks its event streams `Content-Encoding: none` (telling proxies not to compress them either).
      expect([accept, res.headers['content-encoding'] ?? 'none', text.includes('__schema')]).toEqual([accept, 'none', true]);
    }
  });

  it('a graphql-sse event stream delivers each event while it stays open', async () => {
    const stream = new URL('/graphql/stream', url).href;
    const reservation = await (await fetch(stream, { method: 'PUT', headers: auth })).text();
    const token = { 'x-graphql-event-stream-token': reservation };
    const events = await request(stream, { headers: { ...auth, ...token, accept: 'text/event-stream', 'accept-encoding': 'gzip, br' } });
    expect(events.headers['content-encoding'] ?? 'none').toBe('none');
    const run = await fetch(stream, {
      method: 'POST',
      headers: { ...auth, ...token, 'content-type': 'application/json' },
      body: JSON.stringify({ query: LARGE, extensions: { operationId: 'op-1' } }),
    });
    expect(run.status).toBe(202);
    // The stream stays open: a compressor without flushes would hold this event until it ends.
    let text = '';
    for await (const chunk of events.body) {
      text += chunk.toString();
      if (text.includes('event: complete')) break;
    }
    expect(text).toContain('__schema');
    events.body.destroy();
  });
});

describe('SharedBodies', () => {
  it('makes a registered body’s form once per encoding, again after a failure, and none for other bodies', async () => {
    const shared = new SharedBodies();
    const body = 'x'.repeat(100_000);
    let made = 0;
    const make = async () => (made++, Buffer.from('made'));
    expect(shared.compressed(body, 'br', make)).toBeUndefined();
    shared.add(body);
    // Another string of the same text is the same body.
    expect(await shared.compressed('x'.repeat(100_000), 'br', make)).toEqual(Buffer.from('made'));
    await shared.compressed(body, 'br', make);
    await shared.compressed(body, 'gzip', make);
    expect(made).toBe(2);
    expect(shared.compressed(`${body}y`, 'gzip', make)).toBeUndefined();
    shared.delete(body);
    expect(shared.compressed(body, 'br', make)).toBeUndefined();
    shared.add(body);
    await expect(shared.compressed(body, 'br', async () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(await shared.compressed(body, 'br', make)).toEqual(Buffer.from('made'));
    expect(made).toBe(3);
  });

  it('gives a registered body as UTF-8 bytes, made once; none for other bodies', () => {
    const shared = new SharedBodies();
    expect(shared.bytes('é'.repeat(10))).toBeUndefined();
    shared.add('é'.repeat(10));
    const bytes = shared.bytes('é'.repeat(10))!;
    expect(bytes.toString('utf8')).toBe('é'.repeat(10));
    expect(bytes.length).toBe(20);
    expect(shared.bytes('é'.repeat(10))).toBe(bytes);
  });
});
