/**
 * What the site mutations share: the site's path parameters, the move positions of sections and
 * groups, and the `site` field of payloads whose site changed (read fresh after the write).
 */
import { builder } from '../builder.js';
import { SiteSectionPointerType } from '../lib/enums.js';
import { checkInput } from '../lib/mutation.js';
import type { SiteKeys } from '../lib/siteScoped.js';
import type { Fields } from '../../api/validate.js';
import { loadSite, Site } from '../nodes/Site.js';

/** The builder's schema types, for field helpers shared by several mutations. */
export type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
export type InputFields = PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>;
export type OutputFields<Payload> = PothosSchemaTypes.ObjectFieldBuilder<Types, Payload>;

/** The path parameters `organizationId` and `siteId`. */
export const siteKeyFields = (t: InputFields) => ({
  organizationId: t.string({ required: true }),
  siteId: t.string({ required: true }),
});

export const SITE_KEYS = ['organizationId', 'siteId'] as const;

/** The site keys of a mutation input. */
export const siteKeys = (input: { organizationId: string; siteId: string }): SiteKeys => ({
  organizationId: input.organizationId,
  siteId: input.siteId,
});

/** The payload field `site`: the site as REST has it after the write. */
export const siteOutput = <P extends { keys: SiteKeys }>(t: OutputFields<P>) =>
  t.field({ type: Site, nullable: true, resolve: (p, _args, ctx) => loadSite(ctx, p.keys) });

/** A pointer to a section: sections point with `siteSection`, groups with `id` (REST names). */
function pointerInput(name: string, idField: 'siteSection' | 'id') {
  return builder.inputType(name, {
    description: 'A section of the site that a move is relative to.',
    fields: (t) => ({
      type: t.field({ type: SiteSectionPointerType, defaultValue: 'site-section' }),
      [idField]: t.string({ required: true, description: 'The REST id of the section.' }),
    }),
  });
}

function positionInput(name: string, pointer: ReturnType<typeof pointerInput>) {
  return builder.inputType(name, {
    description: 'Where to move: before or after a section (not both); neither: the end of the site.',
    fields: (t) => ({ before: t.field({ type: pointer }), after: t.field({ type: pointer }) }),
  });
}

export const SiteSectionPosition = positionInput('SiteSectionPositionInput', pointerInput('SiteSectionPointerInput', 'siteSection'));
export const SiteSectionGroupPosition = positionInput(
  'SiteSectionGroupPositionInput',
  pointerInput('SiteSectionGroupPointerInput', 'id'),
);
