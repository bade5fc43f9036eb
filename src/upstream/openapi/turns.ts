/** Releases a turn (once; later calls do nothing). */
export type Release = () => void;

/**
 * At most `max` holders at once; the others wait in order. `take` resolves with the release of a
 * turn, or with undefined when `signal` is aborted first (the waiter leaves the line).
 */
export function turns(max: number): (signal: AbortSignal) => Promise<Release | undefined> {
  let held = 0;
  const line: Array<() => void> = [];
  const grant = (): Release => {
    held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held--;
      line.shift()?.();
    };
  };
  return (signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve(undefined);
      if (held < max) return resolve(grant());
      const leave = () => {
        line.splice(line.indexOf(next), 1);
        resolve(undefined);
      };
      const next = () => {
        signal.removeEventListener('abort', leave);
        resolve(grant());
      };
      line.push(next);
      signal.addEventListener('abort', leave, { once: true });
    });
}
