import { integrationBodies } from '../../api/bodies/integrations.js';
import { limits } from '../../api/rules.js';
import { builder } from '../builder.js';
import { IntegrationCategory, IntegrationTarget, IntegrationVisibility } from '../lib/enums.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { Integration, integrationPath, type RestIntegration } from '../nodes/Integration.js';

const IntegrationBlockMarkdownInput = builder.inputType('IntegrationBlockMarkdownInput', {
  description: 'How a block is written in markdown: its code block name and body.',
  fields: (t) => ({
    codeblock: t.string({ required: true }),
    body: t.string({ required: true }),
  }),
});

const IntegrationBlockInput = builder.inputType('IntegrationBlockInput', {
  description: 'A custom block the integration defines (REST `blocks` item).',
  fields: (t) => ({
    id: t.string({ required: true }),
    title: t.string({ required: true }),
    description: t.string(),
    icon: t.string(),
    urlUnfurl: t.stringList(),
    markdown: t.field({ type: IntegrationBlockMarkdownInput }),
  }),
});

const IntegrationContentSourceConfigurationInput = builder.inputType('IntegrationContentSourceConfigurationInput', {
  description: 'The configuration of a content source: the component that configures it.',
  fields: (t) => ({ componentId: t.string({ required: true }) }),
});

const IntegrationContentSourceInput = builder.inputType('IntegrationContentSourceInput', {
  description: 'A content source the integration defines (REST `contentSources` item).',
  fields: (t) => ({
    id: t.string({ required: true }),
    title: t.string({ required: true }),
    description: t.string(),
    icon: t.string(),
    configuration: t.field({ type: IntegrationContentSourceConfigurationInput, required: true }),
  }),
});

const IntegrationExternalLinkInput = builder.inputType('IntegrationExternalLinkInput', {
  description: 'A link to a page about the integration (at most 5).',
  fields: (t) => ({
    url: t.string({ required: true }),
    label: t.string({ required: true }),
  }),
});

const checkName = (integrationName: string) =>
  checkInput({ integrationName: { ...limits.integrationName, required: true } }, { integrationName });

/** Every cached integration read (lookups and filtered lists) is stale after a publish or unpublish. */
const INTEGRATIONS = '/integrations';

builder.relayMutationField(
  'publishIntegration',
  {
    inputFields: (t) => ({
      integrationName: t.string({ required: true }),
      organization: t.string({ required: true, description: 'Id or hostname of the publishing organization.' }),
      title: t.string({ required: true }),
      description: t.string({ required: true }),
      summary: t.string({ description: 'Long-form markdown.' }),
      icon: t.string({ description: 'Base64 image.' }),
      previewImages: t.stringList({ description: 'Base64 images.' }),
      visibility: t.field({ type: IntegrationVisibility }),
      target: t.field({ type: IntegrationTarget }),
      scopes: t.stringList({ required: true }),
      categories: t.field({ type: [IntegrationCategory] }),
      blocks: t.field({ type: [IntegrationBlockInput] }),
      contentSources: t.field({ type: [IntegrationContentSourceInput] }),
      externalLinks: t.field({ type: [IntegrationExternalLinkInput] }),
      configurations: t.field({ type: 'JSON', description: 'Configuration schemas by level (`account`, `space`, `site`).' }),
      script: t.string({ required: true, description: 'The integration script.' }),
      secrets: t.field({
        type: 'JSON',
        description: 'A map of strings stored with the integration and passed at runtime; never returned.',
      }),
      contentSecurityPolicy: t.field({ type: 'JSON', description: 'A policy string or an object of directive strings.' }),
    }),
  },
  {
    description: 'Publishes an integration, or a new version of it (`POST /integrations/{integrationName}`).',
    resolve: async (_root, { input }, ctx) => {
      checkName(input.integrationName);
      const body = restBody(input, ['integrationName']);
      checkInput(integrationBodies['integration.publish'], body);
      const integration = await ctx.rest.write<RestIntegration>('POST', integrationPath(input.integrationName), body, {
        invalidate: [INTEGRATIONS],
      });
      ctx.rest.prime(integrationPath(integration.name), integration);
      return { integration };
    },
  },
  { outputFields: (t) => ({ integration: t.field({ type: Integration, nullable: true, resolve: (p) => p.integration }) }) },
);

builder.relayMutationField(
  'unpublishIntegration',
  { inputFields: (t) => ({ integrationName: t.string({ required: true }) }) },
  {
    description: 'Unpublishes an integration (`DELETE /integrations/{integrationName}`).',
    resolve: async (_root, { input }, ctx) => {
      checkName(input.integrationName);
      await ctx.rest.write('DELETE', integrationPath(input.integrationName), undefined, { invalidate: [INTEGRATIONS] });
      return { deletedId: globalId('Integration', input.integrationName) };
    },
  },
  { outputFields: (t) => ({ deletedId: t.id({ resolve: (p) => p.deletedId }) }) },
);
