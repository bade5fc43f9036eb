/**
 * Introspection-only operations are executed in a worker thread, not on the gateway's event loop
 * (issue 18: the first full introspection with a token held every other caller back for 15–45 ms;
 * distinct documents did it again each). The answers are the ones the event loop gave, variables,
 * operation names, fragments, errors and `@defer` included.
 */
import { __Schema, execute, parse, type GraphQLField, type GraphQLSchema } from 'graphql';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { clientSchemaOf } from '../../src/schema/lib/federation.js';
import { ANSWER_MS, IDLE_MS, MAX_PENDING } from '../../src/gateway/lib/introspectionWorker.js';
import { startStack } from '../helpers/gateway.js';
import { httpStack } from '../helpers/httpStack.js';
import { FULL_INTROSPECTION } from '../helpers/introspection.js';

const FULL = FULL_INTROSPECTION;

const stack = httpStack();
const token = () => `Bearer ${stack.t.world.users.read.token}`;
/** The schema the gateway executes against (Yoga's, with `@defer` and `@stream`). */
const gatewaySchema = () => stack.t.gateway.yoga.getEnveloped().schema as GraphQLSchema;

// Counts executions of introspection on the event loop: graphql's own `__Schema.types` resolver.
const types = __Schema.getFields().types as GraphQLField<unknown, unknown>;
const resolve = types.resolve!;
let onEventLoop = 0;
beforeAll(() => {
  types.resolve = (...args) => (onEventLoop++, resolve(...args));
});
afterEach(() => void (onEventLoop = 0));

describe('introspection in a worker thread', () => {
  it('answers the full introspection query exactly as the event loop executes it', async () => {
    const { status, result } = await stack.post({ query: FULL }, token());
    expect(status).toBe(200);
    onEventLoop = 0;
    const expected = JSON.parse(JSON.stringify(execute({ schema: clientSchemaOf(gatewaySchema()), document: parse(FULL) })));
    expect(result).toEqual(expected);
    expect(result.data.__schema.types.map((t: { name: string }) => t.name)).toContain('Float');
  });

  it('executes distinct introspection documents in the worker, none on the event loop', async () => {
    const before = stack.t.gateway.introspection.executions;
    for (let i = 0; i < 3; i++) {
      const { result } = await stack.post({ query: `{ __schema { types { name } } n${i}: __typename }` }, token());
      expect(result.data.__schema.types.length).toBeGreaterThan(300);
      expect(result.data[`n${i}`]).toBe('Query');
    }
    expect(onEventLoop).toBe(0);
    expect(stack.t.gateway.introspection.executions).toBe(before + 3);
  });

  it('an operation mixing introspection with other fields: its introspection half in the worker, fields in order', async () => {
    const alone = (await stack.post({ query: '{ __schema { types { name } } }' }, token())).result;
    const viewer = (await stack.post({ query: '{ viewer { restId } }' }, token())).result;
    const before = stack.t.gateway.introspection.executions;
    onEventLoop = 0;
    const query = `query Mixed(
      $n: String!
    ) {
      a: viewer { restId }
      __schema { types { name } }
      t: __typename
      __type(name: $n) { name }
      missing: space(spaceId: "no-such-space") { title }
    }`;
    const { status, result } = await stack.post({ query, variables: { n: 'Space' } }, token());
    expect(status).toBe(200);
    expect(Object.keys(result.data)).toEqual(['a', '__schema', 't', '__type', 'missing']);
    expect(result.data).toEqual({
      a: viewer.data.viewer,
      __schema: alone.data.__schema,
      t: 'Query',
      __type: { name: 'Space' },
      missing: null,
    });
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['missing'], 'NOT_FOUND']]);
    expect(onEventLoop).toBe(0);
    expect(stack.t.gateway.introspection.executions).toBe(before + 1);
    // A refused variable: one error (not one per half), located in the request's own text.
    const bad = await stack.post({ query, variables: { n: 5 } }, token());
    expect(bad).toEqual({
      status: 400,
      result: {
        errors: [
          {
            message: 'Variable "$n" got invalid value 5; String cannot represent a non string value: 5',
            locations: [{ line: 2, column: 7 }],
            extensions: { code: 'BAD_USER_INPUT' },
          },
        ],
      },
    });
    // With @defer (or root fields in fragments) it is not split: it runs here, as before.
    const deferred = await fetch(stack.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', authorization: token() },
      body: JSON.stringify({ query: '{ __schema { types { name } } viewer { ... @defer { restId } } }' }),
    });
    expect([deferred.status, (await deferred.text()).includes('"restId"')]).toEqual([200, true]);
    expect(onEventLoop).toBe(1);
    const fragment = await stack.post({ query: '{ ...Q } fragment Q on Query { __schema { types { name } } viewer { restId } }' }, token());
    expect(fragment.result.data.__schema).toEqual(alone.data.__schema);
    expect(onEventLoop).toBe(2);
  });

  it('answers root fields aliased `__proto__` or `constructor` beside introspection as any other', async () => {
    const viewer = (await stack.post({ query: '{ viewer { restId } }' }, token())).result;
    const { status, result } = await stack.post(
      { query: '{ __proto__: viewer { restId } constructor: __typename __schema { queryType { name } } }' },
      token(),
    );
    expect(status).toBe(200);
    // Own keys of the parsed answer (`toEqual({ __proto__: … })` would set a prototype instead).
    expect(Object.entries(result.data)).toEqual([
      ['__proto__', viewer.data.viewer],
      ['constructor', 'Query'],
      ['__schema', { queryType: { name: 'Query' } }],
    ]);
  });
  it('variables, operation names and fragments answer as before', async () => {
    const byName = 'query Types($n: String!) { __type(name: $n) { ...T } } fragment T on __Type { name kind fields { name } }';
    const space = await stack.post({ query: byName, variables: { n: 'Space' } }, token());
    expect(space.result.data.__type).toMatchObject({ name: 'Space', kind: 'OBJECT' });
    expect(space.result.data.__type.fields.map((f: { name: string }) => f.name)).toContain('title');
    expect((await stack.post({ query: byName, variables: { n: 'NoSuchType' } }, token())).result).toEqual({ data: { __type: null } });
    const two = 'query A { __type(name: "Space") { name } } query B { __schema { queryType { name } } }';
    expect((await stack.post({ query: two, operationName: 'B' }, token())).result).toEqual({
      data: { __schema: { queryType: { name: 'Query' } } },
    });
    expect(onEventLoop).toBe(0);
  });

  it('a bad variable is the same BAD_USER_INPUT, with its location', async () => {
    const query = 'query Types($n: String!) { __type(name: $n) { name } }';
    for (const [variables, message] of [
      [undefined, 'Variable "$n" of required type "String!" was not provided.'],
      [{ n: 5 }, 'Variable "$n" got invalid value 5; String cannot represent a non string value: 5'],
    ] as const)
      expect(await stack.post({ query, variables }, token())).toEqual({
        status: 400,
        result: { errors: [{ message, locations: [{ line: 1, column: 13 }], extensions: { code: 'BAD_USER_INPUT' } }] },
      });
  });

  it('@defer answers the same parts', async () => {
    const res = await fetch(stack.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', authorization: token() },
      body: JSON.stringify({ query: '{ __typename ... @defer(label: "d") { __type(name: "Space") { name } } }' }),
    });
    expect(res.status).toBe(200);
    const parts = (await res.text())
      .split('\r\n---')
      .map((p) => p.slice(p.indexOf('{')))
      .filter((p) => p.startsWith('{'))
      .map((p) => JSON.parse(p.trim()));
    expect(parts).toEqual([
      { data: { __typename: 'Query' }, hasNext: true },
      { incremental: [{ data: { __type: { name: 'Space' } }, path: [], label: 'd' }], hasNext: false },
    ]);
    expect(onEventLoop).toBe(0);
  });

  it(`keeps at most ${MAX_PENDING} distinct operations waiting; identical ones share one execution`, async () => {
    const worker = stack.t.gateway.introspection;
    const schema = clientSchemaOf(gatewaySchema());
    const run = (query: string) => worker.execute({ schema, document: parse(query) }) as Promise<{ data?: unknown; errors?: any[] }>;
    const before = worker.executions;
    const distinct = await Promise.all(
      Array.from({ length: MAX_PENDING + 2 }, (_, i) => run(`{ __schema { queryType { name } } d${i}: __typename }`)),
    );
    const refused = distinct.filter((r) => r.errors);
    expect(refused).toHaveLength(2);
    expect(refused[0].errors![0].extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 });
    expect(worker.executions).toBe(before + MAX_PENDING);
    const same = await Promise.all(
      Array.from({ length: MAX_PENDING + 2 }, () => run('{ __schema { queryType { name } } same: __typename }')),
    );
    expect(same.every((r) => !r.errors && (r.data as { same: string }).same === 'Query')).toBe(true);
    expect(worker.executions).toBe(before + MAX_PENDING + 1);
  });

  it('a worker that dies is replaced by the next introspection; its request is refused clearly', async () => {
    const introspection = stack.t.gateway.introspection;
    await stack.post({ query: '{ __schema { queryType { name } } }' }, token());
    const first = introspection.worker!;
    // Its thread ends (as the gateway's own stop ends it, so that no compilation of its code is cut
    // off: a terminate() here would risk the abort STOP_MS is about), unasked by the gateway.
    const exited = new Promise((resolve) => first.once('exit', resolve));
    first.postMessage('stop');
    await exited;
    expect(introspection.worker).toBeUndefined();
    expect((await stack.post({ query: '{ __schema { mutationType { name } } }' }, token())).result).toEqual({
      data: { __schema: { mutationType: { name: 'Mutation' } } },
    });
    expect(introspection.worker).not.toBe(first);

    // One that runs out of memory before it can answer. 4 MiB: enough for V8 to set the worker's
    // isolate up (with 1 or 2, Node 24 aborts the whole process while deserializing its snapshot),
    // too little for Node's own start in it, on Node 20, 22 and 24, so none of the worker's code
    // runs. With 8 MiB it ran out in the schema's build, hot code that V8 compiles in the
    // background: a worker torn down then is how Node 20 aborted a test process once (STOP_MS in
    // introspectionWorker.ts).
    await introspection.close();
    const limits = introspection.resourceLimits;
    introspection.resourceLimits = { maxOldGenerationSizeMb: 4, maxYoungGenerationSizeMb: 1 };
    try {
      const { status, result } = await stack.post({ query: '{ __schema { subscriptionType { name } } }' }, token());
      expect(status).toBe(503);
      expect(result.errors).toHaveLength(1);
      expect(result.errors![0].message).toMatch(/^Introspection could not be executed/);
      expect(result.errors![0].extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 });
    } finally {
      introspection.resourceLimits = limits;
    }
    expect((await stack.post({ query: '{ __schema { subscriptionType { name } } }' }, token())).result).toEqual({
      data: { __schema: { subscriptionType: { name: 'Subscription' } } },
    });
  });

  it('a worker that does not answer in time is ended, its request refused clearly', async () => {
    const introspection = stack.t.gateway.introspection;
    await introspection.close();
    // A new worker builds the schema first (about 55 ms): an answer within 1 ms cannot come.
    introspection.answerMs = 1;
    try {
      const { status, result } = await stack.post({ query: '{ __schema { queryType { name } } late: __typename }' }, token());
      expect(status).toBe(503);
      expect(result.errors![0].message).toMatch(/^Introspection could not be executed/);
      expect(introspection.worker).toBeUndefined();
    } finally {
      introspection.answerMs = ANSWER_MS;
    }
    expect((await stack.post({ query: '{ __schema { queryType { name } } late: __typename }' }, token())).result).toEqual({
      data: { __schema: { queryType: { name: 'Query' } }, late: 'Query' },
    });
  });
});

describe('an idle worker', () => {
  it('ends, and the next introspection starts another', async () => {
    const introspection = stack.t.gateway.introspection;
    await stack.post({ query: '{ __schema { queryType { name } } idle1: __typename }' }, token());
    const first = introspection.worker!;
    expect(first.threadId).toBeGreaterThan(0);
    introspection.idleMs = 0;
    try {
      await stack.post({ query: '{ __schema { queryType { name } } idle2: __typename }' }, token());
      if (first.threadId !== -1) await new Promise((resolve) => first.once('exit', resolve));
      expect(introspection.worker).toBeUndefined();
    } finally {
      introspection.idleMs = IDLE_MS;
    }
    expect((await stack.post({ query: '{ __schema { queryType { name } } idle3: __typename }' }, token())).result.data).toEqual({
      __schema: { queryType: { name: 'Query' } },
      idle3: 'Query',
    });
    expect(introspection.worker).not.toBe(first);
    expect(introspection.worker!.threadId).toBeGreaterThan(0);
  });
});

describe('the worker and the gateway', () => {
  it('is started on the first introspection only, and ends by itself when the gateway stops', async () => {
    const s = await startStack();
    let stopped = false;
    try {
      await s.gateway.start();
      expect(await s.data('{ viewer { restId } }')).toBeTruthy();
      expect(s.gateway.introspection.worker).toBeUndefined();
      expect((await s.gql('{ __schema { queryType { name } } }')).data).toEqual({ __schema: { queryType: { name: 'Query' } } });
      const worker = s.gateway.introspection.worker!;
      expect(worker.threadId).toBeGreaterThan(0);
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      await s.stop();
      stopped = true;
      // It ended by itself (exit code 0), not terminated (1): see STOP_MS.
      expect(await exited).toBe(0);
      expect(worker.threadId).toBe(-1);
      expect(s.gateway.introspection.worker).toBeUndefined();
    } finally {
      if (!stopped) await s.stop();
    }
  });
});

describe('an introspection answer over the response-bytes bound', () => {
  it('is refused in the worker: its text never reaches the event loop, whose bound gives the same error', async () => {
    // The full introspection answers 414 KB; the bound is 100 KB.
    await using s = await startStack({ limits: { maxResponseBytes: 100_000 } });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const { data, errors } = await s.gql(FULL);
      expect(data).toBeNull();
      expect(errors).toMatchObject([
        {
          message: expect.stringMatching(/^maxResponseBytes: /),
          extensions: { code: 'BAD_USER_INPUT', limit: 'maxResponseBytes', maximum: 100_000 },
        },
      ]);
      expect(s.gateway.introspection.executions).toBe(1);
      // Before: the event loop parsed the worker's 414 KB text, then refused the result.
      const parsedBytes = parse.mock.calls.map(([text]) => (typeof text === 'string' ? text.length : 0));
      expect(Math.max(0, ...parsedBytes)).toBeLessThan(100_000);
      // A @defer'd introspection is bounded over all its parts.
      const deferred = await s.gql(
        `{ __typename ... @defer { __schema { types { name description fields { name description args { name description } } } } } }`,
      );
      expect(JSON.stringify(deferred)).toMatch(/maxResponseBytes: /);
      // An answer within the bound is still served.
      expect((await s.gql('{ __schema { queryType { name } } }')).data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    } finally {
      parse.mockRestore();
    }
  });
});
