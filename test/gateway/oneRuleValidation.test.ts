import {
  BREAK,
  GraphQLError,
  Kind,
  parse,
  specifiedRules,
  validate,
  type ASTNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneRule } from '../../src/gateway/plugins/useOneRuleValidation.js';
import { schema } from '../../src/schema/index.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

/**
 * Documents that break each kind of rule (and some that pass), several rules at once, rules that
 * skip subtrees (`false` from an enter: fragment and operation walks) and nested fragments.
 */
const DOCUMENTS = [
  `{ viewer { id } }`,
  `query Q($s: String!) { space(spaceId: $s) { title a: title } }`,
  `query { space(spaceId: "x") { title nope } }`,
  `query { space(spaceId: "x") }`,
  `query { space(spaceId: "x") { title(arg: 1) } }`,
  `query { space { title } }`,
  `query { space(spaceId: 3) { title } }`,
  `query Q($s: String!) { viewer { id } }`,
  `query Q { space(spaceId: $s) { title } }`,
  `query Q($s: Int) { space(spaceId: $s) { title } }`,
  `query A { viewer { id } } query A { viewer { id } }`,
  `{ viewer { id } } query B { viewer { id } }`,
  `{ viewer { ...F } } fragment F on User { id ...G } fragment G on User { ...F }`,
  `{ viewer { ...Missing } }`,
  `{ viewer { id } } fragment Unused on User { id }`,
  `{ viewer { ... on Space { title } } }`,
  `{ viewer { id @nope } }`,
  `{ viewer { id @skip(if: true) @skip(if: false) } }`,
  `{ viewer { a: id a: displayName } }`,
  `query Q($s: String!, $s: String!) { space(spaceId: $s) { title } }`,
  `query Q($i: Space) { viewer { id } }`,
  `subscription { a: __typename b: __typename }`,
  `type T { a: Int }`,
  `{ viewer { ...F } } fragment F on User { id } fragment F on User { id }`,
  `query Q($s: String = 1) { space(spaceId: $s) { title } }`,
  `{ space(spaceId: "x", spaceId: "y") { title } }`,
  `{ viewer { id ...on User { id displayName { x } } } }`,
  `query { __schema { types { name fields { name } } } __type(name: "Space") { name } }`,
];

const messages = (errors: readonly GraphQLError[]) => errors.map((e) => ({ message: e.message, locations: e.locations }));
const withOneRule = (document: string, rules: readonly ValidationRule[] = specifiedRules) =>
  messages(validate(schema, parse(document), [oneRule(rules)]));

describe('validation with the rules run as one (useOneRuleValidation)', () => {
  it('finds the errors graphql-js finds, in the same order, for every document', () => {
    let invalid = 0;
    for (const document of DOCUMENTS) {
      const expected = messages(validate(schema, parse(document)));
      if (expected.length) invalid++;
      expect({ document, errors: withOneRule(document) }).toEqual({ document, errors: expected });
    }
    // The corpus breaks rules (most documents) and keeps some valid ones.
    expect(invalid).toBeGreaterThan(DOCUMENTS.length / 2);
    expect(invalid).toBeLessThan(DOCUMENTS.length);
  });

  it('keeps each rule’s own skips and stops, as graphql-js runs rules in parallel', () => {
    const report = (context: ValidationContext, what: string, node: ASTNode) =>
      context.reportError(new GraphQLError(`${what} ${node.kind} ${'name' in node ? node.name?.value : ''}`, { nodes: node }));
    // Skips every operation (its fields unseen), sees the fragments' fields.
    const skipsOperations: ValidationRule = (context) => ({
      OperationDefinition: () => false,
      Field: (node) => report(context, 'skip', node),
    });
    // Stops at its second field.
    const stopsEarly: ValidationRule = (context) => {
      let seen = 0;
      return { Field: (node) => (report(context, 'stop', node), ++seen === 2 ? BREAK : undefined) };
    };
    // Generic enter and leave for every node kind, skipping selection sets of `viewer`.
    const generic: ValidationRule = (context) => ({
      enter: (node) => (node.kind === Kind.FIELD && node.name.value === 'viewer' ? (report(context, 'enter', node), false) : undefined),
      leave: (node) => void (node.kind === Kind.FIELD && report(context, 'leave', node)),
    });
    const rules = [skipsOperations, stopsEarly, generic, ...specifiedRules];
    const document = `{ viewer { id displayName } space(spaceId: "x") { title ...F } } fragment F on Space { id visibility }`;
    const expected = messages(validate(schema, parse(document), rules));
    expect(expected.map((e) => e.message)).toEqual([
      'stop Field viewer',
      'enter Field viewer',
      'stop Field id',
      'leave Field title',
      'leave Field space',
      'skip Field id',
      'leave Field id',
      'skip Field visibility',
      'leave Field visibility',
    ]);
    expect(withOneRule(document, rules)).toEqual(expected);
  });

  it('keeps graphql-js’s cap on the number of errors', () => {
    const document = `{ ${Array.from({ length: 150 }, (_, i) => `f${i}`).join(' ')} }`;
    const expected = messages(validate(schema, parse(document), specifiedRules, { maxErrors: 20 }));
    expect(expected).toHaveLength(21);
    expect(messages(validate(schema, parse(document), [oneRule(specifiedRules)], { maxErrors: 20 }))).toEqual(expected);
  });

  describe('in the gateway', () => {
    let t: TestStack;
    beforeAll(async () => (t = await startStack()));
    afterAll(() => t.stop());

    it('answers an invalid document with graphql-js’s errors, without a REST call', async () => {
      const document = `query Q($s: String!) { space(spaceId: 3) { title nope } viewer { ...Missing } }`;
      t.resetCalls();
      const { data, errors } = await t.gql(document);
      expect(data).toBeUndefined();
      expect(errors?.map((e) => e.message)).toEqual(validate(schema, parse(document)).map((e) => e.message));
      expect(errors?.every((e) => e.extensions?.code === 'BAD_USER_INPUT')).toBe(true);
      expect(t.calls).toHaveLength(0);
    });
  });
});
