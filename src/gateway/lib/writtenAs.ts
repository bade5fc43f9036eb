/**
 * A result whose JSON is already made: Yoga writes a result through the result's own `stringify`
 * when it has one (processRegularResult), so a copy carrying one returns the text made once (by
 * the introspection worker, or on a kept result's first hit) instead of serializing 414 KB again
 * for every request. A copy that a later hook turned into another result (other data, errors,
 * extensions or fields) is serialized as usual.
 */
import type { ExecutionResult } from 'graphql';

type Written = ExecutionResult & { stringify?: (result: ExecutionResult) => string };

/** Each copy made by `writtenAs`: the result it holds and its text. */
const sources = new WeakMap<object, { result: ExecutionResult; text: () => string }>();

/** A shallow copy of `result` (with `extra`'s fields) that Yoga writes as `text()`. */
export function writtenAs(result: ExecutionResult, text: () => string, extra: object = {}): ExecutionResult {
  const copy = { ...result, ...extra };
  sources.set(copy, { result, text });
  Object.defineProperty(copy, 'stringify', {
    value: (written: ExecutionResult) => (sameAs(written, result) ? text() : JSON.stringify(written)),
  });
  return copy;
}

/** The text a result made by `writtenAs` is written as, if it is one and still holds its result. */
export function writtenText(result: ExecutionResult): string | undefined {
  const stringify = (result as Written).stringify;
  return typeof stringify === 'function' ? stringify(result) : undefined;
}

/** The length of the text `written` is written as, when it is a copy `writtenAs` made that still holds its result. */
export function writtenLength(written: ExecutionResult): number | undefined {
  const source = sources.get(written);
  return source && sameAs(written, source.result) ? source.text().length : undefined;
}

/** Whether `written` holds `result`'s fields and nothing more. */
function sameAs(written: ExecutionResult, result: ExecutionResult): boolean {
  return (
    written.data === result.data &&
    written.errors === result.errors &&
    written.extensions === result.extensions &&
    Object.keys(written).length === Object.keys(result).length
  );
}
