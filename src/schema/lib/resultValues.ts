/**
 * What an operation's connections build: every item a page brings into the result, and every
 * field selected on it, is a value the executor makes objects, paths and strings for (about
 * VALUE_BYTES each, measured) before the result exists to be measured. The cost counts REST calls,
 * the response-bytes bound the result once built: neither bounds this. A connection under a
 * repeated parent is built again for each occurrence (`organization { spaces(first: 100) { nodes {
 * organization { spaces(first: 100) { nodes { id title } } } } } }`: 10,000 items from two REST
 * calls, cost 202), and eight such operations at once ran `npm start` out of heap.
 *
 * So each operation counts the values its connection pages bring (`take`, before the page's items
 * are mapped), within `maxResultValues` (past it, the connection's field is BAD_USER_INPUT and the
 * operation's later connections are null: `stopped`; its other fields go on), and every operation's count is held in one budget across
 * requests until its execution is over (`end`): a page that would pass it while others are held
 * is UPSTREAM_UNAVAILABLE (`retryAfter: 1`), as the other budgets of what the gateway holds at
 * once (src/rest/bytesInFlight.ts), with the same per-caller shares. A subscription holds nothing
 * (its account is ended when it starts, as its REST answers are: useOperationEnd.ts).
 */
import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { getHeapStatistics } from 'node:v8';
import type { BytesInFlight } from '../../rest/index.js';
import { busyError, limitExceededError } from './errors.js';

/** Heap per value while an operation executes (`organization { spaces { nodes { organization { spaces { nodes { id title } } } } } }`, measured with a margin). */
export const VALUE_BYTES = 512;

/** The default budget of values built at once: a quarter of V8's heap limit, at VALUE_BYTES each. */
export function defaultResultValuesInFlight(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 4 / VALUE_BYTES);
}

/** One operation's account of the values its connections build. */
export class ResultValues {
  #taken = 0;
  #ended = false;
  #stopped = false;
  #holdMs = 0;

  constructor(
    private readonly max: number,
    /** The budget across operations, and whose share this operation takes (absent: this operation's bound only). */
    private readonly shared?: { budget: BytesInFlight; caller: string },
  ) {}

  /**
   * Counts `values` more, or throws: past `maxResultValues`, BAD_USER_INPUT; past the shared budget,
   * UPSTREAM_UNAVAILABLE. Once the operation has built YIELD_AFTER values, what it returns is the
   * page's turn, to be awaited before the page is built (see YIELD_AFTER).
   */
  take(values: number): Promise<void> | undefined {
    if (this.#ended || values === 0) return undefined;
    if (this.#taken + values > this.max) {
      this.#stopped = true;
      throw limitExceededError(
        'maxResultValues',
        this.max,
        `the operation's lists bring more than ${this.max} values into its result (each item and each field selected on it); ask for fewer items or fields, or page`,
      );
    }
    if (this.shared && !this.shared.budget.take(this.shared.caller, values, this.#taken)) {
      this.#stopped = true;
      const error = busyError('The gateway is building too many large results at once; try again shortly.');
      this.#holdMs = 1000 * (error.extensions.retryAfter as number);
      throw error;
    }
    this.#taken += values;
    const builtThisTurn = builtSinceTurn;
    if (builtThisTurn === 0) setImmediate(() => (builtSinceTurn = 0));
    builtSinceTurn += values;
    if (this.#taken < YIELD_AFTER && builtThisTurn + values <= YIELD_AFTER) return undefined;
    return (lastTurn = lastTurn.then(nextTurn));
  }

  /**
   * How long the operation's answer is held before it is written, its values and REST answers
   * still counted (useOperationEnd.ts): the `retryAfter` of a refusal by the shared budget, else 0.
   * A caller whose large operations are refused there is answered when it may try again, not at
   * once: one token looping eight such operations (each a new document: 10,000 items from two
   * REST calls) was refused 600 times in 5 s, each refusal after its parse, its REST calls and the
   * pages built before it, and kept both cores busy (another caller's p50 went from 2 to 24 ms).
   */
  get holdAnswerMs(): number {
    return this.#holdMs;
  }

  /**
   * Whether a page of the operation was refused: its later connections are null, unread, without
   * an error each (the first one says why). Each was a REST read and an error: an operation of a
   * hundred connections refused at its tenth made ninety errors, and one token sending such
   * operations back to back kept the event loop busy making errors (GraphQLError and its
   * locations were a seventh of the gateway's CPU).
   */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** The operation is over: what it took is given back, and nothing more is counted. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.shared?.budget.give(this.shared.caller, this.#taken);
    this.#taken = 0;
  }
}

/**
 * Values an operation builds before its pages wait their turns: each later page, of any operation,
 * is built in a turn of the event loop of its own, one page per turn in the whole process, so
 * other requests' I/O is taken between them. The pages of one connection under a repeated parent
 * all come from one REST answer at once, and graphql-js built the 100 pages of `organization {
 * spaces(first: 100) { nodes { organization { spaces(first: 100) … } } } }` in one stretch of some
 * 200 ms, every other caller waiting (an operation of this size is within the bounds); with a turn
 * per operation, eight of them still built eight pages in each turn. The same many values built in
 * one turn by the process make a page wait too: eight such operations whose first pages came from
 * one shared REST answer each built their first 2,000 values in the same turn (a 200 ms stretch).
 * A small operation waits only behind that much.
 */
const YIELD_AFTER = 2_000;
/** Values built in the current turn of the event loop, by any operation (reset at the turn's end). */
let builtSinceTurn = 0;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** The turn the last page to wait for one waits for (one chain for the process: one event loop). */
let lastTurn: Promise<void> = Promise.resolve();

/** Fields counted per item at most (a document holds at most `--max-fields`; its fragments, expanded at each spread, are priced within 20,000: useCostLimit.ts). */
const MAX_FIELDS_PER_ITEM = 10_000;
/**
 * The count of each connection field, by its first node, with the nodes it was merged with: one
 * node of a fragment is merged with others in one place (or when an `@include` lets them in) and
 * alone in another, and a count kept by the first node alone was the other place's. A fragment's
 * `spaces(first: 100) { nodes { id } }` counted 3 values an item and let the same field with ten
 * more fields merged into it build 30 items of 11 values within a bound of 100 (and the count of
 * the merged field refused the fragment alone).
 */
const perItem = new WeakMap<FieldNode, { nodes: readonly FieldNode[]; count: number }>();

/**
 * The values one item of the connection at `info` counts: itself, and every field selected below
 * the connection's field (fragments expanded, nested connections' fields included: an
 * overestimate, never an underestimate). Once per field of a parsed document and the nodes it is
 * merged with.
 */
export function valuesPerItem(info: GraphQLResolveInfo): number {
  const first = info.fieldNodes[0];
  const kept = perItem.get(first);
  let count =
    kept && kept.nodes.length === info.fieldNodes.length && kept.nodes.every((n, i) => n === info.fieldNodes[i]) ? kept.count : undefined;
  if (count === undefined) {
    let fields = 0;
    const walk = (set: SelectionSetNode | undefined) => {
      for (const node of set?.selections ?? []) {
        if (fields >= MAX_FIELDS_PER_ITEM) return;
        if (node.kind === Kind.FIELD) {
          fields++;
          walk(node.selectionSet);
        } else walk(node.kind === Kind.INLINE_FRAGMENT ? node.selectionSet : info.fragments[node.name.value]?.selectionSet);
      }
    };
    for (const node of info.fieldNodes) walk(node.selectionSet);
    perItem.set(first, { nodes: info.fieldNodes, count: (count = 1 + Math.min(fields, MAX_FIELDS_PER_ITEM)) });
  }
  return count;
}
