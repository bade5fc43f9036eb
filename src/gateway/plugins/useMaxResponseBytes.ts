/**
 * Refuses a result larger than `maxResponseBytes` before it is serialized: the REST loader makes
 * one call per object, but each occurrence of the object in the result (an id repeated in
 * `nodes(ids:)` or `_entities`, aliases of one lookup) is written out again, so 100 × one 950 KB
 * comment at cost 101 would answer 95 MB. The result holds each REST string once, by reference;
 * its serialized size is counted by one walk over its values (string lengths, no serializing), which
 * stops as soon as the bound is passed. Over it, the whole result becomes BAD_USER_INPUT
 * `maxResponseBytes: …` (no data). A streamed result (@defer/@stream) counts all its parts and ends
 * with the error at the part that passes the bound; a subscription bounds each event.
 */
import type { ExecutionResult, GraphQLError } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import { limitError } from '../lib/limitError.js';

/** JSON length of `value` (strings by their length, before escaping), or a number above `budget` once it is passed. */
export function jsonSize(value: unknown, budget: number): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
    case 'bigint':
      return String(value).length;
    case 'boolean':
      return value ? 4 : 5;
    case 'object': {
      if (value === null) return 4;
      let size = 2;
      if (Array.isArray(value)) {
        for (const item of value) if ((size += jsonSize(item, budget - size) + 1) > budget) return size;
        return size;
      }
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item !== undefined && (size += key.length + 4 + jsonSize(item, budget - size)) > budget) return size;
      }
      return size;
    }
    default:
      return 0;
  }
}

export function useMaxResponseBytes(maxResponseBytes: number): Plugin {
  const refusal = () =>
    limitError(
      'maxResponseBytes',
      maxResponseBytes,
      `Response size limit of ${maxResponseBytes} bytes exceeded (each occurrence of an object counts; select fewer or smaller fields, or page).`,
    );
  const bound = (result: ExecutionResult): ExecutionResult => (jsonSize(result, maxResponseBytes) > maxResponseBytes ? { errors: [refusal()] } : result);
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result)) setResult(result.map(bound));
      else if (!isAsyncIterable(result)) setResult(bound(result as ExecutionResult));
      else setResult(boundedStream(result as AsyncIterable<ExecutionResult>, maxResponseBytes, refusal));
    },
  };
}

/** Parts of an incremental result (they carry `hasNext`) count together; subscription events one by one. */
function boundedStream(source: AsyncIterable<ExecutionResult>, max: number, refusal: () => GraphQLError): AsyncIterableIterator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  let total = 0;
  return mapAsyncIterator(iterator, (part: ExecutionResult & { hasNext?: boolean }) => {
    const incremental = 'hasNext' in part;
    const size = jsonSize(part, max - (incremental ? total : 0));
    if (incremental) total += size;
    if ((incremental ? total : size) <= max) return part;
    if (!incremental) return { errors: [refusal()] };
    void iterator.return?.();
    return { errors: [refusal()], hasNext: false };
  });
}
