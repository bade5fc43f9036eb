/** The input objects of site writes (the writes themselves come from src/schema/resources.ts): a
 * redirect's destination, and the positions of section and group moves. */
import { builder } from '../builder.js';
import { SiteSectionPointerType } from '../lib/enums.js';
import { userInputError } from '../lib/errors.js';
import { inputObject } from '../lib/resource.js';

const SiteSectionDestinationInput = builder.inputType('SiteRedirectSiteSectionDestinationInput', {
  description: 'A destination of kind `site-section`: a section of the same site.',
  fields: (t) => ({ siteSectionId: t.string({ required: true, description: 'The REST id of a section of the site.' }) }),
});

/** One field per destination kind (REST `kind`, camelCased); exactly one is given. */
const DESTINATIONS = { siteSection: 'site-section' } as const;

inputObject(
  'SiteRedirectDestinationInput',
  builder.inputType('SiteRedirectDestinationInput', {
    description: 'Where a redirect leads: exactly one of its fields (one per destination kind).',
    fields: (t) => ({
      siteSection: t.field({ type: SiteSectionDestinationInput, description: 'A section of the site (kind `site-section`).' }),
    }),
  }),
  restDestination,
);

type DestinationInput = { [K in keyof typeof DESTINATIONS]?: Record<string, unknown> | null };

/** The REST destination `{kind, …}` of the one-of input; none or several: BAD_USER_INPUT. */
function restDestination(destination: DestinationInput | null | undefined) {
  if (destination === undefined) return undefined;
  const given = Object.entries(destination ?? {}).filter(([, v]) => v !== null && v !== undefined);
  if (given.length !== 1) throw userInputError('input.destination: give exactly one destination kind', 'input.destination');
  const [field, value] = given[0] as [keyof typeof DESTINATIONS, Record<string, unknown>];
  return { kind: DESTINATIONS[field], ...value };
}

/** A move's position, pointing at a section: sections point with `siteSection`, groups with `id` (REST names). */
function positionInput(of: 'SiteSection' | 'SiteSectionGroup', idField: 'siteSection' | 'id') {
  const pointer = builder.inputType(`${of}PointerInput`, {
    description: 'A section of the site that a move is relative to.',
    fields: (t) => ({
      type: t.field({ type: SiteSectionPointerType, defaultValue: 'site-section' }),
      [idField]: t.string({ required: true, description: 'The REST id of the section.' }),
    }),
  });
  inputObject(
    `${of}PositionInput`,
    builder.inputType(`${of}PositionInput`, {
      description: 'Where to move: before or after a section (not both); neither: the end of the site.',
      fields: (t) => ({ before: t.field({ type: pointer }), after: t.field({ type: pointer }) }),
    }),
  );
}

positionInput('SiteSection', 'siteSection');
positionInput('SiteSectionGroup', 'id');
