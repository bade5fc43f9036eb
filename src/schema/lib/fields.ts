/** Small field helpers shared by the node files. */
import { builder } from '../builder.js';

/** The content body `{markdown, document}` of comments, replies and AI answers. */
export const ContentBody = builder
  .objectRef<{ markdown?: string; document?: unknown }>('ContentBody')
  .implement({
    description: 'A content body; `markdown` with format MARKDOWN, `document` with format DOCUMENT.',
    fields: (t) => ({
      markdown: t.string({ nullable: true, resolve: (b) => b.markdown ?? null }),
      document: t.field({ type: 'JSON', nullable: true, resolve: (b) => b.document ?? null }),
    }),
  });

/** `value ?? null`, for optional REST fields. */
export const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);
