/**
 * Results of introspection-only queries (every root field `__schema`, `__type` or `__typename`),
 * kept and served again: they are the client schema's, the same for every caller, and the full
 * introspection query takes 15–45 ms to execute (a 414 KB result; in a worker thread, see
 * introspectionWorker.ts) and 2–3 ms of the event loop to receive, so a caller with a token
 * looping on it held every other caller back. Placed after the access check and the
 * cost limit (useQueryLimits.ts), so a kept result is served only to a request that passed both, as
 * an executed one would be. Kept by document text, operation name and variables, at most
 * MAX_ENTRIES results and MAX_BYTES (their keys' and JSON's length, and their text once served again), the
 * least recently used dropped first; results with
 * errors and streamed ones are not kept. (The response cache, per caller, leaves introspection
 * alone: see useClientIntrospection.ts.)
 */
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { SCHEMA_INTROSPECTION, rootFieldNames } from '../../schema/lib/rootFields.js';
import { operationVerdict } from '../lib/operationVerdict.js';
import type { SharedBodies } from '../lib/sharedBodies.js';
import { SERVED_FROM_CACHE } from '../lib/servedFromCache.js';
import { writtenAs, writtenText } from '../lib/writtenAs.js';
import { jsonSize } from '../lib/jsonSize.js';
import { variablesKey } from '../lib/variablesKey.js';

const MAX_ENTRIES = 16;
/** About ten full introspection answers (414 KB each), five once each has been served again (its text kept too). */
const MAX_BYTES = 4 * 1024 * 1024;
const INTROSPECTION_FIELDS = new Set([...SCHEMA_INTROSPECTION, '__typename']);

/** Whether the operation is a query whose every root field (fragments included) is `__schema`, `__type` or `__typename`. */
export const isIntrospectionOnly = operationVerdict(
  (operation, fragments) =>
    operation.operation === 'query' && [...rootFieldNames(operation, fragments)].every((f) => INTROSPECTION_FIELDS.has(f)),
);

interface Kept {
  result: ExecutionResult;
  /** Its key's length, its JSON's, and its text's once made. */
  bytes: number;
  text?: string;
}

/** `shared`: where a kept result's text is registered, so that it is compressed once (lib/sharedBodies.ts). */
export function useIntrospectionCache(shared?: SharedBodies): Plugin {
  const kept = new Map<string, Kept>();
  let bytes = 0;
  const keep = (key: string, result: ExecutionResult) => {
    // Identical operations answered together (one execution in the worker) are kept once.
    if (kept.get(key)?.result.data === result.data) return;
    // Its key counts too: it holds the variables as sent, those the document declares or not, and
    // sixteen `{ __schema { queryType { name } } }` sent with 1 MB of variables each held 16 MB
    // past the 4 MiB counted.
    const size = key.length + jsonSize(result, MAX_BYTES);
    if (size > MAX_BYTES) return;
    drop(key);
    const entry: Kept = { result, bytes: size };
    kept.set(key, entry);
    bytes += size;
    // The worker's text, when the result carries it: registered now, so that the requests answered
    // with this result are compressed once too.
    const text = writtenText(result);
    if (text !== undefined) withText(entry, text);
    while (kept.size > MAX_ENTRIES || bytes > MAX_BYTES) drop(kept.keys().next().value!);
  };
  /** A kept result's text, counted in the bytes kept and registered as the same for every caller. */
  const withText = (entry: Kept, text: string) => {
    entry.text = text;
    shared?.add(text);
    entry.bytes += text.length;
    bytes += text.length;
  };
  /** The kept result's JSON, made on its first hit unless it came with it. */
  const textOf = (hit: Kept): string => {
    if (hit.text === undefined) {
      withText(hit, JSON.stringify(hit.result));
      while (kept.size > 1 && bytes > MAX_BYTES) drop(kept.keys().next().value!);
    }
    return hit.text!;
  };
  const drop = (key: string) => {
    const gone = kept.get(key);
    if (!gone) return;
    bytes -= gone.bytes;
    if (gone.text !== undefined) shared?.delete(gone.text);
    kept.delete(key);
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const query = (args.contextValue as { params?: { query?: unknown } }).params?.query;
      if (typeof query !== 'string' || !isIntrospectionOnly(args.document, args.operationName)) return;
      const key = `${args.operationName ?? ''}\n${variablesKey(args.variableValues)}\n${query}`;
      const hit = kept.get(key);
      if (hit) {
        // Most recently used last; a copy, so that no later hook touches the kept one. Marked as a
        // response-cache hit is: nothing ran, but the document passed every limit (an APQ
        // registration waiting for it goes ahead, usePersistedOperations.ts).
        kept.delete(key);
        kept.set(key, hit);
        // Written as the kept text, serialized once (1.3–1.5 ms of the event loop for the full answer).
        setResultAndStopExecution(writtenAs(hit.result, () => textOf(hit), { [SERVED_FROM_CACHE]: true }));
        return;
      }
      return {
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result) && !result.errors?.length && result.data) keep(key, result);
        },
      };
    },
  };
}
