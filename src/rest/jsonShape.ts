/**
 * What parsing a JSON answer would build, read from its text before `JSON.parse` (responses.ts):
 * its nesting depth, and its objects and arrays and its values. Parsed JSON of small values is
 * many times its text (a 3 MB list of `{}` is 64 MB of heap, 10 MB of nested `[]` killed `npm
 * start`), and V8 keeps the nesting of a parse off the heap (19.9 MB of `[` took the process from
 * 92 to 1,428 MB of RSS for one answer). So an answer nested deeper than MAX_JSON_DEPTH is refused
 * unparsed, and the others are charged to the bytes-in-flight budget (bytesInFlight.ts) for what
 * their parse builds (`parsedBytes`), not for their text.
 *
 * One pass over the text outside strings (a string's content is skipped with `indexOf`); it does
 * not validate: a text that is not JSON is left for `JSON.parse` to refuse.
 */

/** Answers shorter than this are parsed without a look (their parse builds at most a few MB). */
export const SHAPE_FROM_CHARS = 64 * 1024;

/**
 * The deepest nesting accepted. The embedded upstream's documents nest about 14 deep (document,
 * block, list, item, paragraph, text, leaf, marks, each an object and an array), two more per
 * level of block quote.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * Heap bytes beyond its text that an object or array costs once parsed, and a value after the
 * first in one (a comma: its slot, its number or string). Measured with
 * `process.memoryUsage().heapUsed` around JSON.parse (docs/BENCHMARKS-history.md): an empty object 64,
 * an array holding one array 100, a distinct short string 24, a fraction 22.
 */
export const CONTAINER_BYTES = 56;
export const VALUE_BYTES = 8;

/**
 * An object of more members than this is charged MEMBER_BYTES for each: V8 keeps such an object as
 * a hash table, each member its own entry and key (62–74 bytes each once parsed and frozen,
 * measured; the table grows by doubling while it is parsed, and the gateway copies the object it
 * attaches its keys to). One object of 900,000 members, 10.5 MB of text charged 17.7 MB as
 * values, ran `npm start` out of heap. Objects of the API have a few dozen members.
 */
export const LARGE_OBJECT_MEMBERS = 128;
export const MEMBER_BYTES = 256;

export interface JsonShape {
  /** Deeper than MAX_JSON_DEPTH (the scan stopped there). */
  tooDeep: boolean;
  /** Objects and arrays. */
  containers: number;
  /** Commas outside strings: values (and members) after the first of their object or array. */
  commas: number;
  /** Members of the objects of more than LARGE_OBJECT_MEMBERS members. */
  largeObjectMembers: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The shape of `text`, read in one pass (stopped past `maxDepth`). */
export function jsonShape(text: string, maxDepth = MAX_JSON_DEPTH): JsonShape {
  let depth = 0;
  let containers = 0;
  let commas = 0;
  let largeObjectMembers = 0;
  // Per open container: its commas so far, negative for an array (its values are not members).
  const open = new Int32Array(maxDepth + 2);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      containers++;
      if (++depth > maxDepth) return { tooDeep: true, containers, commas, largeObjectMembers };
      open[depth] = c === OPEN_BRACE ? 0 : -1;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth > 0 && open[depth] >= LARGE_OBJECT_MEMBERS) largeObjectMembers += open[depth] + 1;
      depth--;
    } else if (c === COMMA) {
      commas++;
      if (depth > 0 && open[depth] >= 0) open[depth]++;
    }
  }
  return { tooDeep: false, containers, commas, largeObjectMembers };
}

/** The heap bytes parsing a text of this shape builds, about (its text included). */
export function parsedBytes(text: string, shape: JsonShape): number {
  return text.length + shape.containers * CONTAINER_BYTES + shape.commas * VALUE_BYTES + shape.largeObjectMembers * MEMBER_BYTES;
}

/** The index of the quote that closes the string opened at `open` (the text's end when none does). */
function stringEnd(text: string, open: number): number {
  for (let q = text.indexOf('"', open + 1); q !== -1; q = text.indexOf('"', q + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(q - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return q;
  }
  return text.length;
}
