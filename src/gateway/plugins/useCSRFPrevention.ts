/**
 * CSRF prevention (Yoga's plugin): a GraphQL request must be JSON (or another content type a
 * browser preflights) or carry a header a cross-site form or link cannot set: `Authorization`
 * (every authenticated call has it) or `x-graphql-yoga-csrf`. A refusal is 403 FORBIDDEN, before
 * any REST call. Mutations over GET are refused by Yoga itself (405).
 */
import { useCSRFPrevention as useYogaCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

export const CSRF_HEADERS = ['x-graphql-yoga-csrf', 'authorization'];

export function useCSRFPrevention(): Plugin {
  const { onRequestParse } = useYogaCSRFPrevention({ requestHeaders: CSRF_HEADERS }) as Required<Pick<Plugin, 'onRequestParse'>>;
  return {
    onRequestParse(payload) {
      try {
        return onRequestParse(payload);
      } catch (error) {
        throw createGraphQLError(`${(error as Error).message}: send JSON, or one of the headers ${CSRF_HEADERS.join(', ')}`, {
          extensions: { code: 'FORBIDDEN', http: { status: 403 } },
        });
      }
    },
  };
}
