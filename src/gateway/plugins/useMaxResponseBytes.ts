/**
 * Refuses a result larger than `maxResponseBytes` before it is serialized: the REST loader makes
 * one call per object, but each occurrence of the object in the result (an id repeated in
 * `nodes(ids:)` or `_entities`, aliases of one lookup) is written out again, so 100 × one 950 KB
 * comment at cost 101 would answer 95 MB. The result holds each REST string once, by reference;
 * its serialized size is counted by one walk over its values (string lengths, no serializing), which
 * stops as soon as the bound is passed. Over it, the whole result becomes BAD_USER_INPUT
 * `maxResponseBytes: …` (`data: null`). A streamed result (@defer/@stream) counts all its parts and ends
 * with the error at the part that passes the bound (later parts are empty); a subscription bounds
 * each event. Checked where results are made, so every transport (graphql-sse too) is bounded,
 * and once more before serializing for results that were not executed (response-cache hits).
 */
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
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
  const checked = new WeakSet<object>();
  const bound = (result: ExecutionResult): ExecutionResult => {
    if (checked.has(result)) return result;
    // `data: null`: the operation ran (and graphql-sse takes a result without `data` for arguments).
    const bounded = jsonSize(result, maxResponseBytes) > maxResponseBytes ? { data: null, errors: [refusal()] } : result;
    checked.add(bounded);
    return bounded;
  };
  /** A subscription's events one by one. */
  const eachEvent = ({ result, setResult }: { result: ExecutionResult; setResult(r: ExecutionResult): void }) => {
    const bounded = bound(result);
    if (bounded !== result) setResult(bounded);
  };
  /** An incremental result's parts together: the part that passes the bound ends it, later parts are empty. */
  const allParts = () => {
    let total = 0;
    return ({ result, setResult }: { result: ExecutionResult; setResult(r: ExecutionResult): void }) => {
      if (total > maxResponseBytes) return setResult({ hasNext: false } as ExecutionResult);
      total += jsonSize(result, maxResponseBytes - total);
      if (total > maxResponseBytes) setResult({ errors: [refusal()], hasNext: false } as ExecutionResult);
    };
  };
  return {
    // At the source, for every transport (HTTP, SSE, graphql-sse).
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (isAsyncIterable(result)) return { onNext: allParts() as never };
        const bounded = bound(result);
        if (bounded !== result) setResult(bounded);
      },
    }),
    onSubscribe: () => ({
      onSubscribeResult: ({ result, setResult }) => {
        if (isAsyncIterable(result)) return { onNext: eachEvent as never };
        const bounded = bound(result as ExecutionResult);
        if (bounded !== result) setResult(bounded);
      },
    }),
    // What did not come from execution here (a response-cache hit).
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result)) setResult(result.map(bound));
      else if (!isAsyncIterable(result)) setResult(bound(result as ExecutionResult));
    },
  };
}
