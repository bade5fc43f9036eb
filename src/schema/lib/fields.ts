/** Small field helpers shared by the node files. */
import { builder } from '../builder.js';

/** The content body `{markdown, document}` of comments, replies and AI answers. */
export const ContentBody = builder.objectRef<{ markdown?: string; document?: unknown }>('ContentBody').implement({
  description: 'A content body; `markdown` with format MARKDOWN, `document` with format DOCUMENT.',
  fields: (t) => ({
    markdown: t.string({ nullable: true, resolve: (b) => b.markdown ?? null }),
    document: t.field({ type: 'JSON', nullable: true, resolve: (b) => b.document ?? null }),
  }),
});

/** `value ?? null`, for optional REST fields. */
export const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

/**
 * The REST `urls` object of a resource as a typed object (the seed shows its keys, so it is not
 * JSON): `required` keys REST always sends, `optional` ones it sends when they apply.
 */
export function urlsType(name: string, of: string, required: readonly string[], optional: readonly string[] = []) {
  return builder.objectRef<Record<string, string | undefined>>(name).implement({
    description: `URLs of ${of} (REST \`urls\`).`,
    fields: (t) => ({
      ...Object.fromEntries(required.map((key) => [key, t.string({ resolve: (u) => u[key] as string })])),
      ...Object.fromEntries(optional.map((key) => [key, t.string({ nullable: true, resolve: (u) => u[key] ?? null })])),
    }),
  });
}

/** The REST `permissions` object of a resource: a boolean per flag (a description where it says more than its name). */
export function permissionsType(name: string, of: string, flags: Record<string, string | undefined> | readonly string[]) {
  const entries = Array.isArray(flags) ? flags.map((f) => [f, undefined] as const) : Object.entries(flags);
  return builder.objectRef<Record<string, boolean>>(name).implement({
    description: `What the caller may do ${of} (REST \`permissions\`).`,
    fields: (t) => Object.fromEntries(entries.map(([flag, description]) => [flag, t.exposeBoolean(flag, { description })])),
  });
}
