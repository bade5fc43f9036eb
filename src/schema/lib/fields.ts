/** Small field helpers shared by the node files. */
import type { GraphQLResolveInfo } from 'graphql';
import { builder } from '../builder.js';
import { selectedFields } from './selection.js';

/** The content body `{markdown, document}` of comments, replies and AI answers. */
export const ContentBody = builder.objectRef<{ markdown?: string; document?: unknown }>('ContentBody').implement({
  description: 'A content body; `markdown` with format MARKDOWN, `document` with format DOCUMENT.',
  fields: (t) => ({
    markdown: t.string({ nullable: true, resolve: (b) => b.markdown ?? null }),
    document: t.field({ type: 'JSON', nullable: true, resolve: (b) => b.document ?? null }),
  }),
});

const BODY_FORMATS = ['markdown', 'document'] as const;
export type BodyFormat = (typeof BODY_FORMATS)[number];

/** The body formats selected in `body { … }` at `path` below this field (`[]`: this field is the body). */
export const selectedFormats = (info: GraphQLResolveInfo, path: string[]): BodyFormat[] =>
  BODY_FORMATS.filter((f) => selectedFields(info, path).includes(f));

/**
 * The REST `format` a read should ask for, so the bodies at `paths` come in the selected format:
 * the one selected when only one is, else `given` (a body in the other format then costs one
 * more call per object, made by the body field). The document is REST's default: it is not asked
 * for by name, so reads of it share the request's cache with reads by path alone (`node(id:)`, edges).
 */
export function bodyFormat(info: GraphQLResolveInfo, paths: string[][], given?: BodyFormat | null): BodyFormat | undefined {
  const wanted = new Set(paths.flatMap((p) => selectedFormats(info, p)));
  const format = wanted.size === 1 ? [...wanted][0] : (given ?? undefined);
  return format === 'document' ? undefined : format;
}

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
