/**
 * Introspection serves the client schema (schema.graphql): the graph without the federation
 * plumbing (`_entities`, `_service`, `_Any`, `_Entity`, `_Service`), so GraphiQL, Relay, Codegen and
 * Apollo tooling see what a frontend queries. A router still calls `_service { sdl }` and
 * `_entities` as before (validation and execution use the subgraph schema); only an operation that
 * introspects (`__schema`, `__type`) without selecting them runs against the client schema.
 *
 * Such a request is marked (`isIntrospecting`) for the response cache, which leaves it alone: it
 * never keeps `__schema` results, yet it rewrote their document and walked the 414 KB result for
 * entities on every request; useIntrospectionCache.ts keeps introspection results for everyone.
 *
 * An introspection-only operation (every root field `__schema`, `__type` or `__typename`) is
 * executed in a worker thread (introspectionWorker.ts), not on the event loop: its executor is
 * replaced here, first of the plugins, so the access check, the limits and the kept results still
 * come before it (a refusal or a kept result stops execution), and the response-bytes bound after.
 * An operation that mixes them with other root fields (`{ __schema { … } viewer { id } }`) is split
 * in two: its introspection fields go to the worker, the others run here at the same time, and the
 * two results are put back together in the operation's field order (one without `data`, a
 * variables error, is the answer: both halves would give it). Else every such request would run
 * the introspection executor on the event loop again (15–45 ms for a full `__schema`), and a caller
 * looping on one would hold everyone back as the introspection-only loop did. Not split: root
 * fields reached through fragments, and documents with `@defer` or `@stream` (one part or many:
 * their merge is not worth it); those still run here.
 */
import {
  Kind,
  getOperationAST,
  parse,
  print,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { clientSchemaOf, introspectsClientSchema } from '../../schema/lib/federation.js';
import { SCHEMA_INTROSPECTION } from '../../schema/lib/rootFields.js';
import type { IntrospectionWorker } from '../lib/introspectionWorker.js';
import { operationVerdict } from '../lib/operationVerdict.js';
import { isIntrospectionOnly } from './useIntrospectionCache.js';

const introspecting = new WeakSet<Request>();

/** Whether the request's operation introspects the client schema (known once it executes). */
export const isIntrospecting = (request: Request): boolean => introspecting.has(request);

export function useClientIntrospection(worker: IntrospectionWorker): Plugin {
  const introspects = operationVerdict(
    (operation, fragments) => operation.operation === 'query' && introspectsClientSchema(operation, fragments),
  );
  const splittable = operationVerdict((operation, fragments) => operation.operation === 'query' && canSplit(operation, fragments));
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!introspects(args.document, args.operationName)) return;
      args.schema = clientSchemaOf(args.schema);
      if (isIntrospectionOnly(args.document, args.operationName)) setExecuteFn(worker.execute);
      else if (splittable(args.document, args.operationName)) {
        const { introspection, rest, order } = halves(args.document, args.operationName);
        setExecuteFn(async (whole: ExecutionArgs) => {
          const [a, b] = await Promise.all([
            worker.execute({ ...whole, document: introspection }),
            executeFn({ ...whole, document: rest }),
          ]);
          return rejoined(order, a, b);
        });
      }
      const { request } = args.contextValue as { request?: Request };
      if (request) introspecting.add(request);
    },
  };
}

const isIntrospectionField = (field: FieldNode) => SCHEMA_INTROSPECTION.has(field.name.value);
const INCREMENTAL = new Set(['defer', 'stream']);

/** Root fields only (no fragment at the root), some introspection and some not, no `@defer`/`@stream`. */
function canSplit(operation: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>): boolean {
  const roots = operation.selectionSet.selections;
  if (!roots.every((s) => s.kind === Kind.FIELD)) return false;
  const fields = roots as readonly FieldNode[];
  if (!fields.some(isIntrospectionField) || fields.every(isIntrospectionField)) return false;
  return !incremental(operation.selectionSet) && ![...fragments.values()].some((f) => incremental(f.selectionSet));
}

function incremental(set: SelectionSetNode | undefined): boolean {
  return !!set?.selections.some(
    (s) => s.directives?.some((d) => INCREMENTAL.has(d.name.value)) || ('selectionSet' in s && incremental(s.selectionSet)),
  );
}

interface Halves {
  /** The introspection fields' operation (parsed from its print: the worker reads its text). */
  introspection: DocumentNode;
  /** The other root fields' operation. */
  rest: DocumentNode;
  /** The root fields' response names, in the operation's order. */
  order: string[];
}

const halvesOf = new WeakMap<DocumentNode, Map<string, Halves>>();

/** The operation's two halves, made once per document and operation name (Yoga keeps parsed documents). */
function halves(document: DocumentNode, operationName: string | null | undefined): Halves {
  let byName = halvesOf.get(document);
  if (!byName) halvesOf.set(document, (byName = new Map()));
  let found = byName.get(operationName ?? '');
  if (!found) {
    const operation = getOperationAST(document, operationName)!;
    const fields = operation.selectionSet.selections as readonly FieldNode[];
    const only = (keep: (f: FieldNode) => boolean): DocumentNode => ({
      ...document,
      definitions: document.definitions.map((d) =>
        d === operation ? { ...operation, selectionSet: { ...operation.selectionSet, selections: fields.filter(keep) } } : d,
      ),
    });
    found = {
      introspection: parse(print(only(isIntrospectionField))),
      rest: only((f) => !isIntrospectionField(f)),
      order: fields.map((f) => f.alias?.value ?? f.name.value),
    };
    if (byName.size < 16) byName.set(operationName ?? '', found);
  }
  return found;
}

type Executed = ExecutionResult | AsyncIterable<ExecutionResult>;

/** The two halves' results as the whole operation's: fields in `order`, errors of both. */
function rejoined(order: string[], a: Executed, b: Executed): ExecutionResult {
  // Neither half has @defer or @stream (canSplit), so neither streams.
  if (isAsyncIterable(a) || isAsyncIterable(b)) throw new Error('A split introspection operation streamed');
  // No data: the variables were refused, by both halves alike (the other half's errors are located
  // in the request's own text, the introspection half's in its print).
  if (b.data === undefined) return b;
  if (a.data === undefined) return a;
  const errors = [...(a.errors ?? []), ...(b.errors ?? [])];
  const extensions = a.extensions || b.extensions ? { ...a.extensions, ...b.extensions } : undefined;
  let data: Record<string, unknown> | null = null;
  if (a.data !== null && b.data !== null) {
    const first = a.data;
    const second = b.data;
    // Keys are the caller's aliases: own keys only (the worker's half, cloned, has Object's prototype:
    // `constructor` was found `in` it, and its function left out of the answer), into an object with
    // no prototype, as graphql-js's own results (on `{}`, `__proto__: viewer { id }` set the prototype).
    data = Object.create(null) as Record<string, unknown>;
    for (const key of order)
      if (Object.hasOwn(first, key) || Object.hasOwn(second, key)) data[key] = Object.hasOwn(first, key) ? first[key] : second[key];
  }
  return { ...(errors.length ? { errors } : {}), data, ...(extensions ? { extensions } : {}) };
}
