/**
 * Introspection-only operations (every root field `__schema`, `__type` or `__typename`, at least
 * one of the first two; useClientIntrospection.ts) are executed in a worker thread, so the
 * gateway's event loop never runs the introspection executor: on it, the first full introspection
 * (a 414 KB result) took 15–45 ms, and every caller's request queued behind it waited as long; a
 * caller with a token could send distinct introspection documents (or `@defer` ones, never kept)
 * to repeat that at will. Kept results (useIntrospectionCache.ts) are still served on the event
 * loop, and the access check and the cost limit still run there before.
 *
 * The worker is started on the first introspection that needs executing (not at start: most
 * gateways are never introspected), `unref()`ed, and ended by `close()` (Gateway.stop; see STOP_MS) or
 * after IDLE_MS without work. It is given the client schema as SDL (printed once per schema, in
 * slices between other work: see printInSlices) and builds it with `buildSchema` (about 55 ms,
 * there). A print loses two things, which go with it so that the answer is exactly the one the
 * event loop would give (a test compares them; an earlier try without them lost `Float` and
 * reordered them): the order of the type map (a standard scalar no field uses, `Float`, is not
 * printed at all) and the order of the specified directives' locations (`lexicographicSortSchema`
 * sorted them; they are not printed). It executes with Yoga's own executor
 * (@graphql-tools/executor, so `@defer` and `@stream` parts are the same; they are delivered
 * together once all are made) and answers JSON text, which the event loop parses: 2–3 ms for the
 * full answer (receiving it as an object, by structured clone, measured the same), against the
 * 15–45 ms of executing it. Keeping that text to write it out as is (for kept results too) would
 * save serializing it again, 1.3–1.5 ms of the 5 ms a kept full answer takes the event loop, but
 * the response-bytes bound, the in-flight budget, compression and the kept-results cache all take
 * the result as an object: not worth a second path.
 *
 * At most MAX_PENDING distinct operations wait for the worker (identical ones in flight share one
 * execution); beyond that the operation is refused with UPSTREAM_UNAVAILABLE (`retryAfter: 1`,
 * HTTP 503), as is one whose worker died or could not start (out of memory, an error) or did not
 * answer within ANSWER_MS (it is ended then): the next introspection starts a new one. Its heap
 * is capped (RESOURCE_LIMITS; not below 4 MiB: with 1 or 2, Node 24 aborts the whole process while
 * it sets the worker's isolate up); the process's RSS grows by about 30–35 MiB while it runs
 * (measured on Node 20 with eight full introspections at once).
 */
import { createRequire } from 'node:module';
import { setImmediate as yieldNow } from 'node:timers/promises';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import {
  GraphQLError,
  GraphQLSchema,
  Source,
  isIntrospectionType,
  isSpecifiedDirective,
  isSpecifiedScalarType,
  print,
  printSchema,
  printType,
  type OperationTypeNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLFormattedError,
} from 'graphql';
import type { Logger } from '../../log.js';
import { jsonSize } from './jsonSize.js';
import { responseBytesError } from './limitError.js';
import { writtenAs } from './writtenAs.js';
import { variablesKey } from './variablesKey.js';

/** Distinct operations waiting for the worker at most (each a few ms to 45 ms of its time). */
export const MAX_PENDING = 8;
/**
 * The worker's heap: the built schema and eight full introspections at once ran in 16 MiB of old
 * generation (12 ran out of memory at the build); twice that for margin. A small young generation:
 * the process's RSS with the worker was 180 MiB, against 200 MiB with a 16 MiB one, as fast.
 */
export const RESOURCE_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 };
/**
 * A worker with nothing to do for this long ends, and its memory with it: introspection comes in
 * bursts (a GraphiQL page, a codegen run), and repeats are served from the kept results without
 * it. The next one starts it again (the print is kept: about 60 ms of its own thread).
 */
export const IDLE_MS = 30_000;
/**
 * The longest an operation may wait for the worker's answer (the build and the full introspection
 * take well under a second, 0.1 s of CPU): past it the worker is taken for stuck and ended, its
 * waiting operations refused, so that no request waits for it without end.
 */
export const ANSWER_MS = 10_000;

/**
 * The worker thread's nice value (Linux only): its build and executions (about 0.1 s of CPU for
 * the first full introspection) compete for the cores with the event loop and the requests it
 * serves; at 10, against a busy nice-0 thread on the same core, it gets about a tenth of it.
 */
const NICE = 10;

/**
 * How a worker is ended: asked to stop, it waits SETTLE_MS (for V8's background compilations of
 * its code, a few ms each) and closes its port, so that its thread ends by itself; one that has
 * not ended within STOP_MS (stuck in an execution) is terminated. Why: on Node 20, a worker
 * terminated while V8 compiled its hot code in the background aborted the whole process now and
 * then (`NodePlatform::ForIsolate … Assertion failed`, from a compile task of the isolate being
 * torn down; seen once in the test suite, where gateways are stopped right after introspections).
 */
const SETTLE_MS = 50;
export const STOP_MS = 2_000;

const WORKER = `
const NICE = ${NICE};
const { parentPort, workerData } = require('node:worker_threads');
// Below the event loop's priority: on Linux the nice value is the thread's own (elsewhere it would be the process's).
if (process.platform === 'linux') try { require('node:os').setPriority(NICE); } catch {}
const g = require(workerData.graphql);
const { normalizedExecutor } = require(workerData.executor);
const { sdl, description, types, directives } = workerData.schema;
const built = g.buildSchema(sdl, { assumeValidSDL: true });
const scalars = new Map(g.specifiedScalarTypes.map((t) => [t.name, t]));
const schema = new g.GraphQLSchema({
  ...built.toConfig(),
  types: types.map((name) => built.getType(name) ?? scalars.get(name)),
  directives: directives.map(({ name, locations }) => new g.GraphQLDirective({ ...built.getDirective(name).toConfig(), locations })),
  description,
  assumeValid: true,
});
// An error a resolver threw (not one GraphQL made) is marked, for the gateway's masking.
const format = (e) => ({ ...e.toJSON(), positions: e.positions, ...(e.originalError && !(e.originalError instanceof g.GraphQLError) ? { unexpected: true } : {}) });
const formatted = (r) => ({
  ...r,
  ...(r.errors ? { errors: r.errors.map(format) } : {}),
  ...(r.incremental ? { incremental: r.incremental.map(formatted) } : {}),
});
// The gateway's response-bytes bound, measured as the event loop measures it (jsonSize.ts): an
// answer over it is not sent, so the event loop never receives or parses its text.
const maxBytes = workerData.maxBytes;
const jsonSize = ${jsonSize.toString()};
const run = async ({ query, variables, operationName }) => {
  const result = await normalizedExecutor({ schema, document: g.parse(query), variableValues: variables, operationName });
  if (typeof result[Symbol.asyncIterator] !== 'function') {
    const whole = formatted(result);
    return jsonSize(whole, maxBytes) > maxBytes ? { tooLarge: true } : { json: JSON.stringify(whole) };
  }
  const parts = [];
  let size = 0;
  for await (const part of result) {
    parts.push(formatted(part));
    if ((size += jsonSize(parts.at(-1), maxBytes - size)) > maxBytes) return { tooLarge: true };
  }
  return { json: JSON.stringify(parts), streamed: true };
};
parentPort.on('message', (task) => {
  // Asked to end: the port closes once V8's background compilations of its code are done, and the
  // thread's loop ends by itself (see STOP_MS).
  if (task === 'stop') return void setTimeout(() => parentPort.close(), ${SETTLE_MS});
  run(task).then(
    (answer) => parentPort.postMessage({ id: task.id, ...answer }),
    (error) => parentPort.postMessage({ id: task.id, error: String(error && error.message) }),
  );
});
`;

/** The worker's answer: its JSON text, or that it passed the response-bytes bound. */
type Answer = { json: string; streamed?: boolean } | { tooLarge: true };

interface Running {
  schema: GraphQLSchema;
  /** Once the schema is printed. */
  worker?: Worker;
  /** Operations sent (or to send, before the worker is there) and not answered, by key. */
  pending: Map<string, Task>;
  /** Ends an idle worker (armed when the last pending operation is answered). */
  idle?: NodeJS.Timeout;
}

interface Task {
  id: number;
  message: { id: number; query: string; variables: unknown; operationName: unknown };
  answer: Promise<Answer>;
  settle: (answer: Answer | Error) => void;
  /**
   * The answer parsed, once for all the identical operations waiting for it: parsed for each, 60
   * simultaneous full introspections held 60 copies of the 414 KB result's objects (RSS 272 MiB,
   * against 160 when the event loop executed them one after the other).
   */
  parsed?: Promise<{ result: Part; json: string } | { parts: Part[] } | { tooLarge: true }>;
}

type FormattedError = GraphQLFormattedError & { positions?: number[]; unexpected?: true };
type Part = ExecutionResult & { incremental?: Part[] };

/**
 * An error as the event loop's execution would have made it: located by positions in the
 * document's source (Yoga makes its errors anew from those), a resolver's exception still one for
 * the masking.
 */
const revive = (source: Source) => (error: FormattedError) =>
  new GraphQLError(error.message, {
    source: error.positions ? source : undefined,
    positions: error.positions,
    path: error.path,
    extensions: error.extensions,
    originalError: error.unexpected ? new Error(error.message) : undefined,
  });

function revived(part: Part, source: Source): Part {
  const errors = part.errors as FormattedError[] | undefined;
  return {
    ...part,
    ...(errors ? { errors: errors.map(revive(source)) } : {}),
    ...(part.incremental ? { incremental: part.incremental.map((p) => revived(p, source)) } : {}),
  };
}

const unavailable = (message: string): ExecutionResult => ({
  data: null,
  errors: [
    new GraphQLError(message, {
      extensions: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1, http: { status: 503, headers: { 'Retry-After': '1' } } },
    }),
  ],
});

interface PrintedSchema {
  sdl: string;
  description: string | undefined;
  types: string[];
  directives: Array<{ name: string; locations: string[] }>;
}

/** The print yields to the event loop whenever a slice of it took this long. */
const SLICE_MS = 1;

/**
 * What the worker is given: the client schema's SDL, with what a print loses (see above). Printed
 * a type at a time, yielding every SLICE_MS (printSchema at once took 3–8 ms, 20 under a
 * profiler), as printSchema would print it: the custom directives (`@defer`, `@stream`) and the
 * types their arguments use first, then every other type; the roots named explicitly.
 */
async function printInSlices(schema: GraphQLSchema): Promise<PrintedSchema> {
  const head = new GraphQLSchema({ directives: schema.getDirectives().filter((d) => !isSpecifiedDirective(d)) });
  const roots = (['query', 'mutation', 'subscription'] as const).flatMap((op) => {
    const type = schema.getRootType(op as OperationTypeNode);
    return type ? [`  ${op}: ${type.name}`] : [];
  });
  const parts = [`schema {\n${roots.join('\n')}\n}`, printSchema(head)];
  const printed = new Set(Object.keys(head.getTypeMap()));
  let slice = performance.now();
  for (const type of Object.values(schema.getTypeMap())) {
    if (printed.has(type.name) || isSpecifiedScalarType(type) || isIntrospectionType(type)) continue;
    parts.push(printType(type));
    if (performance.now() - slice > SLICE_MS) {
      await yieldNow();
      slice = performance.now();
    }
  }
  return {
    sdl: parts.filter(Boolean).join('\n\n'),
    description: schema.description ?? undefined,
    types: Object.keys(schema.getTypeMap()),
    directives: schema.getDirectives().map((d) => ({ name: d.name, locations: [...d.locations] })),
  };
}

const printed = new WeakMap<GraphQLSchema, Promise<PrintedSchema>>();
function printedSchema(schema: GraphQLSchema): Promise<PrintedSchema> {
  let found = printed.get(schema);
  if (!found) {
    printed.set(schema, (found = printInSlices(schema)));
    found.catch(() => printed.delete(schema));
  }
  return found;
}

export interface IntrospectionWorker {
  /** Executes an introspection-only operation in the worker (an `executeFn` for Envelop's onExecute). */
  execute(args: ExecutionArgs): Promise<ExecutionResult | AsyncIterable<ExecutionResult>>;
  /** Operations the worker answered since the gateway started (for tests and diagnostics). */
  readonly executions: number;
  /** The running worker, if any (tests). */
  readonly worker: Worker | undefined;
  /** The worker's heap limits, used by the next worker started (tests lower them to see one die). */
  resourceLimits: ResourceLimits;
  /** How long the worker may be idle before it ends (IDLE_MS; tests shorten it). */
  idleMs: number;
  /** How long an operation may wait for its answer before the worker is ended (ANSWER_MS; tests shorten it). */
  answerMs: number;
  /** Terminates the worker; operations waiting for it are refused. */
  close(): Promise<void>;
}

/**
 * `maxBytes`: the gateway's `maxResponseBytes`. An answer over it is refused in the worker, as
 * useMaxResponseBytes.ts would refuse it, without its text reaching the event loop: 13 aliases of
 * the full introspection (5.3 MB of text, within the cost limit), eight at once, were each sent
 * to the event loop and parsed there only to be refused (peak RSS up to 291 MiB in a fuzzing run).
 */
export function introspectionWorker({ log, maxBytes }: { log: Logger; maxBytes: number }): IntrospectionWorker {
  // The modules the worker loads, as Yoga resolves them: found on the first start, not at the gateway's.
  let modules: { graphql: string; executor: string } | undefined;
  const resolveModules = () => {
    const executor = createRequire(createRequire(import.meta.url).resolve('graphql-yoga')).resolve('@graphql-tools/executor');
    return { executor, graphql: createRequire(executor).resolve('graphql') };
  };
  let running: Running | undefined;
  let nextId = 0;
  let executions = 0;

  const stopped = (current: Running, reason: string) => {
    if (running === current) running = undefined;
    clearTimeout(current.idle);
    for (const { settle } of current.pending.values()) settle(new Error(reason));
    current.pending.clear();
  };

  const start = (schema: GraphQLSchema): Running => {
    const current: Running = { schema, pending: new Map() };
    printedSchema(schema)
      .then((printed) => {
        if (running !== current) return;
        const worker = new Worker(WORKER, {
          eval: true,
          workerData: { ...(modules ??= resolveModules()), schema: printed, maxBytes },
          resourceLimits: self.resourceLimits,
        });
        worker.unref();
        current.worker = worker;
        worker.on('message', (message: { id: number; json?: string; streamed?: boolean; tooLarge?: true; error?: string }) => {
          for (const [key, task] of current.pending)
            if (task.id === message.id) {
              current.pending.delete(key);
              executions++;
              task.settle(
                message.tooLarge
                  ? { tooLarge: true }
                  : message.json === undefined
                    ? new Error(message.error)
                    : { json: message.json, streamed: message.streamed },
              );
            }
          if (current.pending.size === 0) {
            clearTimeout(current.idle);
            current.idle = setTimeout(() => {
              if (running === current && current.pending.size === 0) void self.close();
            }, self.idleMs).unref();
          }
        });
        worker.on('error', (error) => {
          log.warn('introspection worker failed; the next introspection starts a new one', { error: error.message });
          stopped(current, error.message);
        });
        worker.on('exit', (code) => {
          if (running === current) log.warn('introspection worker exited; the next introspection starts a new one', { code });
          stopped(current, `exited (${code})`);
        });
        for (const task of current.pending.values()) worker.postMessage(task.message);
      })
      .catch((error: unknown) => {
        log.warn('introspection worker could not start', { error: (error as Error).message });
        stopped(current, (error as Error).message);
      });
    return current;
  };

  const send = (current: Running, key: string, message: Omit<Task['message'], 'id'>) => {
    let settle!: (answer: Answer | Error) => void;
    const deadline = setTimeout(() => {
      if (running !== current || !current.pending.has(key)) return;
      log.warn('introspection worker did not answer in time; ended, the next introspection starts a new one', { ms: self.answerMs });
      void self.close();
    }, self.answerMs).unref();
    const answer = new Promise<Answer>((resolve, reject) => {
      settle = (a) => {
        clearTimeout(deadline);
        if (a instanceof Error) reject(a);
        else resolve(a);
      };
    });
    const id = nextId++;
    const task: Task = { id, message: { id, ...message }, answer, settle };
    clearTimeout(current.idle);
    current.pending.set(key, task);
    current.worker?.postMessage(task.message);
    return task;
  };

  const self: IntrospectionWorker = {
    resourceLimits: RESOURCE_LIMITS,
    idleMs: IDLE_MS,
    answerMs: ANSWER_MS,
    get executions() {
      return executions;
    },
    get worker() {
      return running?.worker;
    },
    async execute(args) {
      // A new schema (never, in practice): a new worker for it.
      if (running && running.schema !== args.schema) await self.close();
      const current = (running ??= start(args.schema));
      // The document's own text (the worker's errors are located in it), printed if it has none.
      const source = args.document.loc?.source ?? new Source(print(args.document));
      const query = source.body;
      const key = `${args.operationName ?? ''}\n${variablesKey(args.variableValues)}\n${query}`;
      let task = current.pending.get(key);
      if (!task) {
        if (current.pending.size >= MAX_PENDING)
          return unavailable('Too many introspection queries are being executed at once; try again shortly.');
        task = send(current, key, { query, variables: args.variableValues, operationName: args.operationName });
      }
      // Identical operations have the same text: the errors located in one's are located in all.
      task.parsed ??= task.answer.then((answer) =>
        'tooLarge' in answer
          ? answer
          : answer.streamed
            ? { parts: (JSON.parse(answer.json) as Part[]).map((p) => revived(p, source)) }
            : { result: revived(JSON.parse(answer.json) as Part, source), json: answer.json },
      );
      try {
        const parsed = await task.parsed;
        if ('tooLarge' in parsed) return { data: null, errors: [responseBytesError(maxBytes)] };
        // Each its own top level (a later hook may set its result's fields), the data shared, as kept
        // results are; one without errors is written as the worker's text (the same JSON), made once.
        if ('result' in parsed) {
          const { result, json } = parsed;
          return result.errors ? { ...result } : writtenAs(result, () => json);
        }
        const { parts } = parsed;
        return (async function* () {
          yield* parts;
        })();
      } catch {
        return unavailable('Introspection could not be executed: its worker thread stopped; try again.');
      }
    },
    async close() {
      const current = running;
      if (!current) return;
      running = undefined;
      stopped(current, 'it was stopped');
      const worker = current.worker;
      if (!worker || worker.threadId === -1) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_MS).unref()));
      if ((await Promise.race([exited, late])) === 'late') await worker.terminate();
      clearTimeout(timer);
    },
  };
  return self;
}
