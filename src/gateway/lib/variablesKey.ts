/**
 * A request's variables as key material (the response cache's key, the kept introspection answers',
 * the introspection worker's identical operations): their JSON text, which tells apart any two
 * values JSON.parse can make but one kind. JSON.parse reads a number too large for a double
 * (`1e400`, `-1e400`) as ±Infinity, which JSON.stringify writes as `null`: `{"first": 1e400}`
 * (refused: Int cannot represent Infinity) had the key of `{"first": null}`, and was answered that
 * one's cached result. Variables holding such a number are keyed apart: their text starts with
 * `~`, each string in it tagged `s` and each such number `n` (`"nInfinity"`), so neither passes
 * for the other or for null. (Rare: looked for only when the plain text holds a `null`.)
 */
export function variablesKey(variables: unknown): string {
  const text = JSON.stringify(variables ?? {});
  if (!text.includes('null') || !holdsNonFinite(variables)) return text;
  return `~${JSON.stringify(variables, (_key, value: unknown) =>
    typeof value === 'string' ? `s${value}` : typeof value === 'number' && !Number.isFinite(value) ? `n${value}` : value,
  )}`;
}

/** Whether `value` holds a number JSON has no spelling for (its depth is bounded before: useMaxVariablesDepth.ts). */
function holdsNonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  return value !== null && typeof value === 'object' && Object.values(value).some(holdsNonFinite);
}
