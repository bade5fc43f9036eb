/**
 * The size of a value as JSON, counted without serializing it: the response-bytes bound, the kept
 * introspection results and the process-memory response cache measure results with it.
 */

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
