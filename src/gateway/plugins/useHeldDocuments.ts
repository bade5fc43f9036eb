/**
 * A document a request parses (one not in the parse cache) holds what its parse built, its text
 * plus about 300 bytes per token (lib/parseCache.ts), of the bodies budget (lib/requestBytesInFlight.ts)
 * until the request's response is done; when the budget cannot hold it now, the operation is
 * refused before it runs (503 `UPSTREAM_UNAVAILABLE`, `Retry-After: 1`).
 *
 * Why: a document of 2,000 tokens parses into some 500 KB, a hundred times its text, and a request
 * holds its document until its result is written. Within every limit (4.8 KB, 1,959 tokens, 130
 * fields), 1,000 connections each sending a new such document ran `npm start`'s heap out in
 * seconds, without a token and without a slow REST API; the body counted 4.8 KB at most. A
 * document from the cache is shared: the same large document sent by every connection holds it once.
 *
 * The refusal is made at execution, not by the parse: Yoga's cache keeps a parse error by the
 * document's text (every later request of that text would be refused), and a validation result
 * by the document. The refused document stays in the parse cache, so its retry runs at once.
 */
import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import { parsedBytes } from '../lib/parseCache.js';
import { holdMore, parsedBodyRefused } from '../lib/requestBytesInFlight.js';

type Refusable = { args: { contextValue: unknown }; setResultAndStopExecution(result: { errors: Error[] }): void };

export function useHeldDocuments(): Plugin {
  /** Requests whose parsed document the budget could not hold. */
  const refused = new WeakSet<IncomingMessage>();
  const refuse = ({ args, setResultAndStopExecution }: Refusable) => {
    const req = (args.contextValue as { req?: IncomingMessage } | undefined)?.req;
    if (req && refused.has(req)) setResultAndStopExecution({ errors: [parsedBodyRefused()] });
  };
  return {
    onParse({ context, parseFn, setParseFn }) {
      const req = (context as { req?: IncomingMessage } | undefined)?.req;
      if (!req) return;
      // Called only when Yoga's cache has no document for the text.
      setParseFn((source, options) => {
        const document = parseFn(source, options);
        if (!holdMore(req, parsedBytes(typeof source === 'string' ? source : source.body, document))) refused.add(req);
        return document;
      });
    },
    onExecute: refuse,
    onSubscribe: refuse,
  };
}
