/**
 * Envelop's `execute` with its plugins' `onExecute` hooks run in plain loops, for the fast path
 * (plainPost.ts). Envelop 5's orchestrator (`customExecute`) runs each hook, each `onExecuteDone`
 * and each step between through its promise helpers: a fake promise and a few closures per hook
 * and request, about a fifth of what a small query allocated. The steps, payloads and order are
 * the orchestrator's:
 *
 * 1. each `onExecute` hook in turn, unbound, with the execute function as it stands (a hook may
 *    replace it, or set the result and stop the loop; what a hook returns is kept for step 3,
 *    also from the hook that stopped it);
 * 2. the result set by a hook, or else the execute function run on the arguments with the context;
 * 3. each kept `onExecuteDone` in turn on the result (which it may replace);
 * 4. on a streamed result, the `onNext` and `onEnd` handlers those returned.
 *
 * A hook's promise is awaited before the next hook runs; a synchronous hook costs no tick.
 */
import { finalAsyncIterator, isAsyncIterable, mapAsyncIterator, type Plugin } from '@envelop/core';
import { isPromise } from 'graphql-yoga';
import type { ExecutionArgs } from 'graphql';

type OnExecute = NonNullable<Plugin['onExecute']>;
type ExecuteFn = (args: ExecutionArgs) => unknown;
type AfterExecute = { onExecuteDone?: (payload: DonePayload) => unknown };
type DonePayload = { args: ExecutionArgs; result: unknown; setResult(next: unknown): void };
type StreamHandlers = { onNext?: (payload: DonePayload) => unknown; onEnd?: () => void };

const noEngine: ExecuteFn = () => {
  throw new Error('No `execute` function found! Register it using "useEngine" plugin.');
};

/** The orchestrator's `execute` for `hooks` (the plugins' `onExecute`, in their order). */
export async function executeWithHooks(hooks: readonly OnExecute[], args: ExecutionArgs): Promise<unknown> {
  let executeFn = noEngine;
  let result: unknown;
  let stopped = false;
  const context = (args.contextValue ?? {}) as Record<string, unknown>;
  const afterCalls: AfterExecute[] = [];
  for (const onExecute of hooks) {
    let after: unknown = onExecute({
      executeFn,
      setExecuteFn(next: ExecuteFn) {
        executeFn = next;
      },
      setResultAndStopExecution(value: unknown) {
        result = value;
        stopped = true;
      },
      context,
      extendContext(extension: unknown) {
        if (typeof extension !== 'object')
          throw new Error(
            `Invalid context extension provided! Expected "object", got: "${JSON.stringify(extension)}" (${typeof extension})`,
          );
        Object.assign(context, extension);
      },
      args,
    } as never);
    if (isPromise(after)) after = await after;
    if (after) afterCalls.push(after as AfterExecute);
    if (stopped) break;
  }
  if (!result) result = await executeFn({ ...args, contextValue: context });
  const handlers: StreamHandlers[] = [];
  for (const after of afterCalls) {
    if (!after.onExecuteDone) continue;
    // A method call, as Envelop makes it (its `this` is the object the hook returned).
    let done: unknown = after.onExecuteDone({
      args,
      result,
      setResult(next: unknown) {
        result = next;
      },
    });
    if (isPromise(done)) done = await done;
    if (done) handlers.push(done as StreamHandlers);
  }
  return isAsyncIterable(result) ? streamed(result, handlers, args) : result;
}

/** A streamed result with the `onNext` handlers run on each part and the `onEnd` ones at its end. */
function streamed(result: AsyncIterable<unknown>, handlers: StreamHandlers[], args: ExecutionArgs): AsyncIterable<unknown> {
  const onNext = handlers.flatMap((h) => (h.onNext ? [h.onNext] : []));
  const onEnd = handlers.flatMap((h) => (h.onEnd ? [h.onEnd] : []));
  let parts: AsyncIterable<unknown> = result;
  if (onNext.length)
    parts = mapAsyncIterator(parts as AsyncIterableIterator<unknown>, async (part: unknown) => {
      for (const handler of onNext) {
        const pending = handler({
          args,
          result: part,
          setResult(next: unknown) {
            part = next;
          },
        });
        if (isPromise(pending)) await pending;
      }
      return part;
    });
  if (onEnd.length)
    parts = finalAsyncIterator(parts as AsyncIterableIterator<unknown>, () => {
      for (const end of onEnd) end();
    });
  return parts;
}
