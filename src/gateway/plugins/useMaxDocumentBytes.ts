/**
 * Rejects documents longer than `maxDocumentBytes` (UTF-8) before they are parsed, cached or
 * looked up: the token limit bounds what a document says, not its size (whitespace and comments
 * are no tokens), and the parse cache is keyed by the text. BAD_USER_INPUT `maxDocumentBytes: …`.
 */
import type { Plugin } from 'graphql-yoga';
import { limitError } from '../lib/limitError.js';

/** UTF-8 bytes of `text` when it may exceed `max` (a character takes 1 to 3 bytes), else its length. */
export function documentBytes(text: string, max: number): number {
  return text.length > max || text.length * 3 <= max ? text.length : Buffer.byteLength(text);
}

export function useMaxDocumentBytes(maxDocumentBytes: number): Plugin {
  return {
    onParse({ params }) {
      const text = typeof params.source === 'string' ? params.source : params.source.body;
      const bytes = documentBytes(text, maxDocumentBytes);
      if (bytes > maxDocumentBytes)
        throw limitError(
          'maxDocumentBytes',
          maxDocumentBytes,
          `Document size limit of ${maxDocumentBytes} bytes exceeded, found ${bytes}.`,
          bytes,
        );
    },
  };
}
