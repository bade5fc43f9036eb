/** Site section mutations: create, update, delete, move (organization admins). */
import type { SiteSection as RestSiteSection } from '@gitbook/api';
import { siteBodies } from '../../api/bodies/sites.js';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { siteWrite, type SiteKeys } from '../lib/siteScoped.js';
import { SiteSection, siteSections } from '../nodes/SiteSection.js';
import { siteSpacesOf } from '../nodes/SiteSpace.js';
import { SITE_KEYS, siteKeyFields, siteKeys, siteOutput, SiteSectionPosition, type OutputFields } from './siteInputs.js';
import { restPath } from '../lib/node.js';

const sectionKeys = [...SITE_KEYS, 'siteSectionId'];
const sectionPath = (k: SiteKeys, siteSectionId: string) => `${siteSections.listPath(k)}${restPath`/${siteSectionId}`}`;

/** A write answered by a section: the section (its embedded spaces prime the loader) and the site keys. */
async function writeSection(ctx: GatewayContext, keys: SiteKeys, method: 'POST' | 'PATCH', path: string, body?: unknown) {
  const json = await siteWrite<RestSiteSection>(ctx, method, keys, path, body);
  siteSpacesOf(ctx, json, keys);
  return { keys, siteSection: siteSections.attach(json, keys) };
}

type SectionPayload = Awaited<ReturnType<typeof writeSection>>;

const sectionOutput = (t: OutputFields<SectionPayload>) =>
  t.field({ type: SiteSection, nullable: true, resolve: (p) => p.siteSection });

builder.relayMutationField(
  'createSiteSection',
  {
    inputFields: (t) => ({
      ...siteKeyFields(t),
      spaceId: t.string({ required: true, description: 'The space the section publishes (its first site space).' }),
      title: t.string({ description: 'Default: the title of the space.' }),
    }),
  },
  {
    description: 'Adds a section at the end of a site (`POST …/sites/{siteId}/sections`).',
    resolve: (_root, { input }, ctx) => {
      const body = restBody(input, SITE_KEYS);
      checkInput(siteBodies['siteSection.create'], body);
      const keys = siteKeys(input);
      return writeSection(ctx, keys, 'POST', siteSections.listPath(keys), body);
    },
  },
  { outputFields: (t) => ({ siteSection: sectionOutput(t), site: siteOutput(t) }) },
);

builder.relayMutationField(
  'updateSiteSection',
  {
    inputFields: (t) => ({
      ...siteKeyFields(t),
      siteSectionId: t.string({ required: true }),
      title: t.string(),
      path: t.string(),
      defaultSiteSpace: t.string({ description: 'The REST id of a site space of the section.' }),
      condition: t.string({ description: 'Absent keeps the condition; null removes it.' }),
      icon: t.string({ description: 'Absent keeps the icon; null removes it.' }),
      description: t.string({ description: 'Absent keeps the description; null removes it.' }),
    }),
  },
  {
    description: 'Changes a section (`PATCH …/sections/{siteSectionId}`).',
    resolve: (_root, { input }, ctx) => {
      const body = restBody(input, sectionKeys);
      checkInput(siteBodies['siteSection.update'], body);
      const keys = siteKeys(input);
      return writeSection(ctx, keys, 'PATCH', sectionPath(keys, input.siteSectionId), body);
    },
  },
  { outputFields: (t) => ({ siteSection: sectionOutput(t) }) },
);

builder.relayMutationField(
  'moveSiteSection',
  {
    inputFields: (t) => ({
      ...siteKeyFields(t),
      siteSectionId: t.string({ required: true }),
      position: t.field({ type: SiteSectionPosition }),
    }),
  },
  {
    description: 'Moves a section before or after another, or to the end of the site (`POST …/sections/{siteSectionId}/move`).',
    resolve: (_root, { input }, ctx) => {
      const body = restBody(input, sectionKeys);
      checkInput(siteBodies['siteSection.move'], body);
      const keys = siteKeys(input);
      return writeSection(ctx, keys, 'POST', `${sectionPath(keys, input.siteSectionId)}/move`, body);
    },
  },
  { outputFields: (t) => ({ siteSection: sectionOutput(t), site: siteOutput(t) }) },
);

builder.relayMutationField(
  'deleteSiteSection',
  { inputFields: (t) => ({ ...siteKeyFields(t), siteSectionId: t.string({ required: true }) }) },
  {
    description: 'Deletes a section and its site spaces (`DELETE …/sections/{siteSectionId}`).',
    resolve: async (_root, { input }, ctx) => {
      const keys = siteKeys(input);
      await siteWrite(ctx, 'DELETE', keys, sectionPath(keys, input.siteSectionId));
      return { keys, deletedId: globalId('SiteSection', input.organizationId, input.siteId, input.siteSectionId) };
    },
  },
  { outputFields: (t) => ({ deletedId: t.id({ resolve: (p) => p.deletedId }), site: siteOutput(t) }) },
);
