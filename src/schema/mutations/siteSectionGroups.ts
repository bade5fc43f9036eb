/** Site section group mutations: create, update, delete, membership, move (organization admins). */
import type { SiteSectionGroup as RestSiteSectionGroup } from '@gitbook/api';
import { siteBodies } from '../../api/bodies/sites.js';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { siteWrite, type SiteKeys } from '../lib/siteScoped.js';
import { SiteSection, siteSections } from '../nodes/SiteSection.js';
import { SiteSectionGroup, siteSectionGroups } from '../nodes/SiteSectionGroup.js';
import {
  SITE_KEYS,
  siteKeyFields,
  siteKeys,
  siteOutput,
  SiteSectionGroupPosition,
  type InputFields,
  type OutputFields,
} from './siteInputs.js';
import { restPath } from '../lib/node.js';

const groupKeys = [...SITE_KEYS, 'siteSectionGroupId'];
const groupPath = (k: SiteKeys, siteSectionGroupId: string) =>
  `${siteSectionGroups.listPath(k)}${restPath`/${siteSectionGroupId}`}`;

async function writeGroup(ctx: GatewayContext, keys: SiteKeys, method: 'POST' | 'PATCH', path: string, body?: unknown) {
  const json = await siteWrite<RestSiteSectionGroup>(ctx, method, keys, path, body);
  return { keys, siteSectionGroup: siteSectionGroups.attach(json, keys) };
}

type GroupPayload = Awaited<ReturnType<typeof writeGroup>>;

const groupOutput = (t: OutputFields<GroupPayload>) =>
  t.field({ type: SiteSectionGroup, nullable: true, resolve: (p) => p.siteSectionGroup });

const groupKeyFields = (t: InputFields) => ({
  ...siteKeyFields(t),
  siteSectionGroupId: t.string({ required: true }),
});

builder.relayMutationField(
  'createSiteSectionGroup',
  {
    inputFields: (t) => ({
      ...siteKeyFields(t),
      title: t.string({ required: true }),
      icon: t.string(),
      sections: t.stringList({ description: 'REST ids of sections to put in the group (they leave any other group).' }),
    }),
  },
  {
    description: 'Creates a section group at the end of a site (`POST …/sites/{siteId}/section-groups`).',
    resolve: (_root, { input }, ctx) => {
      const body = restBody(input, SITE_KEYS);
      checkInput(siteBodies['siteSectionGroup.create'], body);
      const keys = siteKeys(input);
      return writeGroup(ctx, keys, 'POST', siteSectionGroups.listPath(keys), body);
    },
  },
  { outputFields: (t) => ({ siteSectionGroup: groupOutput(t), site: siteOutput(t) }) },
);

builder.relayMutationField(
  'updateSiteSectionGroup',
  {
    inputFields: (t) => ({
      ...groupKeyFields(t),
      title: t.string(),
      icon: t.string({ description: 'Absent keeps the icon; null removes it.' }),
    }),
  },
  {
    description: 'Changes a section group (`PATCH …/section-groups/{siteSectionGroupId}`).',
    resolve: (_root, { input }, ctx) => {
      const body = restBody(input, groupKeys);
      checkInput(siteBodies['siteSectionGroup.update'], body);
      const keys = siteKeys(input);
      return writeGroup(ctx, keys, 'PATCH', groupPath(keys, input.siteSectionGroupId), body);
    },
  },
  { outputFields: (t) => ({ siteSectionGroup: groupOutput(t) }) },
);

builder.relayMutationField(
  'moveSiteSectionGroup',
  { inputFields: (t) => ({ ...groupKeyFields(t), position: t.field({ type: SiteSectionGroupPosition }) }) },
  {
    description: 'Moves a section group before or after a section, or to the end of the site (`POST …/section-groups/{siteSectionGroupId}/move`).',
    resolve: (_root, { input }, ctx) => {
      const body = restBody(input, groupKeys);
      checkInput(siteBodies['siteSectionGroup.move'], body);
      const keys = siteKeys(input);
      return writeGroup(ctx, keys, 'POST', `${groupPath(keys, input.siteSectionGroupId)}/move`, body);
    },
  },
  { outputFields: (t) => ({ siteSectionGroup: groupOutput(t), site: siteOutput(t) }) },
);

builder.relayMutationField(
  'deleteSiteSectionGroup',
  { inputFields: (t) => groupKeyFields(t) },
  {
    description: 'Deletes a section group; its sections stay, ungrouped (`DELETE …/section-groups/{siteSectionGroupId}`).',
    resolve: async (_root, { input }, ctx) => {
      const keys = siteKeys(input);
      await siteWrite(ctx, 'DELETE', keys, groupPath(keys, input.siteSectionGroupId));
      return { keys, deletedId: globalId('SiteSectionGroup', input.organizationId, input.siteId, input.siteSectionGroupId) };
    },
  },
  { outputFields: (t) => ({ deletedId: t.id({ resolve: (p) => p.deletedId }), site: siteOutput(t) }) },
);

builder.relayMutationField(
  'addSiteSectionToGroup',
  { inputFields: (t) => ({ ...groupKeyFields(t), sectionId: t.string({ required: true }) }) },
  {
    description: 'Puts a section into a group, out of any other (`POST …/section-groups/{siteSectionGroupId}/sections`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, groupKeys);
      checkInput(siteBodies['siteSectionGroup.addSection'], body);
      const keys = siteKeys(input);
      const payload = await writeGroup(ctx, keys, 'POST', `${groupPath(keys, input.siteSectionGroupId)}/sections`, body);
      const section = payload.siteSectionGroup.sections.find((s) => s.id === input.sectionId);
      return { ...payload, siteSection: section && siteSections.attach(section, keys) };
    },
  },
  {
    outputFields: (t) => ({
      siteSectionGroup: groupOutput(t),
      siteSection: t.field({ type: SiteSection, nullable: true, resolve: (p) => p.siteSection }),
    }),
  },
);

builder.relayMutationField(
  'removeSiteSectionFromGroup',
  { inputFields: (t) => ({ ...groupKeyFields(t), siteSectionId: t.string({ required: true }) }) },
  {
    description: 'Takes a section out of its group (`DELETE …/section-groups/{siteSectionGroupId}/sections/{siteSectionId}`).',
    resolve: async (_root, { input }, ctx) => {
      const keys = siteKeys(input);
      const path = `${groupPath(keys, input.siteSectionGroupId)}${restPath`/sections/${input.siteSectionId}`}`;
      await siteWrite(ctx, 'DELETE', keys, path);
      return { keys, siteSectionGroupId: input.siteSectionGroupId, siteSectionId: input.siteSectionId };
    },
  },
  {
    outputFields: (t) => ({
      siteSectionGroup: t.field({
        type: SiteSectionGroup,
        nullable: true,
        description: 'The group after the change (read through the site’s group list).',
        resolve: (p, _args, ctx) => siteSectionGroups.find(ctx, p.keys, p.siteSectionGroupId),
      }),
      siteSection: t.field({
        type: SiteSection,
        nullable: true,
        description: 'The section after the change (read through the site’s section list).',
        resolve: (p, _args, ctx) => siteSections.find(ctx, p.keys, p.siteSectionId),
      }),
    }),
  },
);
