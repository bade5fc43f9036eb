/**
 * The weights of `Accept` (RFC 9110, 12.4.2 and 12.5.1) for the result's media type at
 * `/graphql`. Yoga's result processors read the header's types in order and ignore their `q`: a
 * type the client refuses (`q=0`) was written all the same (`application/json;q=0` got JSON,
 * `application/json, multipart/mixed;q=0` a multipart stream), and a preferred one was passed
 * over (`application/graphql-response+json;q=0.5, application/json` got the former). So, before
 * Yoga chooses, a header with weights is rewritten as the result types it accepts, best first
 * (each weighted by the most specific range naming it; a range with a charset other than utf-8
 * names none, as for Yoga); one that accepts none is refused 406 before anything runs. A header
 * without weights is left as it is (the commonest: no cost).
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { qualityValues } from '../lib/qualityValues.js';
import { NOT_ACCEPTABLE_MESSAGE } from './useRequestErrorCodes.js';

/**
 * The types Yoga's result processors write, in the order Yoga prefers them for ranges of equal
 * weight (`*\/*` is written as `application/json`).
 */
const RESULT_TYPES = ['application/json', 'application/graphql-response+json', 'multipart/mixed', 'text/event-stream'];

/** How specifically `range` names `type`: 2 exactly, 1 by `type/*`, 0 by `*\/*`, -1 not. */
function specificity(range: string, type: string): number {
  if (range === type) return 2;
  if (range === `${type.split('/')[0]}/*`) return 1;
  return range === '*/*' ? 0 : -1;
}

/** The result types `accept` takes, best first (ties in the header's order, then Yoga's). */
export function acceptedResultTypes(accept: string): string[] {
  const ranges = qualityValues(accept).filter(({ params }) => params.every((p) => !p.startsWith('charset=') || p === 'charset=utf-8'));
  const weighted = RESULT_TYPES.map((type, order) => {
    let best = { specific: -1, quality: 0, position: 0 };
    ranges.forEach(({ value, quality }, position) => {
      const specific = specificity(value, type);
      if (specific > best.specific) best = { specific, quality, position };
    });
    return { type, order, ...best };
  });
  return weighted
    .filter((w) => w.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.position - b.position || a.order - b.order)
    .map((w) => w.type);
}

export function useAcceptWeights(): Plugin {
  return {
    // Yoga's HTTP path only (the fast path's too), where its result processors write the result.
    onParams({ request, setResult }) {
      const accept = request.headers.get('accept');
      if (!accept?.includes('q=')) return;
      const types = acceptedResultTypes(accept);
      if (types.length > 0) {
        request.headers.set('accept', types.join(', '));
        return;
      }
      setResult({ errors: [new GraphQLError(NOT_ACCEPTABLE_MESSAGE, { extensions: { code: 'BAD_USER_INPUT', http: { status: 406 } } })] });
    },
  };
}
