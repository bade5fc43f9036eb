/**
 * An operation without `@defer` or `@stream` runs on graphql-js's own executor; one with them on
 * Yoga's (@graphql-tools/executor, which delivers their parts). The results are the same; the
 * cost is not: @graphql-tools/executor runs every field through promise helpers (a fake promise
 * and a few closures per field), and on the nested query of docs/BENCHMARKS.md (83 fields) it
 * allocated about a tenth of the request's garbage more than graphql-js.
 *
 * One difference kept as it was: an operation refused before it runs (a variable that does not
 * coerce) carries HTTP status 400, as @graphql-tools/executor marks it (Yoga answers 400).
 *
 * First in the plugin list: each later `onExecute` hook wraps the execute function this one sets.
 */
import { execute, Kind, visit, BREAK, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { isPromise, type Plugin } from 'graphql-yoga';

/** Whether a document uses `@defer` or `@stream`, by document (the parse cache keeps one per text). */
const incremental = new WeakMap<DocumentNode, boolean>();

function isIncremental(document: DocumentNode): boolean {
  let found = incremental.get(document);
  if (found === undefined) {
    let named = false;
    visit(document, {
      [Kind.DIRECTIVE](node) {
        if (node.name.value !== 'defer' && node.name.value !== 'stream') return undefined;
        named = true;
        return BREAK;
      },
    });
    incremental.set(document, (found = named));
  }
  return found;
}

/** graphql-js's `execute`, its refusals before execution marked 400 as @graphql-tools/executor marks them. */
function plainExecute(args: ExecutionArgs): ReturnType<typeof execute> {
  const result = execute(args);
  if (!isPromise(result) && !('data' in result)) markRefused(result);
  return result;
}

function markRefused(result: ExecutionResult): void {
  for (const error of result.errors ?? []) {
    const extensions = error.extensions as Record<string, unknown>;
    const http = (extensions.http ?? {}) as Record<string, unknown>;
    Object.defineProperty(error, 'extensions', { value: { ...extensions, http: { ...http, status: 400 } } });
  }
}

export function usePlainExecutor(): Plugin {
  return {
    onExecute({ args, setExecuteFn }) {
      if (!isIncremental(args.document)) setExecuteFn(plainExecute as never);
    },
  };
}
