/**
 * Refuses variables nested deeper than MAX_VARIABLES_DEPTH (arrays and objects), before anything
 * walks them: coercion, pricing and cache keys recurse through variables, and 200,000 levels (a
 * 1 MB body) overflowed the stack (an unexpected UPSTREAM_ERROR). Checked on the request's
 * parameters (HTTP) and again where operations start (graphql-sse), by an explicit stack.
 * BAD_USER_INPUT `maxVariablesDepth: …`.
 */
import type { Plugin } from 'graphql-yoga';
import { limitError } from '../lib/limitError.js';

/** Deeper than any input of the schema, JSON content documents included; far from the stack's limit. */
export const MAX_VARIABLES_DEPTH = 100;

/** Whether `value` nests arrays/objects more than `max` deep below itself (without recursion). */
export function deeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

const tooDeep = () =>
  limitError('maxVariablesDepth', MAX_VARIABLES_DEPTH, `Variables may nest at most ${MAX_VARIABLES_DEPTH} lists or objects deep.`);

export function useMaxVariablesDepth(): Plugin {
  const checked = new WeakSet<object>();
  const check = (variables: unknown): boolean => {
    if (!variables || typeof variables !== 'object' || checked.has(variables)) return true;
    if (deeperThan(variables, MAX_VARIABLES_DEPTH)) return false;
    checked.add(variables);
    return true;
  };
  return {
    onParams({ params }) {
      if (!check(params.variables)) throw tooDeep();
    },
    onExecute({ args, setResultAndStopExecution }) {
      if (!check(args.variableValues)) setResultAndStopExecution({ errors: [tooDeep()] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      if (!check(args.variableValues)) setResultAndStopExecution({ errors: [tooDeep()] });
    },
  };
}
