/**
 * Yoga's parse cache (the `parserAndValidationCache` option of createYoga), bounded in bytes as
 * well as entries. Yoga keys it by the document's text and keeps the parsed document, whose
 * tokens and nodes (with locations) take about 300 bytes per token: 1024 documents of 2,000
 * tokens would hold some 600 MB. Here documents and parse errors share `maxBytes`, each entry
 * counted as its text plus its tokens; the validation cache is keyed by these documents (weakly),
 * so it shrinks with them.
 */
import type { DocumentNode, Token } from 'graphql';
import type { Plugin, YogaServerOptions } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';

/** Heap per token of a parsed document (tokens, nodes, locations), measured with graphql 16. */
export const BYTES_PER_TOKEN = 300;
export const DEFAULT_PARSE_CACHE_BYTES = 16 * 1024 * 1024;
const MAX_ENTRIES = 1024;

/** An entry's bytes: its key (the text) plus what its parsed tokens hold. */
export function parsedBytes(text: string, document?: DocumentNode): number {
  let tokens = 0;
  for (let token: Token | null | undefined = document?.loc?.startToken; token; token = token.next) tokens++;
  return text.length + tokens * BYTES_PER_TOKEN;
}

type CacheOptions = Exclude<NonNullable<YogaServerOptions<object, object>['parserAndValidationCache']>, boolean>;

export function parseCache(maxBytes = DEFAULT_PARSE_CACHE_BYTES): CacheOptions & { documentCache: LRUCache<string, DocumentNode> } {
  // Documents get most of the budget, parse errors (their text, no tokens kept) an eighth.
  const documentCache = new LRUCache<string, DocumentNode>({
    max: MAX_ENTRIES,
    maxSize: Math.floor((maxBytes * 7) / 8),
    sizeCalculation: (document, text) => Math.max(1, parsedBytes(text, document)),
  });
  const errorCache = new LRUCache<string, object>({
    max: MAX_ENTRIES,
    maxSize: Math.floor(maxBytes / 8),
    sizeCalculation: (_error, text) => Math.max(1, text.length),
  });
  return { documentCache, errorCache };
}

/**
 * Drops a document that failed validation from `documentCache`: Yoga keeps each document's
 * validation errors beside it (a WeakMap), up to 101 of them at some 4 KB each with their stacks,
 * which its bytes here do not count. 300 distinct anonymous documents of 190 unknown fields (480 KB
 * held each, 57 KB counted) ran `npm start`'s heap out. Sent again, such a document is parsed and
 * validated again, as a new one is.
 */
export function useForgetInvalidDocuments(documentCache: LRUCache<string, DocumentNode>): Plugin {
  return {
    onValidate:
      ({ params: { documentAST } }) =>
      ({ valid }) => {
        const text = documentAST.loc?.source.body;
        if (!valid && text !== undefined && documentCache.peek(text) === documentAST) documentCache.delete(text);
      },
  };
}
