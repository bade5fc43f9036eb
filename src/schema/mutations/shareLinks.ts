/** Share link mutations: create, update, delete, and the state transitions activate / deactivate. */
import type { ShareLink as RestShareLink } from '@gitbook/api';
import { siteBodies } from '../../api/bodies/sites.js';
import type { GatewayContext } from '../context.js';
import { builder } from '../builder.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { siteWrite, type SiteKeys } from '../lib/siteScoped.js';
import { ShareLink, shareLinks } from '../nodes/ShareLink.js';
import { SITE_KEYS, siteKeyFields, siteKeys, siteOutput, type InputFields, type OutputFields } from './siteInputs.js';
import { restPath } from '../lib/node.js';

const linkKeys = [...SITE_KEYS, 'shareLinkId'];
const linkPath = (k: SiteKeys, shareLinkId: string) => `${shareLinks.listPath(k)}${restPath`/${shareLinkId}`}`;

async function writeLink(ctx: GatewayContext, keys: SiteKeys, method: 'POST' | 'PATCH', path: string, body: unknown) {
  const json = await siteWrite<RestShareLink>(ctx, method, keys, path, body);
  return { keys, shareLink: shareLinks.attach(json, keys) };
}

const linkOutput = (t: OutputFields<Awaited<ReturnType<typeof writeLink>>>) =>
  t.field({ type: ShareLink, nullable: true, resolve: (p) => p.shareLink });

const linkKeyFields = (t: InputFields) => ({
  ...siteKeyFields(t),
  shareLinkId: t.string({ required: true }),
});

builder.relayMutationField(
  'createShareLink',
  { inputFields: (t) => ({ ...siteKeyFields(t), name: t.string({ required: true }) }) },
  {
    description: 'Creates an active share link with a new secret key (`POST …/sites/{siteId}/share-links`).',
    resolve: (_root, { input }, ctx) => {
      const body = restBody(input, SITE_KEYS);
      checkInput(siteBodies['shareLink.create'], body);
      const keys = siteKeys(input);
      return writeLink(ctx, keys, 'POST', shareLinks.listPath(keys), body);
    },
  },
  { outputFields: (t) => ({ shareLink: linkOutput(t), site: siteOutput(t) }) },
);

builder.relayMutationField(
  'updateShareLink',
  { inputFields: (t) => ({ ...linkKeyFields(t), name: t.string(), active: t.boolean() }) },
  {
    description: 'Renames, activates or deactivates a share link (`PATCH …/share-links/{shareLinkId}`); give `name`, `active` or both.',
    resolve: (_root, { input }, ctx) => {
      const body = restBody(input, linkKeys);
      checkInput(siteBodies['shareLink.update'], body);
      const keys = siteKeys(input);
      return writeLink(ctx, keys, 'PATCH', linkPath(keys, input.shareLinkId), body);
    },
  },
  { outputFields: (t) => ({ shareLink: linkOutput(t) }) },
);

/** A state transition of a share link: PATCH with `active`. */
function setActive(name: string, active: boolean, description: string) {
  builder.relayMutationField(
    name,
    { inputFields: (t) => linkKeyFields(t) },
    {
      description,
      resolve: (_root, { input }, ctx) => {
        const keys = siteKeys(input);
        return writeLink(ctx, keys, 'PATCH', linkPath(keys, input.shareLinkId), { active });
      },
    },
    { outputFields: (t) => ({ shareLink: linkOutput(t) }) },
  );
}

setActive(
  'activateShareLink',
  true,
  'Activates a share link: its key opens the site again (`PATCH …/share-links/{shareLinkId}` with `active: true`).',
);
setActive(
  'deactivateShareLink',
  false,
  'Deactivates a share link: its key opens nothing (`PATCH …/share-links/{shareLinkId}` with `active: false`).',
);

builder.relayMutationField(
  'deleteShareLink',
  { inputFields: (t) => linkKeyFields(t) },
  {
    description: 'Deletes a share link; its key opens nothing (`DELETE …/share-links/{shareLinkId}`).',
    resolve: async (_root, { input }, ctx) => {
      const keys = siteKeys(input);
      await siteWrite(ctx, 'DELETE', keys, linkPath(keys, input.shareLinkId));
      return { keys, deletedId: globalId('ShareLink', input.organizationId, input.siteId, input.shareLinkId) };
    },
  },
  { outputFields: (t) => ({ deletedId: t.id({ resolve: (p) => p.deletedId }), site: siteOutput(t) }) },
);
