/**
 * lib/executeHooks.ts runs the plugins' `onExecute` hooks as Envelop's orchestrator does, without
 * its promise helpers: each case runs the same plugins through Envelop (`envelop().execute`) and
 * through `executeWithHooks`, and compares the results and the order of every hook's calls.
 */
import { envelop, type Plugin } from '@envelop/core';
import { buildSchema, parse, type ExecutionArgs } from 'graphql';
import { describe, expect, it } from 'vitest';
import { executeWithHooks } from '../../src/gateway/lib/executeHooks.js';

const schema = buildSchema('type Query { a: Int }');
const document = parse('{ a }');

/** Both ways, on fresh plugins from `make` (each with its own log): their results and logs. */
async function both(make: (log: string[]) => Plugin[]) {
  const run = async (way: 'envelop' | 'loop') => {
    const log: string[] = [];
    const plugins = make(log);
    const contextValue: Record<string, unknown> = { start: 1 };
    const args = { schema, document, contextValue } as ExecutionArgs;
    const result =
      way === 'envelop'
        ? await envelop({ plugins })().execute(args)
        : await executeWithHooks(
            plugins.flatMap((p) => (p.onExecute ? [p.onExecute] : [])),
            args,
          );
    const parts: unknown[] = [];
    if (result && typeof result === 'object' && Symbol.asyncIterator in result)
      for await (const part of result as AsyncIterable<unknown>) parts.push(part);
    return { result: parts.length ? parts : result, log, context: contextValue };
  };
  return { envelop: await run('envelop'), loop: await run('loop') };
}

/** A plugin that sets the execute function (as useEngine does). */
const engine = (execute: (args: ExecutionArgs) => unknown): Plugin => ({ onExecute: ({ setExecuteFn }) => setExecuteFn(execute) });

describe('executeWithHooks runs the hooks as Envelop does', () => {
  it('hooks in order, a replaced execute function, a context extension, done hooks that set the result', async () => {
    const { envelop: e, loop } = await both((log) => [
      engine((args) => {
        log.push(`execute ${JSON.stringify(args.contextValue)}`);
        return { data: { a: 1 } };
      }),
      {
        onExecute({ executeFn, setExecuteFn, extendContext }) {
          log.push('wrap');
          extendContext({ extended: true });
          setExecuteFn((args) => {
            log.push('wrapped');
            return executeFn(args);
          });
          return {
            onExecuteDone({ result, setResult }) {
              log.push(`done 1 ${JSON.stringify(result)}`);
              setResult({ ...(result as object), extensions: { one: true } });
            },
          };
        },
      },
      {
        async onExecute() {
          log.push('async hook');
          await Promise.resolve();
          return {
            async onExecuteDone({ result, setResult }) {
              log.push(`done 2 ${JSON.stringify(result)}`);
              setResult({ ...result, extensions: { ...(result as { extensions?: object }).extensions, two: true } });
            },
          };
        },
      },
      { onExecute: () => void log.push('no done hook') },
      {
        // A done hook that reads its object's `this`, as Envelop calls it (a method call).
        onExecute: () => ({
          name: 'method',
          onExecuteDone() {
            log.push(`done of ${(this as { name: string }).name}`);
          },
        }),
      },
    ]);
    expect(loop).toEqual(e);
    expect(loop.result).toEqual({ data: { a: 1 }, extensions: { one: true, two: true } });
    expect(loop.log).toEqual([
      'wrap',
      'async hook',
      'no done hook',
      'wrapped',
      'execute {"start":1,"extended":true}',
      'done 1 {"data":{"a":1}}',
      'done 2 {"data":{"a":1},"extensions":{"one":true}}',
      'done of method',
    ]);
  });

  it('a hook that sets the result stops the later hooks and the execution; the earlier done hooks run', async () => {
    const { envelop: e, loop } = await both((log) => [
      engine(() => void log.push('execute')),
      { onExecute: () => ({ onExecuteDone: ({ result }) => void log.push(`done ${JSON.stringify(result)}`) }) },
      {
        onExecute({ setResultAndStopExecution }) {
          setResultAndStopExecution({ errors: [{ message: 'refused' }] });
          return { onExecuteDone: () => void log.push('done of the stopping hook') };
        },
      },
      { onExecute: () => void log.push('later hook') },
    ]);
    expect(loop).toEqual(e);
    expect(loop.log).toEqual(['done {"errors":[{"message":"refused"}]}', 'done of the stopping hook']);
  });

  it('a streamed result: every onNext on each part, which it may replace, then every onEnd', async () => {
    const { envelop: e, loop } = await both((log) => [
      engine(async function* () {
        for (let i = 0; i < 3; i++) yield { data: { a: i } };
      }),
      {
        onExecute: () => ({
          onExecuteDone: () => ({
            onNext({ result, setResult }) {
              log.push(`next ${JSON.stringify(result)}`);
              setResult({ ...result, extensions: { seen: true } });
            },
            onEnd: () => void log.push('end'),
          }),
        }),
      },
      { onExecute: () => ({ onExecuteDone: () => ({ onEnd: () => void log.push('end 2') }) }) },
    ]);
    expect(loop).toEqual(e);
    expect(loop.result).toEqual([0, 1, 2].map((a) => ({ data: { a }, extensions: { seen: true } })));
    expect(loop.log).toEqual(['next {"data":{"a":0}}', 'next {"data":{"a":1}}', 'next {"data":{"a":2}}', 'end', 'end 2']);
  });

  it('a hook that throws rejects the execution', async () => {
    const plugins: Plugin[] = [
      engine(() => ({ data: {} })),
      {
        onExecute() {
          throw new Error('boom');
        },
      },
    ];
    const args = { schema, document, contextValue: {} } as ExecutionArgs;
    // Envelop throws at once where the loop rejects: the fast path awaits either in one try.
    await expect((async () => envelop({ plugins })().execute(args))()).rejects.toThrow('boom');
    await expect(executeWithHooks([plugins[0].onExecute!, plugins[1].onExecute!], args)).rejects.toThrow('boom');
  });
});
