/**
 * Validation with the request's rules run as one rule whose visitor dispatches by node kind, built only
 * for the kinds the document holds. graphql-js's `validate` merges its ~30 rules with
 * `visitInParallel`, which looks every rule up for every one of the 45 AST kinds (1,350 lookups,
 * each allocating) before it visits a node: 100 of the 150 µs that validating a new three-field
 * document costs, whatever its size, paid once per distinct document (a flood of distinct
 * documents pays it per request). Given this one rule, `validate` merges a single visitor, and the
 * lookups below are made for the kinds met (about ten), with `visitInParallel`'s semantics: a rule
 * whose `enter` returns `false` skips the node's subtree (for that rule only), `BREAK` stops that
 * rule, any other value is returned to `visit`.
 */
import { BREAK, specifiedRules, validate, type ASTNode, type ASTVisitor, type ValidationContext, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Validation as graphql-js does it (same errors, same limit on their number), the rules merged as one. */
export function useOneRuleValidation(): Plugin {
  const validateAsOne: typeof validate = (schema, document, rules = specifiedRules, ...rest) =>
    validate(schema, document, [oneRule(rules)], ...rest);
  return {
    onValidate: ({ setValidationFn }) => setValidationFn(validateAsOne),
  };
}

type VisitFn = (this: ASTVisitor, node: ASTNode, ...rest: unknown[]) => unknown;
interface KindFns {
  enter: Array<VisitFn | undefined>;
  leave: Array<VisitFn | undefined>;
}

/** One rule running `rules` in parallel (see above); `rules` as Envelop hands them to `validate`. */
export function oneRule(rules: readonly ValidationRule[]): ValidationRule {
  return (context: ValidationContext) => parallel(rules.map((rule) => rule(context)));
}

function parallel(visitors: ASTVisitor[]): ASTVisitor {
  const n = visitors.length;
  /** Per rule: null while it runs, the node whose subtree it skips, or BREAK once it stopped. */
  const skipping: Array<ASTNode | typeof BREAK | null> = new Array(n).fill(null);
  const byKind = new Map<string, KindFns>();
  const fnsOf = (kind: string): KindFns => {
    let fns = byKind.get(kind);
    if (fns) return fns;
    fns = { enter: new Array(n), leave: new Array(n) };
    for (let i = 0; i < n; i++) {
      // As graphql-js's getEnterLeaveForKind: the kind's own entry, else the visitor's generic one.
      const visitor = visitors[i] as Record<string, unknown>;
      const own = visitor[kind];
      if (typeof own === 'function') fns.enter[i] = own as VisitFn;
      else if (typeof own === 'object' && own !== null) {
        fns.enter[i] = (own as { enter?: VisitFn }).enter;
        fns.leave[i] = (own as { leave?: VisitFn }).leave;
      } else {
        fns.enter[i] = visitor.enter as VisitFn | undefined;
        fns.leave[i] = visitor.leave as VisitFn | undefined;
      }
    }
    byKind.set(kind, fns);
    return fns;
  };
  return {
    enter(...args: [ASTNode, ...unknown[]]) {
      const node = args[0];
      const { enter } = fnsOf(node.kind);
      for (let i = 0; i < n; i++) {
        const fn = enter[i];
        if (skipping[i] !== null || fn === undefined) continue;
        const result = fn.apply(visitors[i], args);
        if (result === false) skipping[i] = node;
        else if (result === BREAK) skipping[i] = BREAK;
        else if (result !== undefined) return result;
      }
      return undefined;
    },
    leave(...args: [ASTNode, ...unknown[]]) {
      const node = args[0];
      const { leave } = fnsOf(node.kind);
      for (let i = 0; i < n; i++) {
        if (skipping[i] === null) {
          const fn = leave[i];
          if (fn === undefined) continue;
          const result = fn.apply(visitors[i], args);
          if (result === BREAK) skipping[i] = BREAK;
          else if (result !== undefined && result !== false) return result;
        } else if (skipping[i] === node) skipping[i] = null;
      }
      return undefined;
    },
  } as ASTVisitor;
}
