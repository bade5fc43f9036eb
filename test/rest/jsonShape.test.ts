/**
 * What parsing a large answer builds is bounded before the parse (src/rest/jsonShape.ts): an
 * answer nested too deep is refused unparsed, one whose parse would pass the budget of answers
 * held at once is refused, and the others are charged to it for what their parse builds, not for
 * their text. Through real HTTP (a scripted server).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createRestClient, RestError, type RestClient } from '../../src/rest/index.js';
import { jsonShape, LARGE_OBJECT_MEMBERS, MAX_JSON_DEPTH, SHAPE_FROM_CHARS } from '../../src/rest/jsonShape.js';
import { json, startBadServer, type BadServer, type Step } from '../helpers/badServer.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function setup(budget: number): Promise<{ server: BadServer; rest: RestClient }> {
  const server = await startBadServer();
  cleanup.push(() => server.stop());
  const rest = createRestClient({ baseUrl: server.url, answerBytesInFlight: budget, retries: 0 });
  cleanup.push(() => rest.close());
  return { server, rest };
}

/** A 200 whose body is `text`, as is. */
const raw =
  (text: string): Step =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

/** Enough characters of a string to make an answer one whose shape is looked at. */
const PAD = 'p'.repeat(SHAPE_FROM_CHARS);

async function failure(promise: Promise<unknown>): Promise<RestError> {
  const error = await promise.then(
    () => expect.fail('expected the call to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RestError);
  return error as RestError;
}

describe('the shape of a JSON text', () => {
  it('is read outside strings: brackets, braces and escaped quotes inside them do not count', () => {
    expect(jsonShape('{"a":"[[{\\"]]\\\\","b":[1,{"c":"}"}]}')).toEqual({
      tooDeep: false,
      containers: 3,
      commas: 2,
      largeObjectMembers: 0,
    });
    expect(jsonShape('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toMatchObject({ tooDeep: false });
    expect(jsonShape('['.repeat(MAX_JSON_DEPTH + 1))).toMatchObject({ tooDeep: true });
  });

  it(`counts the members of objects of more than ${LARGE_OBJECT_MEMBERS} (hash tables once parsed), not of arrays or smaller objects`, () => {
    const members = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":[1,2]`).join(',');
    const large = LARGE_OBJECT_MEMBERS + 1;
    expect(jsonShape(`{${members(LARGE_OBJECT_MEMBERS)}}`).largeObjectMembers).toBe(0);
    expect(jsonShape(`{"a":{${members(large)}},"b":[${Array(1000).fill(1).join(',')}]}`).largeObjectMembers).toBe(large);
  });
});

describe('a large answer', () => {
  it(`nested deeper than ${MAX_JSON_DEPTH} is UPSTREAM_ERROR, unparsed (valid or not)`, async () => {
    const { server, rest } = await setup(10_000_000);
    const deep = 600;
    // Before: the valid one was parsed, the other (19.9 MB of `[` took RSS from 92 to 1,428 MB) was "invalid JSON".
    server.script(raw(`{"pad":"${PAD}","items":${'['.repeat(deep)}${']'.repeat(deep)}}`), raw('['.repeat(200_000)));
    for (const path of ['/valid', '/invalid']) {
      const error = await failure(rest.forCaller('Bearer tok-a').get(path));
      expect(error.message).toBe("Upstream error: the REST API's answer is too deeply nested");
      expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 200, method: 'GET', path } });
    }
    expect(rest.answers.inFlight()).toBe(0);
  });

  it('whose parse would build more than the budget (1 MB of `{}`: 19 MB parsed) is UPSTREAM_ERROR, though its text fits', async () => {
    const { server, rest } = await setup(4_000_000);
    server.script(raw(`{"items":[${Array(350_000).fill('{}').join(',')}]}`));
    const error = await failure(rest.forCaller('Bearer tok-a').get('/objects'));
    expect(error.message).toBe("Upstream error: the REST API's answer holds too many values");
    expect(error.extensions.code).toBe('UPSTREAM_ERROR');
    expect(rest.answers.inFlight()).toBe(0);
  });

  it('of one object with many members is charged for each (900,000 members, 10.5 MB, ran the heap out): UPSTREAM_ERROR', async () => {
    const { server, rest } = await setup(19_900_000);
    // 2.2 MB of text and 200,000 values: 4 MB as values, about 60 MB once parsed as one object.
    server.script(raw(`{"items":[{"id":"s1",${Array.from({ length: 200_000 }, (_, i) => `"k${i}":0`).join(',')}}]}`));
    const error = await failure(rest.forCaller('Bearer tok-a').get('/wide'));
    expect(error.message).toBe("Upstream error: the REST API's answer holds too many values");
    expect(rest.answers.inFlight()).toBe(0);
  });

  it("is held for what its parse builds: another caller's answer that fits beside its text, not beside its parse, waits", async () => {
    const { server, rest } = await setup(2_000_000);
    // 300 KB of text, about 1.5 MB once parsed (20,000 small objects).
    const items = Array.from({ length: 20_000 }, (_, i) => ({ id: `i${i}` }));
    server.script(json(200, { pad: PAD, items }));
    const operation = rest.forCaller('Bearer tok-a', { holdAnswers: true });
    expect((await operation.get<{ items: unknown[] }>('/many')).items).toHaveLength(20_000);
    expect(rest.answers.inFlight()).toBeGreaterThan(1_400_000);
    // 600 KB of another caller: it would fit beside the text (0.9 of 2 MB), not beside the parse.
    server.fallback = json(200, { text: 'x'.repeat(600_000) });
    const other = rest.forCaller('Bearer tok-b');
    expect((await failure(other.get('/text'))).extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 });
    operation.end();
    expect(rest.answers.inFlight()).toBe(0);
    expect((await other.get<{ text: string }>('/text')).text).toHaveLength(600_000);
  });

  it('an error body of many values or nested deep is not read for its message', async () => {
    const { server, rest } = await setup(10_000_000);
    server.script(
      json(400, { error: { code: 400, message: 'limit: too large' }, pad: PAD, x: JSON.parse('['.repeat(600) + ']'.repeat(600)) }),
      json(400, { error: { code: 400, message: 'limit: too large' }, pad: PAD, x: Array(1_000).fill({}) }),
    );
    for (const path of ['/deep', '/many']) {
      const error = await failure(rest.forCaller('Bearer tok-a').get(path));
      expect(error.extensions.code).toBe('BAD_USER_INPUT');
      expect(error.message).toBe('Invalid input');
    }
  });
});
