/**
 * Tells each operation's REST view that the operation is over once its execution is (src/rest/
 * bytesInFlight.ts): the bytes of the REST answers it read stop counting against the budget of
 * answers held at once, and the values its connections built against theirs
 * (src/schema/lib/resultValues.ts). Its result then holds only what it selected, bounded by the response-bytes
 * bound. A streamed result (@defer, @stream) ends with its last part; a subscription holds nothing
 * (each event's reads are given back once parsed), since it may run for hours.
 */
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Clock } from '../../rest/index.js';
import type { GatewayContext } from '../../schema/context.js';

const end = (context: unknown) => {
  const ctx = context as Partial<GatewayContext> | undefined;
  ctx?.caller?.end();
  ctx?.values?.end();
};

/**
 * An operation refused by the budget of values built at once is answered after its `retryAfter`,
 * holding what it counted until then (`ResultValues.holdAnswerMs`), so a caller that sends such
 * operations back to back sends one a second per connection, not one per refusal.
 */
export function useOperationEnd(clock: Clock): Plugin {
  return {
    onExecute: ({ args }) => ({
      onExecuteDone: ({ result }) => {
        if (isAsyncIterable(result)) return { onEnd: () => end(args.contextValue) };
        const holdMs = (args.contextValue as Partial<GatewayContext> | undefined)?.values?.holdAnswerMs ?? 0;
        if (holdMs <= 0) return void end(args.contextValue);
        return new Promise<void>((resolve) => clock.setTimeout(resolve, holdMs)).then(() => end(args.contextValue));
      },
    }),
    onSubscribe: ({ args }) => void end(args.contextValue),
  };
}
