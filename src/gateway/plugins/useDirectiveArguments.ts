/**
 * Directive arguments graphql-js checks only while executing: `@stream(initialCount:)` below 0 or
 * null, and a null `if` of `@defer` or `@stream`, made the executor throw, which reached the client
 * as an unexpected UPSTREAM_ERROR (and an ERROR line). Each is the caller's BAD_USER_INPUT, refused
 * before execution (so before any REST call), whether written in the document or passed as a
 * variable.
 *
 * Likewise an operation whose `@defer` or `@stream` applies (its `if` not false), sent over HTTP by
 * a client whose `Accept` takes no incremental result (`multipart/mixed`, `text/event-stream`):
 * Yoga finds no way to write its result once it has run, and answers 406. A mutation with a
 * `@defer` in its payload, sent as Relay's recipe sends (`application/graphql-response+json`), made
 * its write and was answered 406 BAD_USER_INPUT, a refusal: a client that retried wrote it twice.
 * It is refused before execution now, with the same answer. (graphql-sse's requests are answered
 * by events whatever their `Accept`: only requests of Yoga's HTTP path, its `onParams`, are checked.)
 */
import {
  getOperationAST,
  GraphQLBoolean,
  GraphQLInt,
  GraphQLError,
  valueFromAST,
  visit,
  type ASTNode,
  type DocumentNode,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { fragmentsOf } from '../../schema/lib/rootFields.js';
import { NOT_ACCEPTABLE_MESSAGE } from './useRequestErrorCodes.js';
import { acceptedResultTypes } from './useAcceptWeights.js';

interface IncrementalArguments {
  /** The `initialCount` values of the document's `@stream`s. */
  counts: ValueNode[];
  /** The `if` of each `@defer` and `@stream` (null: none given, it applies). */
  conditions: Array<ValueNode | null>;
}

/**
 * What the `@defer`s and `@stream`s of an operation say (its own and those of the fragments it
 * spreads), found once per operation of a parsed document. Not the whole document's: a document's
 * other operation with a `@defer` made its plain operations 406 for a JSON client, and one with
 * a bad `initialCount` made them BAD_USER_INPUT.
 */
const found = new WeakMap<OperationDefinitionNode, IncrementalArguments>();

export function incrementalArguments(document: DocumentNode, operation: OperationDefinitionNode): IncrementalArguments {
  const known = found.get(operation);
  if (known) return known;
  const args: IncrementalArguments = { counts: [], conditions: [] };
  const fragments = fragmentsOf(document);
  const spread = new Set<string>();
  const walk = (node: ASTNode) =>
    visit(node, {
      FragmentSpread(spreadNode) {
        const fragment = fragments.get(spreadNode.name.value);
        if (!fragment || spread.has(fragment.name.value)) return;
        spread.add(fragment.name.value);
        walk(fragment);
      },
      Directive(directive) {
        if (directive.name.value !== 'stream' && directive.name.value !== 'defer') return;
        args.conditions.push(directive.arguments?.find((arg) => arg.name.value === 'if')?.value ?? null);
        if (directive.name.value !== 'stream') return;
        for (const arg of directive.arguments ?? []) if (arg.name.value === 'initialCount') args.counts.push(arg.value);
      },
    });
  walk(operation);
  found.set(operation, args);
  return args;
}

/** Whether an `if` (null: none) may be true: a variable not given counts as its default, or true. */
function applies(
  condition: ValueNode | null,
  variables: Record<string, unknown> | undefined,
  operation: OperationDefinitionNode | undefined,
) {
  if (condition === null) return true;
  if (condition.kind === 'Variable' && !(variables && Object.hasOwn(variables, condition.name.value))) {
    const declared = operation?.variableDefinitions?.find((d) => d.variable.name.value === condition.name.value)?.defaultValue;
    return declared === undefined || valueFromAST(declared, GraphQLBoolean) !== false;
  }
  return valueFromAST(condition, GraphQLBoolean, variables) !== false;
}

/**
 * Whether the request's `Accept` takes an incremental result: one of the two types whose result
 * processors write one among those it accepts, as useAcceptWeights.ts reads them (wildcards, a
 * charset other than utf-8 ruled out, `q=0` refused). No header is `*\/*`.
 */
export function acceptsIncremental(request: Request): boolean {
  const types = acceptedResultTypes(request.headers.get('accept') || '*/*');
  return types.includes('multipart/mixed') || types.includes('text/event-stream');
}

export function useDirectiveArguments(): Plugin {
  // Requests whose results Yoga's result processors write (its HTTP path, the fast path's too).
  const viaParams = new WeakSet<Request>();
  return {
    onParams: ({ request }) => void viaParams.add(request),
    onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName) ?? undefined;
      if (!operation) return; // unknown or ambiguous operation: execution reports it
      const { counts, conditions } = incrementalArguments(args.document, operation);
      if (conditions.length === 0) return;
      const request = (args.contextValue as { request?: Request } | undefined)?.request;
      const variables = args.variableValues as Record<string, unknown> | undefined;
      const refuse = (message: string) =>
        setResultAndStopExecution({ errors: [new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } })] });
      for (const node of counts) {
        const count = valueFromAST(node, GraphQLInt, variables);
        if (count === null || (typeof count === 'number' && count < 0))
          return refuse(`\`@stream(initialCount:)\` must be 0 or more, found ${count}.`);
      }
      // Validation lets a nullable variable into these non-null arguments (they have defaults): a
      // null made the executor throw at the field, an unexpected UPSTREAM_ERROR.
      for (const condition of conditions)
        if (condition !== null && valueFromAST(condition, GraphQLBoolean, variables) === null)
          return refuse('`@defer(if:)` and `@stream(if:)` must be true or false, found null.');
      // After the arguments' check: a bad `initialCount` is named whatever the client accepts.
      if (request && viaParams.has(request) && !acceptsIncremental(request)) {
        if (conditions.some((c) => applies(c, variables, operation)))
          setResultAndStopExecution({
            errors: [new GraphQLError(NOT_ACCEPTABLE_MESSAGE, { extensions: { code: 'BAD_USER_INPUT', http: { status: 406 } } })],
          });
      }
    },
  };
}
