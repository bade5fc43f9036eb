/** Site redirect mutations: create, update, delete (organization admins). */
import type { SiteRedirect as RestSiteRedirect } from '@gitbook/api';
import { siteBodies } from '../../api/bodies/sites.js';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { userInputError } from '../lib/errors.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { siteWrite, type SiteKeys } from '../lib/siteScoped.js';
import { SiteRedirect, siteRedirects } from '../nodes/SiteRedirect.js';
import { SITE_KEYS, siteKeyFields, siteKeys, siteOutput, type OutputFields } from './siteInputs.js';
import { restPath } from '../lib/node.js';

const redirectKeys = [...SITE_KEYS, 'siteRedirectId'];
const redirectPath = (k: SiteKeys, siteRedirectId: string) => `${siteRedirects.listPath(k)}${restPath`/${siteRedirectId}`}`;

const SiteSectionDestinationInput = builder.inputType('SiteRedirectSiteSectionDestinationInput', {
  description: 'A destination of kind `site-section`: a section of the same site.',
  fields: (t) => ({ siteSectionId: t.string({ required: true, description: 'The REST id of a section of the site.' }) }),
});

/** One field per destination kind (REST `kind`, camelCased); exactly one is given. */
const DESTINATIONS = { siteSection: 'site-section' } as const;

const SiteRedirectDestinationInput = builder.inputType('SiteRedirectDestinationInput', {
  description: 'Where a redirect leads: exactly one of its fields (one per destination kind).',
  fields: (t) => ({
    siteSection: t.field({ type: SiteSectionDestinationInput, description: 'A section of the site (kind `site-section`).' }),
  }),
});

type DestinationInput = { [K in keyof typeof DESTINATIONS]?: Record<string, unknown> | null };

/** The REST destination `{kind, …}` of the one-of input; none or several: BAD_USER_INPUT. */
function restDestination(destination: DestinationInput | null | undefined) {
  if (destination === undefined) return undefined;
  const given = Object.entries(destination ?? {}).filter(([, v]) => v !== null && v !== undefined);
  if (given.length !== 1) throw userInputError('input.destination: give exactly one destination kind', 'input.destination');
  const [field, value] = given[0] as [keyof typeof DESTINATIONS, Record<string, unknown>];
  return { kind: DESTINATIONS[field], ...value };
}

/** The REST body of a redirect input: the destination in its REST shape. */
function redirectBody(input: Record<string, unknown>, pathParams: readonly string[]) {
  const body = restBody(input, pathParams);
  const destination = restDestination(input.destination as DestinationInput | null | undefined);
  return destination ? { ...body, destination } : body;
}

async function writeRedirect(ctx: GatewayContext, keys: SiteKeys, method: 'POST' | 'PATCH', path: string, body: unknown) {
  const json = await siteWrite<RestSiteRedirect>(ctx, method, keys, path, body);
  return { keys, siteRedirect: siteRedirects.attach(json, keys) };
}

const redirectOutput = (t: OutputFields<Awaited<ReturnType<typeof writeRedirect>>>) =>
  t.field({ type: SiteRedirect, nullable: true, resolve: (p) => p.siteRedirect });

builder.relayMutationField(
  'createSiteRedirect',
  {
    inputFields: (t) => ({
      ...siteKeyFields(t),
      source: t.string({ required: true, description: 'The path to redirect from, e.g. `/old/page`.' }),
      destination: t.field({ type: SiteRedirectDestinationInput, required: true }),
    }),
  },
  {
    description: 'Creates a redirect on a site (`POST …/sites/{siteId}/redirects`); a source already redirected: CONFLICT.',
    resolve: (_root, { input }, ctx) => {
      const body = redirectBody(input, SITE_KEYS);
      checkInput(siteBodies['siteRedirect.create'], body);
      const keys = siteKeys(input);
      return writeRedirect(ctx, keys, 'POST', siteRedirects.listPath(keys), body);
    },
  },
  { outputFields: (t) => ({ siteRedirect: redirectOutput(t), site: siteOutput(t) }) },
);

builder.relayMutationField(
  'updateSiteRedirect',
  {
    inputFields: (t) => ({
      ...siteKeyFields(t),
      siteRedirectId: t.string({ required: true }),
      source: t.string(),
      destination: t.field({ type: SiteRedirectDestinationInput }),
    }),
  },
  {
    description: 'Changes the source or destination of a redirect (`PATCH …/redirects/{siteRedirectId}`).',
    resolve: (_root, { input }, ctx) => {
      const body = redirectBody(input, redirectKeys);
      checkInput(siteBodies['siteRedirect.update'], body);
      const keys = siteKeys(input);
      return writeRedirect(ctx, keys, 'PATCH', redirectPath(keys, input.siteRedirectId), body);
    },
  },
  { outputFields: (t) => ({ siteRedirect: redirectOutput(t) }) },
);

builder.relayMutationField(
  'deleteSiteRedirect',
  { inputFields: (t) => ({ ...siteKeyFields(t), siteRedirectId: t.string({ required: true }) }) },
  {
    description: 'Deletes a redirect (`DELETE …/redirects/{siteRedirectId}`).',
    resolve: async (_root, { input }, ctx) => {
      const keys = siteKeys(input);
      await siteWrite(ctx, 'DELETE', keys, redirectPath(keys, input.siteRedirectId));
      return { keys, deletedId: globalId('SiteRedirect', input.organizationId, input.siteId, input.siteRedirectId) };
    },
  },
  { outputFields: (t) => ({ deletedId: t.id({ resolve: (p) => p.deletedId }), site: siteOutput(t) }) },
);
