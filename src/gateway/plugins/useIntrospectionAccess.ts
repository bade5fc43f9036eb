/**
 * Introspection (`__schema`, `__type` at the root of the operation, fragments included, and the
 * federation subgraph SDL `_service`, which is the same schema under another name) needs a token:
 * without a bearer token (as the REST client parses `Authorization`: src/rest/callerKey.ts) it is
 * refused with UNAUTHENTICATED unless `anonymous` (`--anonymous-introspection`) allows it; with one,
 * the token is checked by the request's `GET /user` (one REST call, shared with the operation's
 * own) before the schema is served, so a made-up token is refused too. `__typename` is no introspection. GraphiQL sends
 * the token in its headers. The cost limit prices introspection like any query
 * (src/gateway/lib/introspectionCost.ts).
 *
 * Validation's "Did you mean …?" suggestions name fields and types of the schema too: they are
 * left out of the errors of a caller without a token the REST API has accepted (unless
 * `anonymous`), which could otherwise map the schema one typo at a time.
 */
import { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { credentialOf, errorCode } from '../../rest/index.js';
import type { GatewayContext } from '../../schema/context.js';
import { SCHEMA_INTROSPECTION, rootFieldNames } from '../../schema/lib/rootFields.js';
import { errorsForCaller } from '../lib/suggestions.js';
import { operationVerdict } from '../lib/operationVerdict.js';

/** Root fields that show the schema: introspection and the subgraph SDL. */
const SHOWS_SCHEMA = new Set([...SCHEMA_INTROSPECTION, '_service']);

const isIntrospection = operationVerdict((operation, fragments) =>
  [...rootFieldNames(operation, fragments)].some((f) => SHOWS_SCHEMA.has(f)),
);

const unauthenticated = (message: string) => new GraphQLError(message, { extensions: { code: 'UNAUTHENTICATED' } });

export function useIntrospectionAccess({ anonymous }: { anonymous: boolean }): Plugin {
  return {
    // On the result, not in validation: Yoga keeps validation results per document for every caller.
    onExecutionResult({ result, setResult, request }) {
      if (isAsyncIterable(result) || !result?.errors?.length) return;
      const errors = errorsForCaller(result.errors, request, anonymous);
      if (errors) setResult({ ...result, errors });
    },
    onExecute({ args, setResultAndStopExecution }) {
      if (!isIntrospection(args.document, args.operationName)) return;
      const context = args.contextValue as unknown as GatewayContext & { request: Request };
      if (credentialOf(context.request.headers.get('authorization')).token === undefined) {
        if (!anonymous)
          setResultAndStopExecution({
            errors: [
              unauthenticated(
                'Introspection needs a token (`Authorization: Bearer <token>`); this gateway serves its schema to callers with a token only.',
              ),
            ],
          });
        return;
      }
      return context.rest.load('/user').then(
        () => undefined,
        (error: unknown) => {
          const code = errorCode(error) ?? 'UPSTREAM_ERROR';
          const message =
            code === 'UNAUTHENTICATED'
              ? 'Introspection needs a valid token: the REST API does not know this one.'
              : (error as Error).message;
          setResultAndStopExecution({
            errors: [new GraphQLError(message, { extensions: { ...(error as { extensions?: object }).extensions, code } })],
          });
        },
      );
    },
  };
}
