/**
 * Tells each operation's REST view that the operation is over once its execution is (src/rest/
 * bytesInFlight.ts): the bytes of the REST answers it read stop counting against the budget of
 * answers held at once, and the values its connections built against theirs
 * (src/schema/lib/resultValues.ts). Its result then holds only what it selected, bounded by the response-bytes
 * bound. A streamed result (@defer, @stream) ends with its last part; a subscription holds nothing
 * (each event's reads are given back once parsed), since it may run for hours.
 */
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../../schema/context.js';

const end = (context: unknown) => {
  const ctx = context as Partial<GatewayContext> | undefined;
  ctx?.caller?.end();
  ctx?.values?.end();
};

export function useOperationEnd(): Plugin {
  return {
    onExecute: ({ args }) => ({
      onExecuteDone: ({ result }) => {
        if (!isAsyncIterable(result)) return void end(args.contextValue);
        return { onEnd: () => end(args.contextValue) };
      },
    }),
    onSubscribe: ({ args }) => void end(args.contextValue),
  };
}
