/**
 * Hooks run in a plain loop, as the server adapter, Yoga and Envelop run a phase's hooks but
 * without their promise helpers (a few closures and promise-likes per hook and request): each in
 * turn with one payload, the next after the previous settles when it returned a promise
 * (synchronously otherwise), none after `done()` (an early answer). Used by mergeRequestHooks.ts
 * and by the fast path (plainPost.ts).
 */
import { isPromise } from 'graphql-yoga';

export function runHooks<P>(
  hooks: ReadonlyArray<(payload: P) => unknown>,
  payload: P,
  done: () => boolean = () => false,
  from = 0,
): void | Promise<void> {
  for (let i = from; i < hooks.length && !done(); i++) {
    const pending = hooks[i](payload);
    if (isPromise(pending)) return pending.then(() => runHooks(hooks, payload, done, i + 1));
  }
}
