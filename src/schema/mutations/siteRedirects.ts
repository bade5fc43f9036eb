/** The destination input of site redirect writes (the writes themselves come from src/schema/resources.ts). */
import { builder } from '../builder.js';
import { userInputError } from '../lib/errors.js';
import { inputObject } from '../lib/resource.js';

const SiteSectionDestinationInput = builder.inputType('SiteRedirectSiteSectionDestinationInput', {
  description: 'A destination of kind `site-section`: a section of the same site.',
  fields: (t) => ({ siteSectionId: t.string({ required: true, description: 'The REST id of a section of the site.' }) }),
});

/** One field per destination kind (REST `kind`, camelCased); exactly one is given. */
const DESTINATIONS = { siteSection: 'site-section' } as const;

inputObject('SiteRedirectDestinationInput', builder.inputType('SiteRedirectDestinationInput', {
  description: 'Where a redirect leads: exactly one of its fields (one per destination kind).',
  fields: (t) => ({
    siteSection: t.field({ type: SiteSectionDestinationInput, description: 'A section of the site (kind `site-section`).' }),
  }),
}), restDestination);

type DestinationInput = { [K in keyof typeof DESTINATIONS]?: Record<string, unknown> | null };

/** The REST destination `{kind, …}` of the one-of input; none or several: BAD_USER_INPUT. */
function restDestination(destination: DestinationInput | null | undefined) {
  if (destination === undefined) return undefined;
  const given = Object.entries(destination ?? {}).filter(([, v]) => v !== null && v !== undefined);
  if (given.length !== 1) throw userInputError('input.destination: give exactly one destination kind', 'input.destination');
  const [field, value] = given[0] as [keyof typeof DESTINATIONS, Record<string, unknown>];
  return { kind: DESTINATIONS[field], ...value };
}
